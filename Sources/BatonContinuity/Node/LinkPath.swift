/// How a link reaches its device (`LinkStatus.path`, shown by `baton status` and
/// `baton inspect`): on the local network, directly across NATs (ICE, a pair of reflexive or
/// host candidates), or through a TURN relay. Its JSON is the case's name.
public enum LinkPath: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    /// A TCP connection on the local network (found by discovery, or a static peer).
    case lan
    /// A direct path across NATs, found by ICE (no relay carries the bytes).
    case directAcrossNATs
    /// Through a TURN relay (ICE found no direct path).
    case relayed

    /// The path in words, for `baton status` and `baton inspect`.
    public var words: String {
        switch self {
        case .lan: "local network"
        case .directAcrossNATs: "direct across NATs"
        case .relayed: "relayed"
        }
    }

    /// The path of a link over an ICE stream, from the candidate pair libnice selected: through
    /// the relay when either end's candidate is relayed, otherwise direct (host or reflexive
    /// candidates: across the NATs, or between networks routed without one).
    public static func ice(_ path: IcePath) -> LinkPath {
        path == .relayed ? .relayed : .directAcrossNATs
    }
}
