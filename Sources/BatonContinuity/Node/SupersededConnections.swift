import BatonLoop

/// Connections that lost to another of their device's, kept open until nothing runs on them.
///
/// A connection loses so when both devices dialed at once and the peer dialed it, or when it
/// is the older link that a connection this device dialed replaces (a LAN connection replacing
/// a link beyond the LAN, say). It is out of the link table but stays open, and its calls are
/// answered, until the peer closes it, which the peer does once this device's connection has
/// become its link. Had this side closed it, the peer could see its link close before this
/// device's connection reached it — a drop, an unlinked event and a redial for a link that is
/// not lost. A peer that does not close it within `deadline` has it closed (`add`).
///
/// The peer closes such a connection itself once no continuation stream is open on it
/// (`closeOnceIdle`): a stream opened on it before it was replaced (a continuation started as
/// the devices were linking) goes on to its end there, rather than break. Past `deadline`, a
/// connection that still carries streams is closed once they are done (each is bounded by
/// its idle timeout).
@MainActor
final class SupersededConnections {
    /// How long a superseded connection waits for its peer to close it.
    static let deadline = SecureChannel.handshakeDeadline

    private var entries: [ObjectIdentifier: (link: PeerLink, expiry: LoopSource)] = [:]
    /// Those closed once no stream is open on them (`closeOnceIdle`).
    private var draining: [ObjectIdentifier: PeerLink] = [:]
    /// How many are open now.
    var count: Int { entries.count + draining.count }
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
            self.closeOnceIdle(link)
        }
        entries[ObjectIdentifier(link)] = (link, expiry)
    }

    /// Closes `link` once no continuation stream is open on it: now if none is. For a link that
    /// lost to a connection its peer dialed (the peer keeps it for this side to close, `add`),
    /// and for one whose peer did not close it within `deadline`.
    func closeOnceIdle(_ link: PeerLink) {
        let key = ObjectIdentifier(link)
        draining[key] = link
        link.streams.whenNoneOpen { [weak self, weak link] in
            guard let self, let link, self.draining.removeValue(forKey: ObjectIdentifier(link)) != nil else { return }
            self.close(link)
        }
    }

    /// The peer closed `link`: if it was one of these, it is closed now and true returned.
    func peerClosed(_ link: PeerLink) -> Bool {
        let key = ObjectIdentifier(link)
        if let entry = entries.removeValue(forKey: key) {
            entry.expiry.cancel()
        } else if draining.removeValue(forKey: key) == nil {
            return false
        }
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
        for (key, link) in draining where link.id == peer {
            draining[key] = nil
            close(link)
        }
    }

    /// Closes them all.
    func endAll() {
        for entry in entries.values {
            entry.expiry.cancel()
            close(entry.link)
        }
        entries = [:]
        let links = draining.values
        draining = [:]
        for link in links { close(link) }
    }
}
