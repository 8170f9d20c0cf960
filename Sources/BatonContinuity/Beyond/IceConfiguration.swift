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
    /// When the TURN servers' credentials stop working (the TURN server refuses allocations and
    /// refreshes with them from then on); nil when unknown or without TURN servers.
    public var turnCredentialsExpire: Date? = nil

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
    /// How the agent reaches the TURN server (the relayed path to the peer is UDP in every
    /// case): the relay settings' own transport, one type for both.
    public typealias Transport = TURNServer.Transport

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

extension IceConfiguration {
    /// How long the TURN credentials `init(relaySettings:deviceIdentifier:now:)` makes stay
    /// valid: a day. The TURN server checks them at the allocation and at each refresh, so a
    /// relayed link lives at most this long after the configuration was made; the node makes a
    /// new configuration (new credentials) for each connection attempt.
    public static let turnCredentialValidity: Duration = .seconds(24 * 3600)

    /// The configuration the group's relay settings give the device `deviceIdentifier` (docs/
    /// PROTOCOL.md, 7.1 and 7.3): each TURN server of `relaySettings`, in their order, as an
    /// `IceRelay` of the same host, port and transport with TURN REST credentials made from the
    /// group's shared secret (`RelaySettings.turnCredentials(for:validFor:now:)`, valid for
    /// `validFor` from `now`, until `turnCredentialsExpire`); and as the STUN server the first
    /// TURN server not reached over TLS (coturn answers STUN requests on its plain TURN port,
    /// UDP and TCP alike), none if all are TLS. Settings without TURN servers (a broker only)
    /// give host candidates only. The other fields are as given.
    public init(relaySettings: RelaySettings, deviceIdentifier: String, now: Date = Date(),
                validFor: Duration = IceConfiguration.turnCredentialValidity, hostAddresses: [String] = [],
                relayOnly: Bool = false, gatheringDeadline: Duration = .seconds(10)) {
        let credentials = relaySettings.turnCredentials(for: deviceIdentifier, validFor: validFor, now: now)
        let relays = relaySettings.turn.map {
            IceRelay(host: $0.host, port: $0.port, transport: $0.transport,
                     username: credentials.username, password: credentials.password)
        }
        let stun = relaySettings.turn.first { $0.transport != .tls }.map { IceServer(host: $0.host, port: $0.port) }
        self.init(stunServer: stun, turnServers: relays, hostAddresses: hostAddresses, relayOnly: relayOnly,
                  gatheringDeadline: gatheringDeadline)
        turnCredentialsExpire = relays.isEmpty ? nil : credentials.expires
    }
}
