/// The path a device link runs over (docs/PROTOCOL.md, 7): a TCP connection on the LAN (found
/// by discovery, a static peer or an address given), or an ICE stream beyond one network, with
/// the kind of path libnice selected. Either way the link is the same mutual TLS 1.3 and the
/// same D-Bus protocol; only what carries it differs.
public enum LinkPath: Sendable, Equatable, Hashable, Codable, CustomStringConvertible {
    /// A TCP connection, dialed or accepted on the LAN (or at a static address).
    case lan
    /// An ICE stream (libnice's pseudo-TCP over UDP): directly between the hosts, directly
    /// across NATs, or through a TURN relay (`IcePath`).
    case ice(IcePath)

    /// How `baton status` names it: "LAN", "direct (host)", "direct across NATs", "relayed".
    public var description: String {
        switch self {
        case .lan: "LAN"
        case .ice(let path): path.description
        }
    }
}
