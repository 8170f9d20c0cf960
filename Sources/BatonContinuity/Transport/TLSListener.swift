import BatonLoop
import CGLib
import Foundation

/// The one TLS listener of Baton: device links (`SecureListener`)
/// and pairing windows (`PairingListener`) differ only by their `CertificatePolicy`. The
/// admission gate, the deadlines, the caps and the fairness rules live here.
///
/// It owns a non-blocking listening `GSocket`, watches it with a GLib fd source on the app's
/// loop and accepts with `g_socket_accept` when it is readable, at most `acceptsPerWakeUp` at
/// a time so the loop also hears the connections it holds. (GLib 2.74's
/// `g_socket_listener_accept_async` can call back with an already-freed task when connections
/// come and go quickly, so Baton does not use it.)
///
/// Each accepted connection waits to authenticate (`PendingConnection`), for at most
/// `handshakeDeadline` from accept: a device link until its D-Bus is set up, a pairing
/// connection until its hello. On the way it must *prove*
/// itself: a group member's listener first asks for the discovery key (`AdmissionGate`); a
/// pairing listener, with no gate, takes a whole ClientHello as proof. Every peer then sends
/// a ClientHello offering TLS 1.3 (`ClientHello.offersTLS13`), or is shut down before a TLS
/// byte, the certificate included.
///
/// The fairness rules, so reconnecting strangers cannot keep a device or a newcomer out:
/// - at most `maximumUnauthenticated` connections wait at once, and
///   `maximumUnauthenticatedPerAddress` from one address (`PendingConnection.addressGroup`:
///   an IPv6 /64 counts as one);
/// - a connection that has proved itself is never shut down to make room: only unproven ones
///   are (`PendingConnection.makeRoom`), of the new one's address past its cap, of the address
///   holding the most past the total cap (if it holds more than the new one's);
/// - an unproven connection has `evictionGrace` after accept to prove itself: a new one takes
///   the place of the oldest unproven one past its grace (a pairing connection whose whole
///   ClientHello came with it may take a younger one's);
/// - with no such place, the new connection is on probation, outside the caps: it has
///   `evictionGrace` to prove itself and then takes an unproven one's place (so strangers that
///   hold every place, all within their grace, still cannot keep a newcomer out); at most
///   `maximumOnProbation` are, the oldest closed to make room, but never one whose whole proof
///   (the gate's answer, or a ClientHello) has come and waits to be checked;
/// - the gate's nonce is sent as a connection is accepted, so its peer's answer is on its way
///   before the next connections are;
/// - with no place even then (every one waiting has proved itself), the new connection is
///   closed at once (`refusedConnections`), so the descriptors held stay bounded by the caps
///   whatever the rate of connections.
///
/// A connection's TLS handshake runs in a worker thread of GLib's shared pool
/// (glib-networking's way), blocked on the peer's next flight. A real handshake on a LAN
/// takes milliseconds; one running after `stalledHandshakeAge` is stalled. At most
/// `maximumHandshakesInWorkers` handshakes may run longer than that at once: past the cap, the
/// one running longest is shut down as soon as it is that old. So peers that send a
/// ClientHello and stall hold few threads, for about a second each. The kernel queues up to
/// `listenBacklog` connections not yet accepted, for bursts.
@MainActor
public class TLSListener {
    /// The port listened on (the one the system chose when asked for port 0).
    public nonisolated let port: UInt16
    /// The address listened on: the one asked for, or `0.0.0.0` where every interface
    /// (`PeerAddress.allInterfaces`) fell back to IPv4 on a system without IPv6.
    public nonisolated let host: String
    /// How long a connection has from accept to be authenticated (see the type's comment).
    public var handshakeDeadline: Duration
    /// How many accepted connections may wait to authenticate at once.
    public var maximumUnauthenticated: Int
    /// How many of those may come from one IP address (one /64 prefix for IPv6).
    public var maximumUnauthenticatedPerAddress: Int
    /// How long after accept an unproven connection cannot be shut down to make room, and how
    /// long one on probation has to prove itself.
    public var evictionGrace: Duration = .milliseconds(500)
    /// How many connections that found no place may be on probation at once.
    public var maximumOnProbation = 64
    /// How many TLS handshakes may run in GIO worker threads at once (see the type's comment).
    public var maximumHandshakesInWorkers = 4
    /// How long a handshake may run in a worker thread before it counts as stalled.
    public var stalledHandshakeAge: Duration = .seconds(1)
    /// The listen backlog asked for (`g_socket_set_listen_backlog`; the kernel caps it at
    /// `net.core.somaxconn`).
    public nonisolated static let listenBacklog: Int32 = 128
    /// How many connections one wake-up of the listening socket accepts at most.
    nonisolated static let acceptsPerWakeUp = 16
    /// How long accepting rests after the system refused to accept (out of descriptors, say).
    nonisolated static let acceptRetryDelay: Duration = .milliseconds(250)
    /// How many failed handshakes `next()` keeps to report; older ones are forgotten.
    nonisolated static let maximumReportedFailures = 16

