import BatonLoop
import Foundation

/// One attempt of a `RelayConnector` to link with one device over ICE: its identifier, its
/// side, its `IceSession` (a new one for each attempt), the task that runs it, and — on the
/// offering side — the reply it waits for. `cancel()` ends every wait of it at once.
@MainActor
final class RelayAttempt {
    /// The device reached.
    let peer: String
    /// The attempt's identifier, which the offer, the answer and a decline carry.
    let id: UInt64
    /// This side's role: controlling offers, controlled answers.
    let role: IceSession.Role
    /// The session, once made.
    var session: IceSession?
    /// The task running the attempt.
    var task: Task<Void, Never>?
    private(set) var isCancelled = false
    private var reply: RelayMessage?
    private var waiter: CheckedContinuation<RelayMessage?, Never>?
    private var timer: LoopSource?

    init(peer: String, id: UInt64, role: IceSession.Role) {
        self.peer = peer
        self.id = id
        self.role = role
    }

    /// The peer's answer or decline to this attempt's offer (the first one only).
    func deliver(_ message: RelayMessage) {
        guard reply == nil, !isCancelled else { return }
        reply = message
        finishWaiting(message)
    }

    /// The reply to the offer, or nil if none came within `deadline` (or the attempt was
    /// cancelled).
    func waitForReply(within deadline: Duration) async -> RelayMessage? {
        if let reply { return reply }
        guard !isCancelled, waiter == nil else { return nil }
        return await withCheckedContinuation { continuation in
            waiter = continuation
            timer = MainLoop.after(deadline) { [weak self] in self?.finishWaiting(nil) }
        }
    }

    private func finishWaiting(_ message: RelayMessage?) {
        timer?.cancel()
        timer = nil
        let waiter = self.waiter
        self.waiter = nil
        waiter?.resume(returning: message)
    }

    /// Stops the attempt: the session closes (its waits end with `IceError.closed`), the task
    /// is cancelled (the link's deadlines end with it), and a wait for the reply ends.
    func cancel() {
        guard !isCancelled else { return }
        isCancelled = true
        session?.close()
        task?.cancel()
        finishWaiting(nil)
    }

    /// What `error`, from this attempt's ICE session, made it fail with (`cancelled` once the
    /// attempt was cancelled, whatever the session said).
    func failure(_ error: IceError) -> DiagnosticEvent.RelayFailure {
        if isCancelled { return .cancelled }
        switch error {
        case .noRelayCandidate: return .noRelayCandidate
        case .descriptionTooLarge, .invalidDescription: return .invalidDescription
        case .connectivityFailed, .connectTimedOut: return .noPath
        case .closed: return .cancelled
        case .unresolvableServer, .agentFailed, .gatheringTimedOut, .noCandidates: return .gatheringFailed
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds (a `relayAttemptFailed` event's retry delay).
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
