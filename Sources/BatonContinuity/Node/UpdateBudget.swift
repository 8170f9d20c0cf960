import BatonLoop

/// How many activity updates (`CurrentChanged`) a linked device may send: a token bucket of
/// `burst` tokens refilled at `perSecond`. A device's activity is state, not a stream — only
/// its latest matters — so a device past its budget is slowed, not believed: its updates are
/// coalesced (the latest waits for the next token), and past `LinkTable.maximumFoldedUpdates`
/// its link is not read until then, so TCP pushes back on it. A person's activity changes a few times a second at
/// most; the default leaves ample room above that.
struct UpdateBudget {
    var perSecond: Double = 20
    var burst: Double = 50
    private var tokens: Double
    private var refilled = ContinuousClock.now

    init(perSecond: Double = 20, burst: Double = 50) {
        self.perSecond = perSecond
        self.burst = burst
        tokens = burst
    }

    /// Takes a token if one is left now.
    mutating func take(now: ContinuousClock.Instant = .now) -> Bool {
        refill(now)
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// How long until the next token.
    mutating func untilNext(now: ContinuousClock.Instant = .now) -> Duration {
        refill(now)
        return tokens >= 1 ? .zero : .seconds((1 - tokens) / perSecond)
    }

    private mutating func refill(_ now: ContinuousClock.Instant) {
        let elapsed = now - refilled
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        tokens = min(burst, tokens + seconds * perSecond)
        refilled = now
    }
}