    let policy: CertificatePolicy
    /// The identity a group member's connection is checked against, asked as it arrives.
    var checkingIdentity: (@MainActor () -> DeviceIdentity)?
    /// How many connections were closed at accept, the caps full of ones not to shut down.
    private(set) var refusedConnections = 0
    /// How many connections failed before they were handed over.
    private(set) var failedConnections = 0
    private let socket: SendablePointer<GSocket>
    private var watch: LoopSource?
    /// Connections waiting to authenticate, oldest first.
    private var waiting: [PendingConnection] = []
    /// Connections that found no place, given `evictionGrace` to prove themselves, oldest first.
    private var onProbation: [PendingConnection] = []
    /// Connections whose TLS handshake runs in a worker thread now, longest running first.
    private var handshaking: [(connection: PendingConnection, started: ContinuousClock.Instant)] = []
    /// When the longest running handshake turns stalled, while more than the cap run.
    private var stallCheck: LoopSource?
    /// Handshakes finished and not yet taken by `next()`, in the order they finished.
    private var finished: [Result<SecureChannel, TransportError>] = []
    private var taker: CheckedContinuation<Result<SecureChannel, TransportError>, Never>?
    private(set) var closed = false
    /// True once `stopListening()` closed the listening socket.
    private var stoppedListening = false

    init(policy: CertificatePolicy, host: String, port: UInt16, handshakeDeadline: Duration,
         maximumUnauthenticated: Int, perAddress: Int) throws(TransportError) {
        guard g_inet_address_new_from_string(host).map({ g_object_unref($0); return true }) == true else { throw .invalidAddress(host) }
        let opened: (socket: UnsafeMutablePointer<GSocket>, host: String, port: UInt16)
        do { opened = try ListeningSocket.open(host: host, port: port, backlog: Self.listenBacklog) } catch {
            throw .connectionFailed(error)
        }
        self.port = opened.port
        self.host = opened.host
        socket = SendablePointer(opened.socket)
        self.policy = policy
        self.handshakeDeadline = handshakeDeadline
        self.maximumUnauthenticated = maximumUnauthenticated
        maximumUnauthenticatedPerAddress = perAddress
    }

    deinit {
        // Not `close()`: a deinit may run off the main actor. What it does is thread-safe.
        watch?.cancel()
        stallCheck?.cancel()
        for connection in waiting + onProbation { connection.shutDown() }
        g_socket_close(socket.pointer, nil)
        g_object_unref(socket.pointer)
    }

    /// How many accepted connections are waiting to authenticate now.
    public var unauthenticatedCount: Int { waiting.count }

    /// Stops listening and shuts down every connection still waiting to authenticate; a
    /// pending `accept()` ends (`TransportError.closed`, or nil for a pairing listener).
    public func close() {
        guard !closed else { return }
        closed = true
        checkingIdentity = nil  // it may hold the listener's owner, or the listener
        watch?.cancel()
        watch = nil
        g_socket_close(socket.pointer, nil)
        for connection in waiting + onProbation { connection.drop() }
        waiting = []
        onProbation = []
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
        if watch != nil { acceptWaitingConnections(upTo: Int.max) }
        stoppedListening = true
        watch?.cancel()
        watch = nil
        g_socket_close(socket.pointer, nil)
    }

