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
