/// How a pairing newcomer tries again after a failure that may pass by itself: the window's
/// port refused or reset the connection (the window not open yet, or its listener full of
/// strangers), the TLS handshake failed, or the window hung up or said nothing before any code
/// was shown. At most `attempts` attempts in all, each after a delay that doubles from
/// `firstDelay` up to `longestDelay`, all within the pairing's own time
/// (`PairingNewcomer.join`).
///
/// Never tried again: anything once a code was shown (the person here saw it: a new attempt
/// would show another), a refusal by either person or by the window (busy, another version,
/// both typing), a window whose nonce breaks its commitment (someone in the middle), a peer
/// that does not speak the pairing protocol, and a grant refused or not saved.
public struct PairingRetry: Sendable, Equatable {
    /// How many attempts in all (1: no retry).
    public var attempts: Int
    /// The delay before the second attempt; each later one waits twice as long as the one before.
    public var firstDelay: Duration
    /// The longest delay between two attempts.
    public var longestDelay: Duration

    /// A retry policy: `attempts` in all (at least 1), waiting `firstDelay`, doubling up to `longestDelay`.
    public init(attempts: Int, firstDelay: Duration = .milliseconds(250), longestDelay: Duration = .seconds(4)) {
        self.attempts = max(1, attempts)
        self.firstDelay = firstDelay
        self.longestDelay = longestDelay
    }

    /// One attempt, no retry.
    public static let never = PairingRetry(attempts: 1)
    /// What `baton pair` does: 5 attempts, 0.25 s, 0.5 s, 1 s and 2 s apart.
    public static let standard = PairingRetry(attempts: 5)

    /// The delay before attempt `attempt + 1`, after attempt `attempt` (from 1) failed.
    func delay(after attempt: Int) -> Duration {
        var delay = firstDelay
        for _ in 1..<max(1, attempt) where delay < longestDelay { delay *= 2 }
        return min(delay, longestDelay)
    }

    /// True if `error`, met before any code was shown, may pass by itself (see the type's comment).
    static func mayPass(_ error: PairingError) -> Bool {
        switch error {
        case .connectionFailed, .handshakeFailed, .closed, .timedOut: true
        case .exporterUnavailable, .wrongProtocol, .frameTooLarge, .malformedMessage, .refused, .commitmentMismatch, .declinedHere,
             .declinedThere, .grantRefused, .cannotIssue, .notSaved, .windowClosed, .notFound: false
        }
    }
}
