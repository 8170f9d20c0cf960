/// How a link reaches its device (`LinkStatus.path`, shown by `baton status` and
/// `baton inspect`): on the local network, directly across NATs (ICE, a pair of reflexive or
/// host candidates), or through a TURN relay. Its JSON is the case's name.
public enum LinkPath: String, Sendable, Equatable, Codable, CaseIterable {
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
}
