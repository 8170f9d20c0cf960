import BatonLoop
import Foundation

/// The node's listeners: the one whose port is published now, and those replaced at a port rotation still in their grace. Every listener that
/// accepts connections is here; each connection one verifies is handed to `accepted`.
@MainActor
final class NodeListeners {
    /// The listener whose port is published and handed out now; nil when the node is stopped.
    private(set) var current: SecureListener?
    /// Listeners replaced at a port rotation, oldest first, each with the timer of its next
    /// step out (see `rotate()`).
    private(set) var previous: [(listener: SecureListener, timer: LoopSource)] = []
    /// The address a listener on a fresh port is opened on at a rotation of the published
    /// name; nil when the port was given, which then stays.
    private var rotatingHost: String?
    /// How long a listener replaced at a port rotation still accepts connections (see
    /// `ContinuityNode.listenerRotationGrace`).
    var rotationGrace: Duration = .seconds(10)
    /// How long an incoming connection has, from accept, to become a verified link (see `ContinuityNode.handshakeDeadline`).
    var handshakeDeadline: Duration = .seconds(5)
    private let trust: TrustSync
    private let credential: TLSCredential
    private let log: PeerLogger
    private let diagnostics: Diagnostics
    /// Each link a listener verified.
    var accepted: (@MainActor (SecureChannel) -> Void)?
    /// A refusal to keep among the node's recent failures.
    var failed: (@MainActor (String) -> Void)?
    /// Connections turned away at the admission gate (not the group's devices) since the
    /// last line said so, and when that was.
    private var strangersRefused = 0
    private var strangersSaid: ContinuousClock.Instant?

    init(trust: TrustSync, credential: TLSCredential, log: PeerLogger, diagnostics: Diagnostics) {
        self.trust = trust
        self.credential = credential
        self.log = log
        self.diagnostics = diagnostics
    }

    /// Listens on `host:port`; at rotations a fresh port is taken only if `port` is 0.
    func start(host: String, port: UInt16) throws {
        let listener = try open(host: host, port: port)
        current = listener
        rotatingHost = port == 0 ? host : nil
        diagnostics.publish(.listening(host: listener.host, port: listener.port))
        Task { @MainActor [weak self] in await self?.acceptLoop(listener) }
    }

    /// Closes every listener.
    func stop() {
        current?.close()
        current = nil
        for (listener, timer) in previous {
            timer.cancel()
            listener.close()
        }
        previous = []
        rotatingHost = nil
    }

    /// A listener on `host:port` with the node's deadline, and the caps of the listener in use.
    private func open(host: String, port: UInt16) throws -> SecureListener {
        let opened = try SecureListener(identity: trust.identity, credential: credential, host: host, port: port)
        opened.handshakeDeadline = handshakeDeadline
        if let current {
            opened.maximumUnauthenticated = current.maximumUnauthenticated
            opened.maximumUnauthenticatedPerAddress = current.maximumUnauthenticatedPerAddress
            opened.maximumHandshakesInWorkers = current.maximumHandshakesInWorkers
            opened.stalledHandshakeAge = current.stalledHandshakeAge
        }
        return opened
    }

    /// At a rotation of the published name, when the port was not given: opens a listener on
    /// a fresh random port and returns that port, to publish (nil: the port stays). The
    /// listener it replaces accepts for `rotationGrace` more, then stops listening (its port
    /// refuses connections) while the connections it accepted finish within their
    /// `handshakeDeadline`, then closes. Links already made (and their streams) do not
    /// depend on a listener and stay.
    func rotate() -> UInt16? {
        guard let host = rotatingHost, let old = current else { return nil }
        let fresh: SecureListener
        do { fresh = try open(host: host, port: 0) } catch {
            log.error("cannot listen on a fresh port; port \(old.port) stays: \(error)")
            return nil
        }
        current = fresh
        diagnostics.publish(.listening(host: fresh.host, port: fresh.port))
        Task { @MainActor [weak self] in await self?.acceptLoop(fresh) }
        let timer = MainLoop.after(rotationGrace) { [weak self] in self?.stopListening(old) }
        previous.append((old, timer))
        log.info("rotated to port \(fresh.port); port \(old.port) accepts for \(rotationGrace) more")
        return fresh.port
    }

    /// The grace of a replaced listener is over: its port refuses connections from now on; it
    /// closes once the connections it accepted are past their deadline.
    private func stopListening(_ old: SecureListener) {
        guard let index = previous.firstIndex(where: { $0.listener === old }) else { return }
        old.stopListening()
        log.info("stopped listening on port \(old.port)")
        diagnostics.publish(.stoppedListening(port: old.port))
        previous[index].timer = MainLoop.after(handshakeDeadline + .seconds(1)) { [weak self] in
            guard let self, let index = self.previous.firstIndex(where: { $0.listener === old }) else { return }
            self.previous.remove(at: index)
            old.close()
        }
    }

    /// Whether `listener` is one of the node's (the current one, or one in its grace).
    private func accepts(on listener: SecureListener) -> Bool {
        current === listener || previous.contains { $0.listener === listener }
    }

    /// Takes each connection the listener has verified and hands it on, so no peer's D-Bus
    /// set-up or token holds up the next one (the listener runs the TLS handshakes
    /// concurrently, each against its deadline). Each connection is checked against the list
    /// on disk (`TrustSync.syncRevocationsFromDisk()`, which reads it only if it changed).
    /// One loop per listener, until the node lets go of it.
    private func acceptLoop(_ listener: SecureListener) async {
        let fallback = listener.fallbackIdentity  // not the listener: it keeps this closure
        while accepts(on: listener) {
            do {
                let channel = try await listener.accept(identity: { [weak trust] in
                    guard let trust else { return fallback }
                    trust.syncRevocationsFromDisk()
                    return trust.identity
                })
                accepted?(channel)
            } catch {
                guard accepts(on: listener) else { return }
                refused(error)
            }
        }
    }

    /// An incoming connection refused. One that did not pass the admission gate is a
    /// stranger (a port scan, another group): counted and said at most once a minute, so a
    /// flood fills neither the log nor the failures `baton status` shows; any other refusal is
    /// logged and kept among the recent failures.
    private func refused(_ error: any Error) {
        // A revoked device is named (from the group's signed list held), so the inspector can
        // tell it from one never seen; any other refusal has no name to give.
        let revoked: String? = if case .peerRejected(.peerRevoked(let device))? = error as? TransportError { device } else { nil }
        diagnostics.publish(.refused(from: revoked, reason: DiagnosticEvent.RefusalReason(error)))
        switch error as? TransportError {
        case .notAdmitted?, .admissionRefused?, .admissionFailed?, .admissionTimedOut?:
            strangersRefused += 1
            let now = ContinuousClock.now
            if let said = strangersSaid, now - said < .seconds(60) { return }
            strangersSaid = now
            log.notice("turned away \(strangersRefused) connection(s) that did not pass the admission gate (not the group's devices)")
            strangersRefused = 0
        default:
            failed?("refused an incoming connection: \(error)")
            log.notice("refused an incoming connection: \(error)")
        }
    }
}
