import Foundation

/// Refuses a message seen before: remembers the nonces of messages taken within the clock
/// tolerance, at most `capacity` of them. When full, the oldest is forgotten and messages no
/// newer than it are refused from then on (a floor), so memory stays bounded and no replay
/// gets through.
struct ReplayGuard: Sendable {
    let tolerance: UInt64
    let capacity: Int
    private var seen: [Data: UInt64] = [:]
    private var floor: UInt64 = 0

    /// `tolerance` in milliseconds.
    init(tolerance: UInt64, capacity: Int) {
        self.tolerance = tolerance
        self.capacity = max(1, capacity)
    }

    /// Takes the message of `nonce` from `sender` stamped `timestamp` at `now` (milliseconds),
    /// or says why not.
    mutating func admit(sender: String, nonce: Data, timestamp: UInt64, now: UInt64) -> BrokerRefusal? {
        guard timestamp + tolerance >= now, timestamp <= now + tolerance else { return .stale }
        guard timestamp > floor else { return .replayed }
        let key = Data(sender.utf8) + [0] + nonce
        guard seen[key] == nil else { return .replayed }
        if seen.count >= capacity {
            let expired = now > tolerance ? now - tolerance : 0
            seen = seen.filter { $0.value >= expired }
            floor = max(floor, expired)
        }
        if seen.count >= capacity, let oldest = seen.min(by: { $0.value < $1.value }) {
            seen[oldest.key] = nil
            floor = max(floor, oldest.value)
            guard timestamp > floor else { return .replayed }
        }
        seen[key] = timestamp
        return nil
    }
}
