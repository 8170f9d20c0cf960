import Baton
import BatonLoop
import Foundation

/// A continuation stream connection the originating device has agreed to: from `peer` (a
/// device identifier), to `activity`, with `token`, until `expiry`.
struct StreamGrant {
    let token: Data
    let peer: String
    let activity: ProvidedActivity
    let expiry: LoopSource
}

/// Continuation stream connections granted and not yet made, oldest first, capped per peer
/// and in all. Grants are the node's, not a listener's: one made before a port rotation is
/// still good on the listener in its grace.
@MainActor
final class StreamGrants {
    /// Token size, and how long a grant waits for its connection.
    static let tokenSize = 32
    static let lifetime: Duration = .seconds(30)
    /// How many grants may wait per peer device, and in all (see
    /// `ContinuityNode.maximumStreamGrantsPerPeer`).
    var maximumPerPeer = 4
    var maximum = 64
    private var grants: [StreamGrant] = []

    var count: Int { grants.count }

    /// A one-time token for a stream connection from `peer` to `activity`. A new grant past
    /// either cap replaces the oldest (of that peer, for the first), so a peer that asks again
    /// and again only churns its own grants. A grant not used within `lifetime` is forgotten.
    func grant(to peer: String, for activity: ProvidedActivity) -> Data {
        if let oldest = grants.first(where: { $0.peer == peer }), grants.count(where: { $0.peer == peer }) >= maximumPerPeer {
            remove(oldest.token)
        }
        while grants.count >= maximum, let oldest = grants.first { remove(oldest.token) }
        var generator = SystemRandomNumberGenerator()
        let token = Data((0..<Self.tokenSize).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let expiry = MainLoop.after(Self.lifetime) { [weak self] in self?.remove(token) }
        grants.append(StreamGrant(token: token, peer: peer, activity: activity, expiry: expiry))
        return token
    }

    /// Takes the grant of `token` out (it is used once), if there is one.
    @discardableResult
    func remove(_ token: Data) -> StreamGrant? {
        guard let index = grants.firstIndex(where: { Self.sameToken($0.token, token) }) else { return nil }
        let grant = grants.remove(at: index)
        grant.expiry.cancel()
        return grant
    }

    /// Forgets the grants of `peer` (a device identifier).
    func removeAll(of peer: String) {
        for grant in grants where grant.peer == peer { remove(grant.token) }
    }

    /// Forgets every grant (the node stops).
    func removeAll() {
        for grant in grants { grant.expiry.cancel() }
        grants = []
    }

    /// Compares two tokens in time that does not depend on where they differ.
    private static func sameToken(_ a: Data, _ b: Data) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
