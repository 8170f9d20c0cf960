/// What an `IceSession` gathers candidates with: a STUN server for server-reflexive ones, TURN
/// servers (with their time-limited credentials) for relayed ones, the host addresses to use,
/// and its deadline (docs/PROTOCOL.md, 7.1). The node builds it from the group's relay settings.
public struct IceConfiguration: Sendable, Equatable {
    /// A STUN server (host name or IP address, and UDP port) for the server-reflexive candidate;
    /// nil for none.
    public var stunServer: IceServer?
    /// TURN servers, each with the credentials it takes, for relayed candidates.
    public var turnServers: [IceRelay]
    /// Gather host candidates on these IP addresses only; empty: on every interface but
    /// loopback (libnice's default).
    public var hostAddresses: [String]
    /// Offer and pair relayed candidates only (libnice's `force-relay`): no host or reflexive
    /// path, for networks that let only the relay through (and for tests of the relay).
    public var relayOnly: Bool
    /// How long gathering (resolving the servers included) may take.
    public var gatheringDeadline: Duration

    /// A configuration of these parts.
    public init(stunServer: IceServer? = nil, turnServers: [IceRelay] = [], hostAddresses: [String] = [],
                relayOnly: Bool = false, gatheringDeadline: Duration = .seconds(10)) {
        self.stunServer = stunServer
        self.turnServers = turnServers
        self.hostAddresses = hostAddresses
        self.relayOnly = relayOnly
        self.gatheringDeadline = gatheringDeadline
    }
}

/// A STUN server's address.
public struct IceServer: Sendable, Equatable {
    /// Its host name or IP address.
    public var host: String
    /// Its UDP port (3478 by default).
    public var port: UInt16

    /// A server at `host:port`.
    public init(host: String, port: UInt16 = 3478) {
        self.host = host
        self.port = port
    }
}

/// A TURN server and the credentials it takes (TURN REST credentials: a username that carries
/// its expiry, a password derived from the server's shared secret).
public struct IceRelay: Sendable, Equatable {
    /// How the agent reaches the TURN server (the relayed path to the peer is UDP in every case).
    public enum Transport: String, Sendable, Equatable, Codable {
        /// TURN over UDP.
        case udp
        /// TURN over TCP.
        case tcp
        /// TURN over TLS on TCP.
        case tls
    }

    /// Its host name or IP address.
    public var host: String
    /// Its port.
    public var port: UInt16
    /// How it is reached.
    public var transport: Transport
    /// The TURN username.
    public var username: String
    /// The TURN password.
    public var password: String

    /// A TURN server at `host:port` over `transport`, with these credentials.
    public init(host: String, port: UInt16 = 3478, transport: Transport = .udp, username: String, password: String) {
        self.host = host
        self.port = port
        self.transport = transport
        self.username = username
        self.password = password
    }
}