    /// The next handshake that finished (a channel under the listener's policy), or why one failed;
    /// starts accepting on the first call. One caller at a time.
    func next() async -> Result<SecureChannel, TransportError> {
        startWatching()
        if !finished.isEmpty { return finished.removeFirst() }
        if closed { return .failure(.closed) }
        precondition(taker == nil, "TLSListener: accept() called while another accept() waits")
        return await withLoopContinuation { taker = $0 }
    }

    private func startWatching() {
        guard watch == nil, !closed, !stoppedListening else { return }
        watch = MainLoop.whenReadable(g_socket_get_fd(socket.pointer)) { [weak self] in
            guard let self, !self.closed else { return .stop }
            self.acceptWaitingConnections(upTo: Self.acceptsPerWakeUp)
            return .again
        }
    }

    /// Accepts up to `limit` of the connections the kernel has queued, each into a handshake
    /// of its own (or closed at once, if the caps hold no place for it).
    private func acceptWaitingConnections(upTo limit: Int) {
        var accepted = 0
        while !closed, !stoppedListening, accepted < limit {
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
            accepted += 1
            let connection = SendablePointer(g_socket_connection_factory_create_connection(client)!)
            g_object_unref(client)  // the connection holds it
            let host = SecureChannel.remoteHost(connection.pointer) ?? "?"
            // With no gate, a ClientHello already there proves the connection from the start (a
            // pairing newcomer sends it as it connects).
            let fd = g_socket_get_fd(g_socket_connection_get_socket(connection.pointer))
            var checking: DeviceIdentity?
            if case .groupMember(let identity, _) = policy { checking = checkingIdentity?() ?? identity }
            let proven = checking?.discoveryKey == nil && ClientHello.isQueued(on: fd)
            guard PendingConnection.makeRoom(in: waiting, for: host, arrivalProven: proven, perAddress: maximumUnauthenticatedPerAddress,
                                              total: maximumUnauthenticated, grace: evictionGrace) else {
                // No place: on probation, outside the caps, if there is room there (the oldest
                // there makes room); it takes a place only if it proves itself within its grace.
                guard !proven, maximumOnProbation > 0 else {
                    refusedConnections += 1
                    g_io_stream_close(gCast(connection.pointer), nil, nil)  // only a socket: closing never waits
                    g_object_unref(connection.pointer)
                    continue
                }
                if onProbation.count >= maximumOnProbation {
                    refusedConnections += 1
                    // The oldest whose proof has not come: one whose proof is there is checked
                    // on the loop's next turn, so its place is never taken before that.
                    let gated = checking?.discoveryKey != nil
                    (onProbation.first { !Self.proofQueued(on: $0.fd, gated: gated) } ?? onProbation.first)?.drop()
                }
                start(connection, host: host, checking: checking, proven: false, probation: true)
                continue
            }
            start(connection, host: host, checking: checking, proven: proven, probation: false)
        }
    }

