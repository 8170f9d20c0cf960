import Foundation

/// The MQTT broker through which the group's devices find each other beyond one network
/// (issue 29): always reached over TLS with the device's group certificate (`mqtts://`).
public struct BrokerAddress: Sendable, Equatable, Hashable, Codable {
    /// The broker's DNS name or IP address (an IPv6 address without brackets).
    public var host: String
    /// Its TLS port (8883 by default, MQTT's port for TLS).
    public var port: UInt16

    /// A broker at `host` and `port` (not checked: see `init(uri:)`).
    public init(host: String, port: UInt16 = 8883) {
        self.host = host
        self.port = port
    }

    /// Reads `mqtts://HOST[:PORT]` (default port 8883), with nothing after the port but an
    /// optional `/`. `mqtt://` is refused: the broker is reached over TLS only. Throws
    /// `RelaySettingsError.invalidBroker` or `.invalidHost`, naming the value.
    public init(uri: String) throws(RelaySettingsError) {
        func invalid(_ problem: String) -> RelaySettingsError { .invalidBroker(uri, problem: problem) }
        guard uri.lowercased().hasPrefix("mqtts://") else {
            throw invalid(uri.lowercased().hasPrefix("mqtt://") ? "the broker is reached over TLS only: use mqtts://" : "it does not start with 'mqtts://'")
        }
        var rest = Substring(uri).dropFirst(8)
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains("/"), !rest.contains("?"), !rest.contains("@"), !rest.contains("#") else {
            throw invalid("only a host and a port may follow 'mqtts://'")
        }
        let (host, port) = try RelayHost.split(rest, defaultPort: 8883, invalid: invalid)
        self.init(host: host, port: port)
    }

    /// The broker as a URI: `mqtts://HOST:PORT`.
    public var uri: String { "mqtts://\(RelayHost.inURI(host)):\(port)" }
}
