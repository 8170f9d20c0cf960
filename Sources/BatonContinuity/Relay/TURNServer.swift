import Foundation

/// A TURN relay (coturn) the group's devices use when no direct path works: its host, port and
/// the transport the device reaches it with. Written as a URI the way RFC 7065 writes it.
public struct TURNServer: Sendable, Equatable, Hashable, Codable {
    /// How a device reaches the TURN server.
    public enum Transport: String, Sendable, Codable, CaseIterable {
        /// TURN over UDP (`turn:HOST:PORT`, the default).
        case udp
        /// TURN over TCP (`turn:HOST:PORT?transport=tcp`), for networks that block UDP.
        case tcp
        /// TURN over TLS (`turns:HOST:PORT`): the server needs a certificate.
        case tls
    }

    /// The server's DNS name or IP address (an IPv6 address without brackets).
    public var host: String
    /// Its port: 3478 by default, 5349 for TLS.
    public var port: UInt16
    /// The transport to it.
    public var transport: Transport

    /// A server at `host` and `port`, reached over `transport` (not checked: see `init(uri:)`).
    public init(host: String, port: UInt16 = 3478, transport: Transport = .udp) {
        self.host = host
        self.port = port
        self.transport = transport
    }

    /// Reads `turn:HOST[:PORT][?transport=udp|tcp]` or `turns:HOST[:PORT][?transport=tcp]`
    /// (RFC 7065; default ports 3478 and 5349). Throws `RelaySettingsError.invalidTURNServer`
    /// or `.invalidHost`, naming the value.
    public init(uri: String) throws(RelaySettingsError) {
        func invalid(_ problem: String) -> RelaySettingsError { .invalidTURNServer(uri, problem: problem) }
        var rest = Substring(uri)
        let secure: Bool
        if rest.lowercased().hasPrefix("turns:") { secure = true; rest = rest.dropFirst(6) }
        else if rest.lowercased().hasPrefix("turn:") { secure = false; rest = rest.dropFirst(5) }
        else { throw invalid("it starts with neither 'turn:' nor 'turns:'") }
        if rest.hasPrefix("//") { throw invalid("a TURN URI has no '//'") }
        var transport: Transport = secure ? .tls : .udp
        if let question = rest.firstIndex(of: "?") {
            let query = rest[rest.index(after: question)...].lowercased()
            rest = rest[..<question]
            switch (query, secure) {
            case ("transport=udp", false): transport = .udp
            case ("transport=tcp", false): transport = .tcp
            case ("transport=tcp", true): transport = .tls
            default: throw invalid("'?\(query)' is not a transport this relay takes (udp or tcp; tcp only after turns:)")
            }
        }
        let (host, port) = try RelayHost.split(rest, defaultPort: secure ? 5349 : 3478, invalid: invalid)
        self.init(host: host, port: port, transport: transport)
    }

    /// The server as a URI: `turn:HOST:PORT`, `turn:HOST:PORT?transport=tcp` or `turns:HOST:PORT?transport=tcp`.
    public var uri: String {
        let authority = "\(RelayHost.inURI(host)):\(port)"
        return switch transport {
        case .udp: "turn:\(authority)"
        case .tcp: "turn:\(authority)?transport=tcp"
        case .tls: "turns:\(authority)?transport=tcp"
        }
    }
}
