import BatonLoop
import CGLib
import Foundation

/// Accepts secure connections from the group's devices on one TCP address.
///
/// It owns a non-blocking listening `GSocket`, watches it with a GLib fd source on the app's
/// loop and accepts with `g_socket_accept` when it is readable. (GLib 2.74's
/// `g_socket_listener_accept_async` can call back with an already-freed task when connections
/// come and go quickly — a peer that reconnects fast crashed the listening process — so Baton
/// does not use it.)
///
/// Before TLS, each connection passes the admission gate (`AdmissionGate`): the peer proves it
/// holds the group's current discovery key (the one of the identity the connection is checked
/// against), or is shut down without having seen a TLS byte, the certificate included.
///
/// Accepting never waits on a peer. Each accepted connection does its gate and TLS handshake in
/// a task of its own, and has `handshakeDeadline` from accept to being authenticated: a verified
/// link whose D-Bus is set up (`PeerBus.open`), or a stream connection whose token has
/// arrived. A connection still waiting at its deadline is shut down. At most
/// `maximumUnauthenticated` connections wait at once, and at most
/// `maximumUnauthenticatedPerAddress` from one IP address; a new connection past either cap
/// shuts down a waiting one (of that address, for the second): the oldest of those that have
/// not sent a whole ClientHello yet, else the oldest of all. The kernel queues up to
/// `listenBacklog` connections not yet accepted, for bursts.
///
/// A connection's TLS handshake starts only once its whole ClientHello has arrived, and then
/// runs in a worker thread of GLib's shared pool (glib-networking's way), blocked on the
/// peer's next flight. A real handshake on a LAN takes milliseconds; one still running after
/// `stalledHandshakeAge` is stalled. At most `maximumHandshakesInWorkers` handshakes, well
/// under the pool's ten threads, may run longer than that at once: past the cap, the one
/// running longest is shut down as soon as it is that old. So peers that send a ClientHello
/// and stall hold few threads, for about a second each, and a device does not queue behind
/// them for the pool; a burst of handshakes younger than that is never cut.
@MainActor
public final class SecureListener {
    /// The port listened on (the one the system chose when asked for port 0).
    public nonisolated let port: UInt16
    /// The address listened on: the one asked for, or `0.0.0.0` where every interface
    /// (`PeerAddress.allInterfaces`) fell back to IPv4 on a system without IPv6.
    public nonisolated let host: String
    /// How long a connection has from accept to be authenticated (see the type's comment).
    public var handshakeDeadline: Duration = .seconds(5)
    /// How many accepted connections may wait to authenticate at once.
    public var maximumUnauthenticated = 64
    /// How many of those may come from one IP address (one /64 prefix for IPv6).
    public var maximumUnauthenticatedPerAddress = 8
    /// How many TLS handshakes may run in GIO worker threads at once (see the type's comment).
    public var maximumHandshakesInWorkers = 4
    /// How long a handshake may run in a worker thread before it counts as stalled.
    public var stalledHandshakeAge: Duration = .seconds(1)
    /// The listen backlog asked for (`g_socket_set_listen_backlog`; the kernel caps it at
    /// `net.core.somaxconn`).
    public nonisolated static let listenBacklog: Int32 = 128
    /// How long accepting rests after the system refused to accept (out of descriptors, say).
    static let acceptRetryDelay: Duration = .milliseconds(250)
    /// How many failed handshakes `accept()` keeps to report; older ones are forgotten.
    static let maximumReportedFailures = 16

    private let socket: SendablePointer<GSocket>
    private let identity: DeviceIdentity
    private let credential: TLSCredential
    private var checkingIdentity: (@MainActor () -> DeviceIdentity)?
    private var watch: LoopSource?
    /// Connections waiting to authenticate, oldest first.
    private var waiting: [PendingConnection] = []
    /// Connections whose TLS handshake runs in a worker thread now, longest running first.
    private var handshaking: [(connection: PendingConnection, started: ContinuousClock.Instant)] = []
    /// When the longest running handshake turns stalled, while more than the cap run.
    private var stallCheck: LoopSource?
    /// Handshakes finished and not yet taken by `accept()`, in the order they finished.
    private var finished: [Result<SecureChannel, TransportError>] = []
    private var taker: CheckedContinuation<Result<SecureChannel, TransportError>, Never>?
    private var closed = false
    /// True once `stopListening()` closed the listening socket.
    private var stoppedListening = false

