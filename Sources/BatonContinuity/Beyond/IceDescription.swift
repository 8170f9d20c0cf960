import BatonLoop
import Foundation

/// What one end of an ICE session tells the other (RFC 8445's offer or answer, for one stream
/// of one component): its credentials and its candidates, as SDP candidate attribute lines
/// (`a=candidate:…`, RFC 8839). It travels sealed and signed through the broker (docs/PROTOCOL.md,
/// 7.1, 7.2).
///
/// It is `Codable` (checked on decoding too); on the wire it is a GVariant (`encoded()`).
/// A description from the network is hostile: an encoded one larger than
/// `maximumEncodedSize` is refused before it is parsed (`decode(_:)`), and every description
/// made or decoded is checked (`validate()`) — the fields' sizes and alphabets, at most
/// `maximumCandidates` candidates, each line of the exact shape libnice generates, with an IP
/// address (never a name to resolve), a UDP transport and a known type — before libnice
/// parses any of it.
public struct IceDescription: Sendable, Equatable, Codable {
    /// The username fragment (RFC 8445: 4 to 256 ice-chars; here at most 64).
    public let ufrag: String
    /// The password (RFC 8445: 22 to 256 ice-chars; here at most 64).
    public let pwd: String
    /// The candidates, as `a=candidate:` lines.
    public let candidates: [String]

    /// At most this many candidates in one description (a device has a few host addresses, one
    /// reflexive and a relayed one per TURN server).
    public static let maximumCandidates = 32
    /// At most this many bytes in one candidate line.
    public static let maximumCandidateLength = 256
    /// At most this many bytes in a ufrag or pwd.
    public static let maximumCredentialLength = 64
    /// At most this many bytes of an encoded description (`encoded()`), checked before decoding.
    public static let maximumEncodedSize = 12 * 1024
    /// The version of the encoded form.
    public static let version: UInt32 = 1
    /// The GVariant type of the encoded form: version, ufrag, pwd, candidates.
    public static let wireType = "(ussas)"

    /// A description of these parts; throws if one breaks a rule (`validate()`).
    public init(ufrag: String, pwd: String, candidates: [String]) throws(IceError) {
        self.ufrag = ufrag
        self.pwd = pwd
        self.candidates = candidates
        try validate()
    }

    private enum CodingKeys: String, CodingKey { case ufrag, pwd, candidates }

    /// Decodes and checks (`validate()`) a description.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        ufrag = try container.decode(String.self, forKey: .ufrag)
        pwd = try container.decode(String.self, forKey: .pwd)
        candidates = try container.decode([String].self, forKey: .candidates)
        try validate()
    }

    /// The description as it travels: a GVariant `(ussas)` (version 1, ufrag, pwd, candidates)
    /// in normal form, at most `maximumEncodedSize` bytes for any valid description.
    public func encoded() -> Data {
        let value = Variant.tuple([.uint32(Self.version), .string(ufrag), .string(pwd),
                                   .array(elementType: "s", candidates.map(Variant.string))])
        return (try? value.serialized()) ?? Data()  // strings without NUL (checked) always serialise
    }

    /// A description from the network: its size checked before it is parsed, then its form
    /// (GVariant normal form of `wireType`, version 1), then its content (`validate()`).
    public static func decode(_ data: Data) throws(IceError) -> IceDescription {
        guard data.count <= maximumEncodedSize else { throw .descriptionTooLarge(data.count) }
        guard let value = try? Variant(serialized: data, type: wireType), case .tuple(let items) = value, items.count == 4,
              case .uint32(let version) = items[0], case .string(let ufrag) = items[1], case .string(let pwd) = items[2],
              case .array(_, let lines) = items[3] else {
            throw .invalidDescription("it is not an encoded description")
        }
        guard version == Self.version else { throw .invalidDescription("its version is \(version), not \(Self.version)") }
        var candidates: [String] = []
        for line in lines {
            guard case .string(let text) = line else { throw .invalidDescription("it is not an encoded description") }
            candidates.append(text)
        }
        return try IceDescription(ufrag: ufrag, pwd: pwd, candidates: candidates)
    }

    /// Checks every rule above; throws `IceError.invalidDescription` with the first one broken.
    public func validate() throws(IceError) {
        try Self.checkCredential(ufrag, name: "ufrag", minimum: 4)
        try Self.checkCredential(pwd, name: "pwd", minimum: 22)
        guard !candidates.isEmpty else { throw .invalidDescription("it has no candidate") }
        guard candidates.count <= Self.maximumCandidates else {
            throw .invalidDescription("it has \(candidates.count) candidates, over \(Self.maximumCandidates)")
        }
        for (index, line) in candidates.enumerated() {
            guard Self.candidateType(line) != nil else {
                throw .invalidDescription("candidate \(index) is not an a=candidate line Baton takes")
            }
        }
    }

    /// The type (`host`, `srflx`, `prflx`, `relay`) of a candidate line, nil if the line is not
    /// of the shape Baton takes:
    /// `a=candidate:<foundation> 1 UDP <priority> <IP address> <port> typ <type>
    /// [raddr <IP address> rport <port>]`.
    static func candidateType(_ line: String) -> String? {
        guard line.utf8.count <= maximumCandidateLength,
              line.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }),
              line.hasPrefix("a=candidate:") else { return nil }
        let fields = line.dropFirst("a=candidate:".count).split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 8 || fields.count == 12 else { return nil }
        let foundation = fields[0]
        guard (1...32).contains(foundation.count), foundation.utf8.allSatisfy(isIceChar),
              fields[1] == "1", fields[2].uppercased() == "UDP",
              fields[3].count <= 10, let priority = UInt64(fields[3]), priority <= UInt64(UInt32.max), priority > 0,
              isIPAddress(fields[4]), isPort(fields[5]), fields[6] == "typ" else { return nil }
        let type = String(fields[7])
        guard ["host", "srflx", "prflx", "relay"].contains(type) else { return nil }
        if fields.count == 12 {
            guard type != "host", fields[8] == "raddr", isIPAddress(fields[9]), fields[10] == "rport",
                  fields[11] == "0" || isPort(fields[11]) else { return nil }
        }
        return type
    }

    private static func checkCredential(_ value: String, name: String, minimum: Int) throws(IceError) {
        guard (minimum...maximumCredentialLength).contains(value.utf8.count), value.utf8.allSatisfy(isIceChar) else {
            throw .invalidDescription("its \(name) is not \(minimum) to \(maximumCredentialLength) ice-chars")
        }
    }

    /// RFC 8445's ice-char: ALPHA / DIGIT / "+" / "/".
    private static func isIceChar(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x2B || byte == 0x2F
    }

    private static func isPort(_ text: Substring) -> Bool {
        guard text.count <= 5, let port = Int(text) else { return false }
        return (1...65535).contains(port)
    }

    /// An IPv4 or IPv6 address in numeric form (never a host name: libnice would resolve it).
    private static func isIPAddress(_ text: Substring) -> Bool {
        guard text.count <= 45 else { return false }
        var v4 = in_addr(), v6 = in6_addr()
        return String(text).withCString { inet_pton(AF_INET, $0, &v4) == 1 || inet_pton(AF_INET6, $0, &v6) == 1 }
    }
}
