import BatonLoop
import CGLib
import Foundation

/// Accepts secure connections from the group's devices on one TCP address.
public final class SecureListener: @unchecked Sendable {
    /// The port listened on (the one the system chose when asked for port 0).
    public let port: UInt16
    private let listener: UnsafeMutablePointer<GSocketListener>
    private let identity: DeviceIdentity
    private let credential: TLSCredential

    /// Listens on `host` (an IP address; loopback by default) and `port` (0: any free port).
    public init(identity: DeviceIdentity, credential: TLSCredential, host: String = "127.0.0.1",
                port: UInt16 = 0) throws(TransportError) {
        guard let inet = g_inet_address_new_from_string(host) else { throw .invalidAddress(host) }
        defer { g_object_unref(inet) }
        let requested = g_inet_socket_address_new(inet, port)!
        defer { g_object_unref(requested) }
        let listener = g_socket_listener_new()!
        var effective: UnsafeMutablePointer<GSocketAddress>?
        var error: UnsafeMutablePointer<GError>?
        guard g_socket_listener_add_address(listener, requested, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                                            nil, &effective, &error) != 0, let effective else {
            g_object_unref(listener)
            throw .connectionFailed(GLibError(consuming: error!))
        }
        self.port = g_inet_socket_address_get_port(gCast(effective))
        g_object_unref(effective)
        self.listener = listener
        self.identity = identity
        self.credential = credential
    }

    deinit {
        g_socket_listener_close(listener)
        g_object_unref(listener)
    }

    /// Stops listening; pending `accept()` calls end with an error.
    public func close() { g_socket_listener_close(listener) }

    /// The next peer that connects and proves it is a device of the group. A peer that fails
    /// is dropped and its failure thrown, so the caller can log it and accept again. Pass
    /// `identity` to check the peer against a newer revocation list than the listener's.
    public func accept(identity current: DeviceIdentity? = nil) async throws(TransportError) -> SecureChannel {
        let listener = SendablePointer(self.listener)
        let connection: SendablePointer<GSocketConnection>
        do {
            connection = try await GIOAsync.call { cancellable, callback, userData in
                g_socket_listener_accept_async(listener.pointer, cancellable, callback, userData)
            } finish: { result, error in
                g_socket_listener_accept_finish(listener.pointer, result, nil, error).map(SendablePointer.init)
            }
        } catch {
            throw .connectionFailed(GLibError(error))
        }
        defer { g_object_unref(connection.pointer) }
        return try await SecureChannel.accept(connection.pointer, identity: current ?? identity, credential: credential)
    }
}