    /// Listens on `host` (an IP address, or `PeerAddress.allInterfaces` for every interface;
    /// loopback by default) and `port` (0: any free port).
    public init(identity: DeviceIdentity, credential: TLSCredential, host: String = "127.0.0.1",
                port: UInt16 = 0) throws(TransportError) {
        guard g_inet_address_new_from_string(host).map({ g_object_unref($0); return true }) == true else { throw .invalidAddress(host) }
        let opened: (socket: UnsafeMutablePointer<GSocket>, host: String, port: UInt16)
        do { opened = try ListeningSocket.open(host: host, port: port, backlog: Self.listenBacklog) } catch {
            throw .connectionFailed(error)
        }
        let socket = opened.socket
        self.port = opened.port
        self.host = opened.host
        self.socket = SendablePointer(socket)
        self.identity = identity
        self.credential = credential
    }

    deinit {
        // Not `close()`: a deinit may run off the main actor. What it does is thread-safe.
        watch?.cancel()
        stallCheck?.cancel()
        for connection in waiting { connection.shutDown() }
        g_socket_close(socket.pointer, nil)
        g_object_unref(socket.pointer)
    }

    /// The identity the listener was made with.
    public var fallbackIdentity: DeviceIdentity { identity }

    /// How many accepted connections are waiting to authenticate now.
    public var unauthenticatedCount: Int { waiting.count }

    /// Stops listening and shuts down every connection still waiting to authenticate; a
    /// pending `accept()` ends with `TransportError.closed`.
    public func close() {
        guard !closed else { return }
        closed = true
        checkingIdentity = nil  // it may hold the listener's owner, or the listener
        watch?.cancel()
        watch = nil
        g_socket_close(socket.pointer, nil)
        for connection in waiting { connection.drop() }
        waiting = []
        handshaking = []
        stallCheck?.cancel()
        stallCheck = nil
        for case .success(let channel) in finished { channel.close() }
        finished = []
        taker?.resume(returning: .failure(.closed))
        taker = nil
    }

    /// Closes the listening socket, so the port refuses new connections from now on. The
    /// connections the kernel had already queued are accepted first, and none accepted is
    /// disturbed: each goes on with its handshake within its own deadline, and `accept()`
    /// still hands out those that finish. `close()` ends the rest. (A node uses it for the
    /// listener it replaced at a port rotation.)
    public func stopListening() {
        guard !closed, !stoppedListening else { return }
        if watch != nil { acceptWaitingConnections() }
        stoppedListening = true
        watch?.cancel()
        watch = nil
        g_socket_close(socket.pointer, nil)
    }

    /// The next peer that connected and proved it is a device of the group. A peer that
    /// failed is dropped and its failure thrown, so the caller can log it and accept again.
    /// `identity`, when given, is asked as each connection arrives, so the peer is checked
    /// against the newest revocation list.
    ///
    /// The handshakes run concurrently, started as connections arrive from the first call on;
    /// this only takes the next one that finished. One caller at a time.
    public func accept(identity current: (@MainActor () -> DeviceIdentity)? = nil) async throws(TransportError) -> SecureChannel {
        if let current { checkingIdentity = current }
        startWatching()
        let next: Result<SecureChannel, TransportError>
        if !finished.isEmpty {
            next = finished.removeFirst()
        } else if closed {
            next = .failure(.closed)
        } else {
            precondition(taker == nil, "SecureListener.accept() called while another accept() waits")
            next = await withLoopContinuation { taker = $0 }
        }
        return try next.get()
    }

    private func startWatching() {
        guard watch == nil, !closed, !stoppedListening else { return }
        watch = MainLoop.whenReadable(g_socket_get_fd(socket.pointer)) { [weak self] in
            guard let self, !self.closed else { return .stop }
            self.acceptWaitingConnections()
            return .again
        }
    }