    /// Runs one accepted connection through the gate, its ClientHello and TLS, in a task;
    /// `checking`: the identity a group member's connection is checked against.
    private func start(_ connection: SendablePointer<GSocketConnection>, host: String, checking: DeviceIdentity?, proven: Bool,
                       probation: Bool) {
        let client = g_socket_connection_get_socket(connection.pointer)!
        let pending = PendingConnection(socket: client, host: host, deadline: handshakeDeadline) { [weak self] ended in
            self?.waiting.removeAll { $0 === ended }
            self?.onProbation.removeAll { $0 === ended }
        }
        let fd = g_socket_get_fd(client)
        pending.proven = proven
        // The gate's nonce goes at once, not when the task first runs: the peer's answer is on
        // its way before more connections are accepted.
        let greeted = checking?.discoveryKey == nil ? nil : AdmissionGate.greet(on: fd)
        if probation {
            pending.onProbation(for: evictionGrace)
            onProbation.append(pending)
        } else {
            waiting.append(pending)
        }
        Task { @MainActor [weak self, policy] in
            defer { g_object_unref(connection.pointer) }
            let outcome: Result<SecureChannel, TransportError>
            do throws(TransportError) {
                // Nothing, not even the certificate, to a peer that has not proved it holds
                // the group's discovery key (a device issued before there was one: no gate).
                if let key = checking?.discoveryKey {
                    guard let greeted, await AdmissionGate.admit(on: fd, greeted: greeted, key: key), pending.isWaiting else {
                        throw .notAdmitted
                    }
                    self?.proved(pending)
                    guard pending.isWaiting else { throw .notAdmitted }
                }
                // No worker thread for a peer that has not sent its ClientHello yet, and no
                // certificate for one that does not offer TLS 1.3.
                guard let hello = await Readiness.clientHello(on: fd), pending.isWaiting else {
                    throw .noClientHello
                }
                guard ClientHello.offersTLS13(hello) else {
                    throw .tls13NotOffered
                }
                self?.proved(pending)
                guard pending.isWaiting else {
                    throw .noPlace
                }
                self?.startHandshake(pending)
                defer { self?.handshakeEnded(pending) }
                let channel = try await SecureChannel.accept(connection.pointer, policy: policy.checking(checking), pending: pending)
                // The deadline (or a cap) and this completion run on the loop one after the
                // other. If the connection was dropped first — its handshake finished in the
                // worker just as the deadline passed — it is closed here, never handed over;
                // if not, it is handed over still timed, and the next stage (D-Bus set-up,
                // the pairing hello) makes the same check before
                // `authenticated()`. So a connection ends either authenticated or shut down,
                // and every channel made is either delivered or closed.
                guard pending.isWaiting else {
                    channel.close()
                    throw .deadlinePassed
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

    /// `pending` proved itself (passed the gate, or sent a ClientHello offering TLS 1.3): it is
    /// not dropped to make room from now on. On probation, it takes a place among the waiting
    /// connections, an unproven one's, or is dropped if every one there has proved itself.
    private func proved(_ pending: PendingConnection) {
        pending.proven = true
        guard pending.isOnProbation else { return }
        onProbation.removeAll { $0 === pending }
        guard PendingConnection.makeRoom(in: waiting, for: pending.host, arrivalProven: true, perAddress: maximumUnauthenticatedPerAddress,
                                         total: maximumUnauthenticated, grace: evictionGrace) else { return pending.drop() }
        pending.endProbation()
        waiting.append(pending)
    }

    /// True if the peer on `fd` has sent its whole proof and it waits, unread, to be checked:
    /// the gate's answer (`gated`), else a whole ClientHello offering TLS 1.3.
    private static func proofQueued(on fd: Int32, gated: Bool) -> Bool {
        if gated { return AdmissionGate.answerQueued(on: fd) }
        var header = [UInt8](repeating: 0, count: 5)
        return recv(fd, &header, 5, Int32(MSG_PEEK | MSG_DONTWAIT)) == 5 && header[0] == 0x16 && ClientHello.isQueued(on: fd)
    }

    /// Counts `pending`'s handshake as running in a worker thread.
    private func startHandshake(_ pending: PendingConnection) {
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

    private func deliver(_ outcome: Result<SecureChannel, TransportError>) {
        if case .failure = outcome { failedConnections += 1 }
        if let taker {
            self.taker = nil
            return taker.resume(returning: outcome)
        }
        finished.append(outcome)
        // Failures are only reported: keep the newest few. (Channels are bounded by the caps:
        // each is still waiting to authenticate until its taker says so.)
        let failures = finished.indices.filter { if case .failure = finished[$0] { true } else { false } }
        if failures.count > Self.maximumReportedFailures { finished.remove(at: failures[0]) }
    }
}
