import Foundation

/// Ready configurations for the servers a group's relay settings name, for a small VPS
/// (`baton relay server-config`): coturn with TURN REST credentials only, and mosquitto
/// admitting only the group's devices (mutual TLS against the group CA). Each option is one
/// of coturn's `turnserver -h` and mosquitto.conf(5); the tests start both servers on them.
public enum RelayServerConfig {
    /// The peer address ranges coturn refuses to relay to (`denied-peer-ip`): "this network",
    /// private, shared (CGNAT), loopback, link-local, IETF and documentation ranges, benchmarking,
    /// reserved and multicast, for IPv4 and IPv6 — so the relay cannot be used to reach the
    /// VPS's own network or anything behind it.
    public static let deniedPeerRanges = [
        "0.0.0.0-0.255.255.255", "10.0.0.0-10.255.255.255", "100.64.0.0-100.127.255.255",
        "127.0.0.0-127.255.255.255", "169.254.0.0-169.254.255.255", "172.16.0.0-172.31.255.255",
        "192.0.0.0-192.0.0.255", "192.0.2.0-192.0.2.255", "192.88.99.0-192.88.99.255",
        "192.168.0.0-192.168.255.255", "198.18.0.0-198.19.255.255", "198.51.100.0-198.51.100.255",
        "203.0.113.0-203.0.113.255", "224.0.0.0-255.255.255.255",
        "::-::ffff", "::ffff:0.0.0.0-::ffff:255.255.255.255", "64:ff9b::-64:ff9b::ffff:ffff",
        "100::-100::ffff:ffff:ffff:ffff", "2001::-2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff",
        "2001:db8::-2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "2002::-2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "fc00::-fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fe80::-febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
        "ff00::-ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    ]

    /// `range` if it is an IP address or two of the same family joined by `-` (coturn's
    /// `allowed-peer-ip` form); otherwise `RelaySettingsError.invalidPeerRange`.
    public static func checkedPeerRange(_ range: String) throws(RelaySettingsError) -> String {
        let ends = range.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
        guard (1...2).contains(ends.count), ends.allSatisfy(RelayHost.isIPAddress),
              Set(ends.map(RelayHost.isIPv6)).count == 1 else { throw .invalidPeerRange(range) }
        return range
    }

    /// Where the TURN certificate and key go on the VPS when a `turns:` server is named.
    public static let turnCertificatePath = "/etc/coturn/turn.pem"
    /// See `turnCertificatePath`.
    public static let turnKeyPath = "/etc/coturn/turn-key.pem"

    /// coturn's configuration (`/etc/turnserver.conf`) for the TURN servers of `settings` at
    /// `host` (all of them when nil): TURN REST credentials only (`use-auth-secret` with the
    /// group's `static-auth-secret`; no long-term users), `realm` = the host, no CLI, fingerprints,
    /// the listening port of the first plain (UDP and TCP share it) and of the first TLS one (a TLS port, with certificate paths to fill, only
    /// when a `turns:` server is named; otherwise TLS and DTLS are off), and every range of
    /// `deniedPeerRanges` refused as a peer except `allowedPeerRanges`. Nil when `settings`
    /// name no TURN server at `host` or hold no secret.
    public static func coturn(_ settings: RelaySettings, host: String? = nil, allowedPeerRanges: [String] = []) -> String? {
        let servers = settings.turn.filter { host == nil || $0.host == host }
        guard let first = servers.first, let secret = settings.turnSecret, let secretText = String(data: secret, encoding: .utf8) else { return nil }
        let plainPorts = Set(servers.filter { $0.transport != .tls }.map(\.port)).sorted()
        let tlsPorts = Set(servers.filter { $0.transport == .tls }.map(\.port)).sorted()
        var lines = [
            "# coturn for a Baton device group (baton relay server-config): TURN REST credentials only.",
            "# Each device makes its own time-limited credentials from the shared secret below.",
        ]
        if let port = plainPorts.first { lines.append("listening-port=\(port)") }
        if let port = tlsPorts.first {
            lines += ["tls-listening-port=\(port)",
                      "# a certificate for \(first.host) (e.g. from Let's Encrypt) and its key:",
                      "cert=\(turnCertificatePath)", "pkey=\(turnKeyPath)", "no-tlsv1", "no-tlsv1_1", "no-dtls"]
        } else {
            lines += ["no-tls", "no-dtls"]
        }
        lines += [
            "fingerprint",
            "use-auth-secret",
            "static-auth-secret=\(secretText)",
            "realm=\(first.host)",
            "no-cli",
            "no-multicast-peers",
            "stale-nonce=600",
            "# never relay to the VPS's own or any private network:",
        ]
        lines += allowedPeerRanges.map { "allowed-peer-ip=\($0)" }
        lines += deniedPeerRanges.map { "denied-peer-ip=\($0)" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Where mosquitto's files go on the VPS (Debian's `/etc/mosquitto/certs`).
    public static let mosquittoCertificateFolder = "/etc/mosquitto/certs"
    /// The group's CRL as mosquitto reads it (`crlfile`), in `mosquittoCertificateFolder`: the
    /// group's `revocations.crl` (`GroupAuthority.crlFileName`), copied there after each revocation.
    public static let crlFileName = "baton-group.crl"

    /// mosquitto's configuration (`/etc/mosquitto/conf.d/baton.conf`) for the broker of
    /// `settings`: one MQTT listener on its port, TLS 1.3 only, the group CA as the only client
    /// CA (`cafile`, `baton-group-ca.pem`: `GroupAuthority.brokerClientAuthority()`), the group's
    /// CRL (`crlfile`, `crlFileName`), so a revoked device's certificate is refused in the
    /// handshake, a client certificate required (`require_certificate`) whose common name,
    /// the device's opaque identifier, is its user name (`use_identity_as_username`), no anonymous
    /// client; the broker's own certificate and key (`broker.pem`, `broker-key.pem`, issued by
    /// the group, `GroupAuthority.issueBrokerCertificate(host:)`) in `folder`. Nil when `settings`
    /// name no broker.
    public static func mosquitto(_ settings: RelaySettings, folder: String = mosquittoCertificateFolder) -> String? {
        guard let broker = settings.broker else { return nil }
        return """
            # mosquitto for a Baton device group (baton relay server-config): only the group's devices,
            # each proving its group certificate; the topics and messages name nothing and are sealed.
            per_listener_settings false
            allow_anonymous false
            listener \(broker.port)
            protocol mqtt
            cafile \(folder)/baton-group-ca.pem
            crlfile \(folder)/\(crlFileName)
            certfile \(folder)/baton-broker.pem
            keyfile \(folder)/baton-broker-key.pem
            require_certificate true
            use_identity_as_username true
            tls_version tlsv1.3

            """
    }
}
