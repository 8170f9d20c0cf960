import Foundation

/// Where the broker is and the bounds `BrokerSignalling` keeps to.
public struct BrokerSignallingSettings: Sendable, Equatable {
    /// The broker's host name or address; its certificate must name it.
    public var host: String
    /// The broker's TLS port (8883 by convention).
    public var port: UInt16
    /// A PEM file with the certificate authority that issued the broker's certificate; nil to
    /// verify it against the system's certificate authorities.
    public var brokerAuthority: URL?
    /// How long one attempt may take to resolve, connect, finish TLS, be accepted and subscribe.
    public var connectTimeout: Duration = .seconds(20)
    /// MQTT keep-alive: a silent broker is found out within about 1.25 times this.
    public var keepAlive: Duration = .seconds(30)
    /// The delay before the first new attempt after a failure; it doubles with each failure.
    public var firstRetryDelay: Duration = .seconds(1)
    /// The longest delay between attempts.
    public var maximumRetryDelay: Duration = .seconds(60)
    /// The largest sealed message sent or taken, in bytes (also asked of the broker as MQTT 5's
    /// Maximum Packet Size, so a compliant broker drops larger ones before they are sent here).
    public var messageLimit: Int = 64 * 1024
    /// How far a message's timestamp may be from this device's clock.
    public var clockTolerance: Duration = .seconds(120)
    /// How many recent messages' nonces are remembered to refuse replays.
    public var replayMemory: Int = 4096

    /// The broker at `host`:`port`, with the other bounds at their defaults.
    public init(host: String, port: UInt16 = 8883, brokerAuthority: URL? = nil) {
        self.host = host
        self.port = port
        self.brokerAuthority = brokerAuthority
    }
}

extension BrokerSignallingSettings {
    /// The name of the group CA's certificate beside a device's identity (`DeviceIdentity`'s
    /// `group.pem`).
    static let groupAuthorityFile = "group.pem"

    /// The settings for the broker the group's relay settings name, for the device whose
    /// identity is in `identityFolder`: its host and port, and the broker verified against
    /// **the group's CA** (the `group.pem` beside the identity), not the system's certificate
    /// authorities — the broker's certificate is the one `GroupAuthority.issueBrokerCertificate`
    /// made, so a broker (or anyone in its place) without a certificate of this group is refused
    /// in the TLS handshake (`BrokerError.tls`). Nil when the settings name no broker. The other
    /// bounds are at their defaults (docs/PROTOCOL.md, 7.2 and 7.3).
    public init?(relaySettings: RelaySettings, identityFolder: URL) {
        guard let broker = relaySettings.broker else { return nil }
        self.init(host: broker.host, port: broker.port,
                  brokerAuthority: identityFolder.appendingPathComponent(Self.groupAuthorityFile))
    }

    /// The broker settings of the group's relay settings held beside the identity in
    /// `identityFolder` (`RelaySettings.load(from:)`, then `init(relaySettings:identityFolder:)`);
    /// nil when the group set no broker. Throws the `TrustError` of a list that cannot be read
    /// or is not the group's.
    public static func load(from identityFolder: URL) throws -> BrokerSignallingSettings? {
        guard let relay = try RelaySettings.load(from: identityFolder) else { return nil }
        return BrokerSignallingSettings(relaySettings: relay, identityFolder: identityFolder)
    }
}
