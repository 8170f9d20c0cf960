import BatonLoop
import Crypto
import Foundation

/// How the group's devices reach each other beyond one network (issue 29): the TURN relays
/// (coturn), the MQTT broker for signalling, and the TURN REST shared secret (coturn's
/// `static-auth-secret`) from which each device makes its own time-limited TURN credentials.
///
/// Written by the group's authority (`GroupAuthority.setRelaySettings(_:updating:)`, `baton
/// relay setup`) inside the group's signed list (`RevocationList.relay`, list version 4), so
/// it is signed, versioned and relayed to every device exactly as the revocations are, and
/// stored beside each device's identity in `revocations`, mode 0600 (the secret is in it).
/// A device reads it with `load(from:)`. See docs/PROTOCOL.md, 7.3 Relay settings.
public struct RelaySettings: Sendable, Equatable, Codable {
    /// The TURN servers, in the order the authority gave them.
    public var turn: [TURNServer]
    /// The MQTT broker (over TLS), if the group has one.
    public var broker: BrokerAddress?
    /// The TURN REST shared secret (the bytes of coturn's `static-auth-secret` string); required
    /// when `turn` is not empty.
    public var turnSecret: Data?
    /// Increases with each setting the authority writes (1 for the first).
    public var version: UInt64

    /// At most this many TURN servers.
    public static let maximumTURNServers = 8
    /// A shared secret has 16 to 256 characters.
    public static let secretLengths = 16...256
    /// Settings in a signed list serialize to at most this many bytes (8 servers of the longest
    /// host names and the longest secret stay under 3 KiB).
    public static let maximumEncodedSize = 4096

    /// Settings with these values (checked by `validate()`, which `baton relay setup` and
    /// every list read call).
    public init(turn: [TURNServer] = [], broker: BrokerAddress? = nil, turnSecret: Data? = nil, version: UInt64 = 0) {
        self.turn = turn
        self.broker = broker
        self.turnSecret = turnSecret
        self.version = version
    }

    /// Throws unless the settings are within the caps: at least a TURN server or a broker; at
    /// most `maximumTURNServers` servers, none twice; every host a DNS name (in lower case, as
    /// `TURNServer(uri:)` and `BrokerAddress(uri:)` give it) or an IP address;
    /// ports above 0; a secret (needed with TURN servers) of 16–256 printable ASCII characters
    /// other than space, quotes, `#` and backslash, so coturn's configuration holds it as it is.
    public func validate() throws(RelaySettingsError) {
        guard !turn.isEmpty || broker != nil else { throw .nothingToSet }
        guard turn.count <= Self.maximumTURNServers else {
            throw .tooManyTURNServers(count: turn.count, limit: Self.maximumTURNServers)
        }
        var seen: Set<TURNServer> = []
        for server in turn {
            guard try RelayHost.checked(server.host) == server.host, server.port > 0 else { throw .invalidHost(server.host) }
            guard seen.insert(server).inserted else { throw .duplicateTURNServer(server.uri) }
        }
        if let broker {
            guard try RelayHost.checked(broker.host) == broker.host, broker.port > 0 else { throw .invalidHost(broker.host) }
        }
        if let turnSecret { try Self.checkSecret(turnSecret) } else if !turn.isEmpty { throw .missingSecret }
    }

    /// Throws unless `secret` is 16–256 printable ASCII characters other than space, `"`, `'`,
    /// `#` and `\`.
    public static func checkSecret(_ secret: Data) throws(RelaySettingsError) {
        guard secretLengths.contains(secret.count) else {
            throw .invalidSecret(problem: "it has \(secret.count) characters; it needs \(secretLengths.lowerBound)–\(secretLengths.upperBound)")
        }
        let refused: Set<UInt8> = [0x22, 0x23, 0x27, 0x5C]
        guard secret.allSatisfy({ (0x21...0x7E).contains($0) && !refused.contains($0) }) else {
            throw .invalidSecret(problem: "it holds a space, a quote, '#', '\\' or a character that is not printable ASCII")
        }
    }

