import BatonLoop
import CGLib
import Foundation

/// Accepts secure connections from the group's devices on one TCP address.
///
/// It owns a non-blocking listening `GSocket`, watches it with a GLib fd source and accepts with
/// `g_socket_accept` when it is readable. (GLib 2.74's `g_socket_listener_accept_async` can
/// call back with an already-freed task when connections come and go quickly — a peer that
/// reconnects fast crashed the listening process — so Baton does not use it.)
public final class SecureListener: @unchecked Sendable {
    /// The port listened on (the one the system chose when asked for port 0).
    public let port: UInt16
    private let socket: UnsafeMutablePointer<GSocket>
    private let identity: DeviceIdentity
    private let credential: TLSCredential
    private let lock = NSLock()
    private var waiter: (source: LoopSource, resume: @Sendable (Bool) -> Void)?
    private var closed = false

    /// Listens on `host` (an IP address; loopback by default) and `port` (0: any free port).
    public init(identity: DeviceIdentity, credential: TLSCredential, host: String = "127.0.0.1",
                port: UInt16 = 0) throws(TransportError) {
        guard let inet = g_inet_address_new_from_string(host) else { throw .invalidAddress(host) }
        defer { g_object_unref(inet) }
        let address = g_inet_socket_address_new(inet, port)!
        defer { g_object_unref(address) }
        var error: UnsafeMutablePointer<GError>?
        guard let socket = g_socket_new(g_inet_address_get_family(inet), G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, &error) else {
            throw .connectionFailed(GLibError(consuming: error!))
        }
        g_socket_set_blocking(socket, 0)
        guard g_socket_bind(socket, address, 1, &error) != 0, g_socket_listen(socket, &error) != 0,
              let local = g_socket_get_local_address(socket, &error) else {
            g_object_unref(socket)
            throw .connectionFailed(GLibError(consuming: error!))
        }
        self.port = g_inet_socket_address_get_port(gCast(local))
        g_object_unref(local)
        self.socket = socket
        self.identity = identity
        self.credential = credential
    }

    deinit {
        close()
        g_object_unref(socket)
    }

    /// The identity the listener was made with.
    public var fallbackIdentity: DeviceIdentity { identity }

    /// Stops listening; a pending `accept()` ends with `TransportError.closed`.
    public func close() {
        lock.lock()
        let pending = waiter
        waiter = nil
        let wasOpen = !closed
        closed = true
        lock.unlock()
        pending?.source.cancel()
        pending?.resume(false)
        if wasOpen { g_socket_close(socket, nil) }
    }

    /// The next peer that connects and proves it is a device of the group. A peer that fails
    /// is dropped and its failure thrown, so the caller can log it and accept again.
    /// `identity`, when given, is asked once the connection has arrived, so the peer is checked
    /// against the newest revocation list.
    @MainActor
    public func accept(identity current: (@MainActor @Sendable () -> DeviceIdentity)? = nil) async throws(TransportError) -> SecureChannel {
        let accepted = try await nextConnection()
        defer { g_object_unref(accepted.pointer) }
        let checking: DeviceIdentity = if let current { current() } else { identity }
        return try await SecureChannel.accept(accepted.pointer, identity: checking, credential: credential)
    }

    /// The next TCP connection, waiting for the socket to be readable as needed.
    @MainActor
    private func nextConnection() async throws(TransportError) -> SendablePointer<GSocketConnection> {
        while true {
            if isClosed { throw .closed }
            var error: UnsafeMutablePointer<GError>?
            if let client = g_socket_accept(socket, nil, &error) {
                let connection = g_socket_connection_factory_create_connection(client)!
                g_object_unref(client)
                return SendablePointer(connection)
            }
            let failure = GLibError(consuming: error!)
            guard failure.domain == "g-io-error-quark", failure.code == Int32(G_IO_ERROR_WOULD_BLOCK.rawValue) else {
                throw .connectionFailed(failure)
            }
            guard await readable() else { throw .closed }
        }
    }

    private var isClosed: Bool { lock.withLock { closed } }

    /// Waits until the listening socket is readable; false if the listener was closed.
    @MainActor
    private func readable() async -> Bool {
        let fd = g_socket_get_fd(socket)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let resumed = ManagedFlag()
            let resume: @Sendable (Bool) -> Void = { ready in
                guard !resumed.isSet else { return }
                resumed.set()
                continuation.resume(returning: ready)
            }
            // The app's loop, where every GIO call of the listener's connections comes back too.
            let source = MainLoop.context.whenReadable(fd) { [weak self] in
                self?.lock.lock()
                self?.waiter = nil
                self?.lock.unlock()
                resume(true)
                return .stop
            }
            lock.lock()
            if closed {
                lock.unlock()
                source.cancel()
                resume(false)
            } else {
                waiter = (source, resume)
                lock.unlock()
            }
        }
    }
}
