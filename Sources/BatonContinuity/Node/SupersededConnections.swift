import BatonLoop

/// Connections that lost to one this device dialed, kept open until their peer closes them.
///
/// A connection loses so when both devices dialed at once and the peer dialed it, or when it
/// is the older link that a connection this device dialed replaces (a LAN connection replacing
/// a link beyond the LAN, say). It is out of the link table but stays open, and its calls are
/// answered, until the peer closes it, which the peer does once this device's connection has
/// become its link. Had this side closed it, the peer could see its link close before this
/// device's connection reached it — a drop, an unlinked event and a redial for a link that is
/// not lost. A peer that does not close it within `deadline` has it closed.
@MainActor
final class SupersededConnections {
    /// How long a superseded connection waits for its peer to close it.
    static let deadline = SecureChannel.handshakeDeadline

    private var entries: [ObjectIdentifier: (link: PeerLink, expiry: LoopSource)] = [:]
    /// How many are open now.
    var count: Int { entries.count }
    /// How many their peer left to expire.
    private(set) var expired = 0
    /// Closes a connection (the table's `retire`).
    private let close: @MainActor (PeerLink) -> Void
    /// Told of a connection whose peer did not close it in time, before it is closed.
    private let didExpire: @MainActor (PeerLink) -> Void

    init(close: @escaping @MainActor (PeerLink) -> Void, didExpire: @escaping @MainActor (PeerLink) -> Void) {
        self.close = close
        self.didExpire = didExpire
    }

    /// Keeps `link` open until its peer closes it, or `deadline`.
    func add(_ link: PeerLink) {
        let expiry = MainLoop.after(Self.deadline) { [weak self, weak link] in
            guard let self, let link, self.entries.removeValue(forKey: ObjectIdentifier(link)) != nil else { return }
            self.expired += 1
            self.didExpire(link)
            self.close(link)
        }
        entries[ObjectIdentifier(link)] = (link, expiry)
    }

    /// The peer closed `link`: if it was one of these, it is closed now and true returned.
    func peerClosed(_ link: PeerLink) -> Bool {
        guard let entry = entries.removeValue(forKey: ObjectIdentifier(link)) else { return false }
        entry.expiry.cancel()
        close(link)
        return true
    }

    /// Closes those of `peer`.
    func end(of peer: String) {
        for (key, entry) in entries where entry.link.id == peer {
            entries[key] = nil
            entry.expiry.cancel()
            close(entry.link)
        }
    }

    /// Closes them all.
    func endAll() {
        for entry in entries.values {
            entry.expiry.cancel()
            close(entry.link)
        }
        entries = [:]
    }
}