    /// A new shared secret: 32 random bytes as 64 lowercase hex digits.
    public static func generatedSecret() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            .map { String(format: "%02x", $0) }.joined().utf8)
    }

    /// The settings after a revocation (`GroupAuthority.revokeDevice(named:updating:)`): with a
    /// TURN shared secret, a new one (`generatedSecret()`) and the next `version`, since the
    /// revoked device knew the old one and could go on making TURN credentials from it; without
    /// a secret (a broker only), the same settings.
    public func rotatingTURNSecret() -> RelaySettings {
        guard turnSecret != nil else { return self }
        var rotated = self
        rotated.turnSecret = Self.generatedSecret()
        rotated.version += 1
        return rotated
    }

    /// TURN REST API credentials (coturn `use-auth-secret`) for the device `deviceIdentifier`,
    /// valid for `validFor` from `now`: username `"<expiry-unix>:<deviceIdentifier>"`, password
    /// base64(HMAC-SHA1(`turnSecret`, username)). Without a secret (settings with a broker
    /// only) the key is empty and no TURN server accepts them.
    public func turnCredentials(for deviceIdentifier: String, validFor: Duration, now: Date) -> TURNCredentials {
        let expiry = Int64(now.timeIntervalSince1970.rounded(.down)) + validFor.components.seconds
        let username = "\(expiry):\(deviceIdentifier)"
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Data(username.utf8), using: SymmetricKey(data: turnSecret ?? Data()))
        return TURNCredentials(username: username, password: Data(mac).base64EncodedString(),
                               expires: Date(timeIntervalSince1970: TimeInterval(expiry)))
    }

    /// The settings in the signed list beside the identity in `identityFolder` (its
    /// `revocations`, checked against its `group.pem`); nil if the list holds none. Throws a
    /// `TrustError` naming the file when the list cannot be read or is not the group's.
    public static func load(from identityFolder: URL) throws -> RelaySettings? {
        let group = try SecureFiles.certificate(at: identityFolder.appendingPathComponent("group.pem"))
        return try SecureFiles.revocationList(at: identityFolder.appendingPathComponent("revocations"), authority: group).list.relay
    }

    /// The GVariant type of the settings inside a version-4 list body: version, TURN servers
    /// (host, port, transport name), broker host ("" for none), broker port, secret (empty for none).
    static let variantType = "(ta(sus)suay)"

    /// The settings as they go into a signed list.
    var variant: Variant {
        .tuple([.uint64(version),
                .array(elementType: "(sus)", turn.map { .tuple([.string($0.host), .uint32(UInt32($0.port)), .string($0.transport.rawValue)]) }),
                .string(broker?.host ?? ""), .uint32(UInt32(broker?.port ?? 0)), .bytes(turnSecret ?? Data())])
    }

    /// Reads the settings of a version-4 list body and checks them (`validate()`, and the
    /// size of their serialized form). Throws `RelaySettingsError` for settings over the caps,
    /// nil for fields of the wrong shape.
    init?(variant: Variant) throws(RelaySettingsError) {
        guard case .tuple(let fields) = variant, fields.count == 5, case .uint64(let version) = fields[0],
              case .array(_, let servers) = fields[1], case .string(let brokerHost) = fields[2],
              case .uint32(let brokerPort) = fields[3], case .bytes(let secret) = fields[4] else { return nil }
        let size = (try? variant.serialized().count) ?? Int.max
        guard size <= Self.maximumEncodedSize else { throw .tooLarge(size: size, limit: Self.maximumEncodedSize) }
        var turn: [TURNServer] = []
        for server in servers {
            guard case .tuple(let parts) = server, parts.count == 3, case .string(let host) = parts[0],
                  case .uint32(let port) = parts[1], let port16 = UInt16(exactly: port),
                  case .string(let name) = parts[2], let transport = TURNServer.Transport(rawValue: name) else { return nil }
            turn.append(TURNServer(host: host, port: port16, transport: transport))
        }
        var broker: BrokerAddress?
        if !brokerHost.isEmpty {
            guard let port = UInt16(exactly: brokerPort) else { return nil }
            broker = BrokerAddress(host: brokerHost, port: port)
        }
        self.init(turn: turn, broker: broker, turnSecret: secret.isEmpty ? nil : secret, version: version)
        try validate()
    }
}
