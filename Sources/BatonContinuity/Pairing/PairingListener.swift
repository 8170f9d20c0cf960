import BatonLoop
import CGLib
import Crypto
import Foundation

/// Accepts pairing connections on one TCP address, with a throwaway certificate made for this
/// listener (its subject a random identifier: a stranger who connects learns nothing stable).
///
/// There is no admission gate (the newcomer holds no group secret yet), so everything is
/// bounded instead: each connection has `helloDeadline` from accept to its first message (its
/// TLS handshake included; the caller ends the wait with `PairingChannel`'s hello); at most
/// `maximumWaiting` connections wait at once, `maximumWaitingPerAddress` from one IP address,
/// a new one past either cap shutting down the oldest one still without its ClientHello (else
/// the oldest); a connection's handshake starts in a
/// GIO worker thread only once its whole ClientHello has arrived. Connections that fail before
/// their hello are dropped and only counted (`failedConnections`).
@MainActor
public final class PairingListener {
    /// The port listened on (the one the system chose when asked for port 0).
    public nonisolated let port: UInt16
    /// How long a connection has from accept to its first message.
    public var helloDeadline: Duration = .seconds(10)
    /// How many accepted connections may wait for their first message at once.
    public var maximumWaiting = 4
    /// How many of those may come from one IP address.
    public var maximumWaitingPerAddress = 2
    /// How many connections failed before their first message (garbage, no certificate, late).
    private(set) var failedConnections = 0
    /// How many channels wait to be taken at most; more are closed.
    static let maximumReady = 4

    let certificate: PairingCertificate
    private let socket: SendablePointer<GSocket>
    private var watch: LoopSource?
    private var waiting: [PendingConnection] = []
    private var ready: [PairingChannel] = []
    private var taker: CheckedContinuation<PairingChannel?, Never>?
    private var closed = false

    /// Listens on `host` (an IP address) and `port` (0: any free port).
    public init(host: String = "127.0.0.1", port: UInt16 = 0) throws(PairingError) {
        certificate = try PairingCertificate(key: P256.Signing.PrivateKey())
        let opened: (socket: UnsafeMutablePointer<GSocket>, host: String, port: UInt16)
        do { opened = try ListeningSocket.open(host: host, port: port) } catch { throw .connectionFailed(error) }
        let socket = opened.socket
        self.port = opened.port
        self.socket = SendablePointer(socket)
    }

    deinit {
        watch?.cancel()
        for connection in waiting { connection.shutDown() }
        g_socket_close(socket.pointer, nil)
        g_object_unref(socket.pointer)
    }

    /// Stops listening (the port refuses connections from now on), shuts down every
    /// connection waiting, and ends a pending `accept()` with nil.
    public func close() {
        guard !closed else { return }
        closed = true
        watch?.cancel()
        watch = nil
        g_socket_close(socket.pointer, nil)
        for connection in waiting { connection.drop() }
        waiting = []
        for channel in ready { channel.abort() }
        ready = []
        taker?.resume(returning: nil)
        taker = nil
    }

    /// The next connection whose TLS handshake succeeded (its hello deadline still running);
    /// nil once the listener is closed. One caller at a time.
    func accept() async -> PairingChannel? {
        startWatching()
        if !ready.isEmpty { return ready.removeFirst() }
        if closed { return nil }
        precondition(taker == nil, "PairingListener.accept() called while another accept() waits")
        return await withLoopContinuation { taker = $0 }
    }

    private func startWatching() {
        guard watch == nil, !closed else { return }
        watch = MainLoop.whenReadable(g_socket_get_fd(socket.pointer)) { [weak self] in
            guard let self, !self.closed else { return .stop }
            self.acceptWaitingConnections()
            return .again
        }
    }

    private func acceptWaitingConnections() {
        while !closed {
            var error: UnsafeMutablePointer<GError>?
            guard let client = g_socket_accept(socket.pointer, nil, &error) else {
                let failure = GLibError(consuming: error!)
                if failure.isIOError(G_IO_ERROR_WOULD_BLOCK) { return }
                // E.g. out of descriptors: the socket stays readable, so rest a moment rather than spin.
                watch?.cancel()
                watch = nil
                MainLoop.after(SecureListener.acceptRetryDelay) { [weak self] in self?.startWatching() }
                return
            }
            let connection = SendablePointer(g_socket_connection_factory_create_connection(client)!)
            let host = SecureChannel.remoteHost(connection.pointer) ?? "?"
            // The device listener's rule: a stranger's silent connections cannot push out a
            // newcomer in its handshake.
            PendingConnection.makeRoom(in: waiting, for: host, perAddress: maximumWaitingPerAddress, total: maximumWaiting)
            let pending = PendingConnection(socket: client, host: host, deadline: helloDeadline) { [weak self] ended in
                self?.waiting.removeAll { $0 === ended }
            }
            let fd = g_socket_get_fd(client)
            g_object_unref(client)
            waiting.append(pending)
            Task { @MainActor [weak self, certificate] in
                defer { g_object_unref(connection.pointer) }
                // No worker thread for a peer that has not sent its ClientHello yet.
                guard await Readiness.clientHello(on: fd), pending.isWaiting else {
                    pending.drop()
                    self?.failedConnections += 1
                    return
                }
                pending.sentClientHello = true
                do {
                    let channel = try await PairingChannel.accept(connection.pointer, certificate: certificate, pending: pending)
                    guard pending.isWaiting, let self, !self.closed else { return channel.abort() }
                    self.deliver(channel)
                } catch {
                    pending.drop()
                    self?.failedConnections += 1
                }
            }
        }
    }

    private func deliver(_ channel: PairingChannel) {
        if let taker {
            self.taker = nil
            return taker.resume(returning: channel)
        }
        guard ready.count < Self.maximumReady else { return channel.abort() }
        ready.append(channel)
    }
}