    /// Accepts every connection the kernel has queued, each into a handshake of its own.
    private func acceptWaitingConnections() {
        while !closed, !stoppedListening {
            var error: UnsafeMutablePointer<GError>?
            guard let client = g_socket_accept(socket.pointer, nil, &error) else {
                let failure = GLibError(consuming: error!)
                if failure.isIOError(G_IO_ERROR_WOULD_BLOCK) { return }
                // E.g. out of descriptors: the socket stays readable, so rest a moment rather
                // than spin, then accept again.
                watch?.cancel()
                watch = nil
                MainLoop.after(Self.acceptRetryDelay) { [weak self] in self?.startWatching() }
                return deliver(.failure(.connectionFailed(failure)))
            }
            let connection = SendablePointer(g_socket_connection_factory_create_connection(client)!)
            let host = SecureChannel.remoteHost(connection.pointer) ?? "?"
            makeRoom(for: host)
            let pending = PendingConnection(socket: client, host: host, deadline: handshakeDeadline) { [weak self] ended in
                self?.waiting.removeAll { $0 === ended }
            }
            let fd = g_socket_get_fd(client)
            g_object_unref(client)
            waiting.append(pending)
            let checking = checkingIdentity?() ?? identity
            Task { @MainActor [weak self, credential] in
                defer { g_object_unref(connection.pointer) }
                let outcome: Result<SecureChannel, TransportError>
                do throws(TransportError) {
                    // Nothing, not even the certificate, to a peer that has not proved it holds
                    // the group's discovery key (a device issued before there was one: no gate).
                    if let key = checking.discoveryKey {
                        guard await AdmissionGate.admit(on: fd, key: key), pending.isWaiting else { throw .notAdmitted }
                    }
                    // No worker thread for a peer that has not sent its ClientHello yet.
                    guard await Readiness.clientHello(on: fd), pending.isWaiting else {
                        throw .handshakeFailed(GLibError(domain: "baton", code: 0, message: "no TLS ClientHello before the deadline"))
                    }
                    self?.startHandshake(pending)
                    defer { self?.handshakeEnded(pending) }
                    let channel = try await SecureChannel.accept(connection.pointer, identity: checking,
                                                                 credential: credential, pending: pending)
                    // The deadline (or a cap) and this completion run on the loop one after the
                    // other. If the connection was dropped first — its handshake finished in the
                    // worker just as the deadline passed — it is closed here, never handed over;
                    // if not, it is handed over still timed, and the next stage (D-Bus set-up,
                    // the stream token) makes the same check before `authenticated()`. So a
                    // connection ends either authenticated or shut down, and every channel made
                    // is either delivered or closed.
                    guard pending.isWaiting else {
                        channel.close()
                        throw .handshakeFailed(GLibError(domain: "baton", code: 0, message: "TLS finished only after the deadline"))
                    }
                    outcome = .success(channel)
                } catch {
                    pending.drop()
                    outcome = .failure(error)
                }
                guard let self, !self.closed else {
                    if case .success(let channel) = outcome { channel.close() }
                    return
                }
                self.deliver(outcome)
            }
        }
    }

    /// Counts `pending`'s handshake as running in a worker thread.
    private func startHandshake(_ pending: PendingConnection) {
        pending.sentClientHello = true
        handshaking.append((pending, ContinuousClock.now))
        shutDownStalledHandshakes()
    }

    private func handshakeEnded(_ pending: PendingConnection) {
        handshaking.removeAll { $0.connection === pending }
    }

    /// While more than `maximumHandshakesInWorkers` run, shuts down the longest running if it
    /// is stalled (its thread is free as soon as its blocked read fails); otherwise checks again
    /// when it will be.
    private func shutDownStalledHandshakes() {
        stallCheck?.cancel()
        stallCheck = nil
        let now = ContinuousClock.now
        while handshaking.count > max(1, maximumHandshakesInWorkers), let oldest = handshaking.first {
            let age = now - oldest.started
            guard age >= stalledHandshakeAge else {
                stallCheck = MainLoop.after(stalledHandshakeAge - age) { [weak self] in self?.shutDownStalledHandshakes() }
                return
            }
            handshaking.removeFirst()
            oldest.connection.drop()
        }
    }

    /// Drops waiting connections until one more from `host` fits both caps: the oldest that
    /// has not sent its ClientHello, else the oldest.
    ///
    /// (Only that distinction: a connection past its handshake may be one its caller has
    /// already closed without authenticating it, which holds its place until its deadline, so
    /// it must not outrank a handshake that is still running.)
    private func makeRoom(for host: String) {
        PendingConnection.makeRoom(in: waiting, for: host, perAddress: maximumUnauthenticatedPerAddress,
                                   total: maximumUnauthenticated)
    }

    private func deliver(_ outcome: Result<SecureChannel, TransportError>) {
        if let taker {
            self.taker = nil
            return taker.resume(returning: outcome)
        }
        finished.append(outcome)
        // Failures are only reported: keep the newest few.
        let failures = finished.indices.filter { if case .failure = finished[$0] { true } else { false } }
        if failures.count > Self.maximumReportedFailures { finished.remove(at: failures[0]) }
    }
}
