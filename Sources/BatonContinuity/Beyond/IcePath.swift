/// The path an ICE link took, from the candidate pair libnice selected (docs/PROTOCOL.md, 7.1).
public enum IcePath: String, Sendable, Equatable, Codable, CustomStringConvertible {
    /// Both ends' host addresses: the devices reach each other directly (one network, or routes
    /// between them without translation).
    case host
    /// A direct path across NATs: at least one end's address as a STUN server (or the peer's
    /// checks) saw it, no relay in between (a hole-punched path).
    case serverReflexive
    /// Through a TURN relay: the relay forwards the (TLS-encrypted) bytes and can only drop them.
    case relayed

    /// The path a pair of candidates makes, from libnice's candidate types (`NiceCandidateType`:
    /// 0 host, 1 server reflexive, 2 peer reflexive, 3 relayed): relayed if either end is,
    /// otherwise reflexive if either end is, otherwise host.
    init(localType: Int32, remoteType: Int32) {
        let types = [localType, remoteType]
        if types.contains(3) {
            self = .relayed
        } else if types.contains(1) || types.contains(2) {
            self = .serverReflexive
        } else {
            self = .host
        }
    }

    /// How `baton status` names it: "direct (host)", "direct across NATs", "relayed".
    public var description: String {
        switch self {
        case .host: "direct (host)"
        case .serverReflexive: "direct across NATs"
        case .relayed: "relayed"
        }
    }
}
