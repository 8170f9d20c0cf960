import Baton
import Foundation

/// Why relay settings were refused: a value given to `baton relay setup`, or settings in a
/// signed list that break the caps (`RelaySettings.validate()`). Each case names the value
/// (escaped when printed); nothing is written when one is thrown.
public enum RelaySettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A TURN server that is not `turn:HOST[:PORT][?transport=udp|tcp]` or
    /// `turns:HOST[:PORT]` (RFC 7065); `problem` says what is wrong.
    case invalidTURNServer(String, problem: String)
    /// A broker address that is not `mqtts://HOST[:PORT]` (the broker is reached over TLS only).
    case invalidBroker(String, problem: String)
    /// A host name that is neither a DNS name (letters, digits, `-`, dots; at most 253
    /// characters, labels of at most 63) nor an IPv4 or IPv6 address.
    case invalidHost(String)
    /// More TURN servers than `RelaySettings.maximumTURNServers`.
    case tooManyTURNServers(count: Int, limit: Int)
    /// The same TURN server (host, port, transport) given twice.
    case duplicateTURNServer(String)
    /// A TURN shared secret of the wrong length, or with a character coturn's configuration
    /// cannot hold (space, quote, `#`, backslash, control characters): 16–256 printable ASCII characters.
    case invalidSecret(problem: String)
    /// TURN servers without a shared secret: no device could make credentials for them.
    case missingSecret
    /// Neither a TURN server nor a broker: nothing to set.
    case nothingToSet
    /// The settings in a signed list serialize to more than `RelaySettings.maximumEncodedSize` bytes.
    case tooLarge(size: Int, limit: Int)
    /// A peer range for coturn that is not an IP address or `IP-IP` of one family.
    case invalidPeerRange(String)
    /// The file named could not be read: `reason` says why.
    case unreadable(path: String, reason: String)

    public var description: String {
        let shown = PrintableText.escaped
        return switch self {
        case .invalidTURNServer(let value, let problem):
            "'\(shown(value))' is not a TURN server (turn:HOST[:PORT][?transport=udp|tcp] or turns:HOST[:PORT]): \(problem)"
        case .invalidBroker(let value, let problem): "'\(shown(value))' is not a broker address (mqtts://HOST[:PORT]): \(problem)"
        case .invalidHost(let value):
            "'\(shown(value))' is not a host name or IP address (letters, digits, '-' and dots; at most 253 characters)"
        case .tooManyTURNServers(let count, let limit): "\(count) TURN servers given; at most \(limit)"
        case .duplicateTURNServer(let value): "TURN server '\(shown(value))' given twice"
        case .invalidSecret(let problem): "the TURN shared secret is refused: \(problem)"
        case .missingSecret: "TURN servers need a shared secret (--turn-secret-file, or none to generate one)"
        case .nothingToSet: "give at least one --turn server or a --broker"
        case .tooLarge(let size, let limit): "relay settings of \(size) bytes; at most \(limit)"
        case .invalidPeerRange(let value): "'\(shown(value))' is not an IP address or a range IP-IP"
        case .unreadable(let path, let reason): "cannot read \(shown(path)): \(reason)"
        }
    }
}
