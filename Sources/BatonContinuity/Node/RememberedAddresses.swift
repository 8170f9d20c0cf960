import Foundation

/// The addresses where linked devices were last reached — the one this device dialed, or the
/// one a device that dialed it publishes (configured, found through DNS-SD) — kept in memory
/// for `lifetime` after they were last reached, at most `capacity` of them, the oldest going
/// first: what the node redials when a link drops and when the network changes, after
/// discovery has forgotten them.
///
/// Discovery forgets a device when this host's address goes (avahi-daemon empties its cache
/// for an interface that loses its address) and learns of it again only when avahi-daemon
/// hears its record once more; a laptop that roams or resumes from suspend relinks as soon as
/// any of its peers' addresses is reachable again, not then. A record discovery finds replaces
/// what is remembered for its host (`forget(host:)`): the device may have moved to another
/// port. Like the addresses last linked over, these are hints: whoever answers is still
/// admitted only by the group's mutual TLS.
struct RememberedAddresses {
    /// The most addresses kept.
    static let capacity = 16
    /// How long after it was last reached an address is kept (and redialed, with the dialer's
    /// back-off, up to 30 s apart).
    static let lifetime: Duration = .seconds(3600)

    /// When each address was last reached.
    private var reached: [PeerAddress: ContinuousClock.Instant] = [:]

    /// Keeps `address`, reached `now`; past `capacity`, the address reached longest ago goes.
    mutating func remember(_ address: PeerAddress, now: ContinuousClock.Instant = .now) {
        reached[address] = now
        expire(now: now)
        while reached.count > Self.capacity, let oldest = reached.min(by: { $0.value < $1.value })?.key {
            reached[oldest] = nil
        }
    }

    /// Forgets every address at `host` (a newer record for it was found).
    mutating func forget(host: String) {
        reached = reached.filter { $0.key.host != host }
    }

    /// Whether `address` is kept and younger than `lifetime`.
    func contains(_ address: PeerAddress, now: ContinuousClock.Instant = .now) -> Bool {
        guard let at = reached[address] else { return false }
        return now - at < Self.lifetime
    }

    /// The addresses younger than `lifetime`, the most recently reached first.
    func addresses(now: ContinuousClock.Instant = .now) -> [PeerAddress] {
        reached.filter { now - $0.value < Self.lifetime }
            .sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.description < $1.key.description }
            .map(\.key)
    }

    /// Drops the addresses older than `lifetime`.
    private mutating func expire(now: ContinuousClock.Instant) {
        reached = reached.filter { now - $0.value < Self.lifetime }
    }
}
