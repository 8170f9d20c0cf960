/// Why an ICE session did not give a connected stream (docs/PROTOCOL.md, 7.1). Each case says
/// why; none of them carries text from the network.
public enum IceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A description (encoded) is larger than `IceDescription.maximumEncodedSize`: refused
    /// before it is parsed.
    case descriptionTooLarge(Int)
    /// A description breaks a rule of `IceDescription` (a field's size or alphabet, too many
    /// candidates, a candidate line that is not one libnice is given): refused before libnice
    /// sees it.
    case invalidDescription(String)
    /// A STUN or TURN server's host name did not resolve.
    case unresolvableServer(String)
    /// libnice refused a call (the named one): the agent cannot go on.
    case agentFailed(String)
    /// Gathering candidates did not finish within this time.
    case gatheringTimedOut(Duration)
    /// Gathering ended with no candidate to offer (no usable interface).
    case noCandidates
    /// Relayed candidates only were asked for and the TURN server gave none: it is unreachable,
    /// or it refused the credentials (wrong or expired).
    case noRelayCandidate
    /// The connectivity checks failed: no candidate pair reaches the peer.
    case connectivityFailed
    /// The connectivity checks did not find a path within this time.
    case connectTimedOut(Duration)
    /// The session was closed (or its task cancelled) before the operation ended.
    case closed

    public var description: String {
        switch self {
        case .descriptionTooLarge(let size):
            "an ICE description of \(size) bytes is over the limit of \(IceDescription.maximumEncodedSize)"
        case .invalidDescription(let reason): "an ICE description was refused: \(reason)"
        case .unresolvableServer(let host): "the STUN/TURN server \(PrintableText.escaped(host)) did not resolve"
        case .agentFailed(let call): "libnice refused \(call)"
        case .gatheringTimedOut(let duration): "gathering ICE candidates took over \(duration)"
        case .noCandidates: "no ICE candidate was gathered (no usable network interface)"
        case .noRelayCandidate: "the TURN server gave no relayed address (unreachable, or it refused the credentials)"
        case .connectivityFailed: "the ICE connectivity checks failed: no path reaches the peer"
        case .connectTimedOut(let duration): "the ICE connectivity checks found no path within \(duration)"
        case .closed: "the ICE session is closed"
        }
    }
}
