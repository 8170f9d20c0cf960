import ArgumentParser
import BatonContinuity
import Foundation

/// `baton relay`: the group's relay settings (issue 29) — the TURN relays and the MQTT broker
/// through which its devices continue each other beyond one network — set on the machine that
/// administers the group, carried in the group's signed list to every device, and the server
/// configurations for a small VPS.
struct RelayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay", abstract: "Set and show how the group's devices reach each other beyond one network.",
        discussion: """
            The settings travel in the group's signed list (revocations), so every device gets them over \
            its links as it gets a revocation. See docs/BEYOND-ONE-NETWORK.md.
            """,
        subcommands: [RelaySetupCommand.self, RelayShowCommand.self, RelayServerConfigCommand.self])
}

/// `baton relay setup`: writes the relay settings into the group.
struct RelaySetupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "setup", abstract: "Write the group's TURN servers, broker and TURN shared secret (on the authority's machine).",
        discussion: """
            Every value is checked first; one that is refused is named and nothing is written. The settings \
            replace the ones the group had, in a new signed list (the next sequence) written to the group's \
            folder and to this machine's own device; the other devices get it over their links. The TURN \
            shared secret (coturn's static-auth-secret) is read from --turn-secret-file, or kept from the \
            settings held, or generated (64 hex digits) when there are none or with --new-secret; it is \
            never printed. `baton device revoke` replaces the secret by itself (the revoked device knew \
            the old one) and says what to install on the servers.
            """)
    @Option(name: .customLong("turn"), help: "A TURN server: turn:HOST[:PORT][?transport=udp|tcp] or turns:HOST[:PORT] (repeat for more).")
    var turn: [String] = []
    @Option(name: .long, help: "The MQTT broker: mqtts://HOST[:PORT] (TLS only; port 8883 by default).") var broker: String?
    @Option(name: .customLong("turn-secret-file"), help: "A file holding the TURN shared secret (16–256 printable ASCII characters).")
    var turnSecretFile: String?
    @Flag(name: .customLong("new-secret"), help: "Generate a new TURN shared secret even if the group has one.") var newSecret = false
    @OptionGroup var options: ConfigOption

    func run() throws {
        let servers = try turn.map { uri throws(RelaySettingsError) in try TURNServer(uri: uri) }
        let brokerAddress = try broker.map { uri throws(RelaySettingsError) in try BrokerAddress(uri: uri) }
        let authority = try GroupAuthority.load(from: options.directory)
        let held = try authority.relaySettings()
        var secretSource: String
        var secret: Data?
        if let turnSecretFile {
            guard !newSecret else { throw ValidationError("--turn-secret-file and --new-secret cannot go together") }
            secret = try Self.readSecret(turnSecretFile)
            secretSource = "read from \(shown(turnSecretFile))"
        } else if !servers.isEmpty, !newSecret, let kept = held?.turnSecret {
            secret = kept
            secretSource = "kept from the settings held"
        } else if !servers.isEmpty {
            secret = RelaySettings.generatedSecret()
            secretSource = "generated"
        } else {
            secretSource = "none (no TURN server)"
        }
        let own = options.directory.deviceDirectory
        let written = try authority.setRelaySettings(RelaySettings(turn: servers, broker: brokerAddress, turnSecret: secret),
                                                     updating: [own])
        let list = try authority.revocationList()
        print("relay settings \(written.version) written into the group's signed list \(list.sequence):")
        Self.describe(written)
        print("TURN shared secret: \(secretSource) (never shown; it is in the list, mode 0600)")
        if (try? RelaySettings.load(from: own)) == written {
            print("this machine's device (\(shown(own.path))) holds them now: while it runs, each device linked to it gets them over its link and passes them on")
        }
        print("a device not linked to one that holds them needs the group's list copied in: \(shown(options.directory.groupDirectory.appendingPathComponent("revocations").path))")
        print("next: `baton relay server-config` for the servers' configuration")
    }

    /// The secret in `path`: at most 4 KiB read, one trailing line break dropped, then checked.
    static func readSecret(_ path: String) throws -> Data {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path)) } catch {
            throw RelaySettingsError.unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        defer { try? handle.close() }
        var data = (try? handle.read(upToCount: 4097)) ?? Data()
        guard data.count <= 4096 else { throw RelaySettingsError.invalidSecret(problem: "\(shown(path)) is larger than 4 KiB") }
        if data.last == 0x0A { data.removeLast() }
        if data.last == 0x0D { data.removeLast() }
        try RelaySettings.checkSecret(data)
        return data
    }

    /// Prints the servers of `settings`, never the secret.
    static func describe(_ settings: RelaySettings) {
        for server in settings.turn { print("  TURN \(server.uri)") }
        if settings.turn.isEmpty { print("  no TURN server") }
        print("  broker \(settings.broker?.uri ?? "none")")
    }
}

/// `baton relay show`: the relay settings this device holds (or the group's, on an authority
/// without a device), never the secret.
struct RelayShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show the relay settings this device holds (never the secret).")
    @OptionGroup var options: ConfigOption

    func run() throws {
        let settings: RelaySettings?
        let device = options.directory.deviceDirectory
        if (try? DeviceIdentity.load(from: device)) != nil {
            settings = try RelaySettings.load(from: device)
        } else {
            settings = try GroupAuthority.load(from: options.directory).relaySettings()
        }
        guard let settings else {
            print("no relay settings: the group's devices continue each other on one network only")
            print("the machine that administers the group sets them with `baton relay setup`")
            return
        }
        print("relay settings \(settings.version):")
        RelaySetupCommand.describe(settings)
        print("TURN shared secret: \(settings.turnSecret.map { "set, \($0.count) characters (never shown)" } ?? "none")")
    }
}

/// `baton relay server-config`: coturn's and mosquitto's configuration for the group's servers,
/// with the broker's certificate the group issues, written to a folder, and how to install them.
struct RelayServerConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server-config", abstract: "Write and print a ready coturn and mosquitto configuration for a small VPS.",
        discussion: """
            Writes, to --out: turnserver.conf (mode 0600: it holds the TURN shared secret), baton.conf for \
            mosquitto, baton-group-ca.pem (the group CA, re-certified for CRLs: the broker's only client CA), \
            baton-group.crl (the group's revocations, so the broker refuses a revoked device), and a \
            certificate and key for the broker issued by the group (baton-broker.pem, baton-broker-key.pem, \
            mode 0600), then prints both configurations (the secret left out) and the commands that install \
            them. Run it on the machine that administers the group, after `baton relay setup`. After each \
            `baton device revoke`, the broker needs the new CRL and the TURN server the new secret: \
            `baton device revoke` says how.
            """)
    @Option(name: .customLong("turn-host"), help: "The TURN host to configure (default: the first TURN server's).") var turnHost: String?
    @Option(name: .customLong("broker-host"), help: "The broker's host name for its certificate (default: the broker's).") var brokerHost: String?
    @Option(name: .long, help: "Where to write the files (default: ./baton-relay-server).") var out: String = "baton-relay-server"
    @Option(name: .customLong("allow-peer"), help: "An address or range (IP or IP-IP) coturn may relay to although private (repeat for more).")
    var allowPeer: [String] = []
    @OptionGroup var options: ConfigOption

    func run() throws {
        let authority = try GroupAuthority.load(from: options.directory)
        guard let settings = try authority.relaySettings() else {
            throw ValidationError("the group has no relay settings yet: run `baton relay setup` first")
        }
        let turnHost = try turnHost.map { try TURNServer(uri: "turn:\($0)").host } ?? settings.turn.first?.host
        if let turnHost, !settings.turn.contains(where: { $0.host == turnHost }) {
            throw ValidationError("no TURN server of the group is at '\(shown(turnHost))'")
        }
        let folder = URL(fileURLWithPath: out)
        let files = FileTransaction()
        let allowed = try allowPeer.map { range throws(RelaySettingsError) in try RelayServerConfig.checkedPeerRange(range) }
        let coturn = turnHost.flatMap { RelayServerConfig.coturn(settings, host: $0, allowedPeerRanges: allowed) }
        if let coturn { try files.write(Data(coturn.utf8), to: folder.appendingPathComponent("turnserver.conf"), mode: 0o600) }
        var broker: (host: String, port: UInt16, config: String)?
        if let address = settings.broker, let config = RelayServerConfig.mosquitto(settings) {
            let host = try brokerHost.map { try BrokerAddress(uri: "mqtts://\($0)").host } ?? address.host
            let issued = try authority.issueBrokerCertificate(host: host)
            try files.write(Data(config.utf8), to: folder.appendingPathComponent("baton.conf"), mode: 0o644)
            try files.write(Data(try authority.brokerClientAuthority().serializeAsPEM().pemString.utf8),
                            to: folder.appendingPathComponent("baton-group-ca.pem"), mode: 0o644)
            try files.write(Data(try authority.certificateRevocationList().pemString.utf8),
                            to: folder.appendingPathComponent(RelayServerConfig.crlFileName), mode: 0o644)
            try files.write(Data(issued.certificatePEM.utf8), to: folder.appendingPathComponent("baton-broker.pem"), mode: 0o644)
            try files.write(Data(issued.keyPEM.utf8), to: folder.appendingPathComponent("baton-broker-key.pem"), mode: 0o600)
            broker = (host, address.port, config)
        }
        try files.commit()
        let dir = shown(folder.path)
        if let coturn, let turnHost {
            let printed = coturn.split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.hasPrefix("static-auth-secret=") ? "static-auth-secret=(the group's secret: in \(dir)/turnserver.conf only)" : String($0)
            }.joined(separator: "\n")
            print("# ---- coturn, \(dir)/turnserver.conf (for \(turnHost)) ----")
            print(printed, terminator: "")
            let ports = Set(settings.turn.filter { $0.host == turnHost }.map(\.port)).sorted().map(String.init).joined(separator: ",")
            print("# install on \(turnHost) (Debian); open UDP and TCP \(ports) and UDP 49152-65535 (the relayed ports):")
            print("ssh root@\(turnHost) 'apt-get install -y coturn'")
            print("scp \(dir)/turnserver.conf root@\(RevocationAtServers.scpForm(turnHost)):/etc/turnserver.conf")
            print("ssh root@\(turnHost) 'chown root:turnserver /etc/turnserver.conf && chmod 640 /etc/turnserver.conf && systemctl restart coturn'")
        }
        if let broker {
            print("# ---- mosquitto, \(dir)/baton.conf (for \(broker.host)) ----")
            print(broker.config, terminator: "")
            print("# install on \(broker.host) (Debian); open TCP \(broker.port):")
            print("ssh root@\(broker.host) 'apt-get install -y mosquitto'")
            print("scp \(dir)/baton-group-ca.pem \(dir)/\(RelayServerConfig.crlFileName) \(dir)/baton-broker.pem \(dir)/baton-broker-key.pem root@\(RevocationAtServers.scpForm(broker.host)):\(RelayServerConfig.mosquittoCertificateFolder)/")
            print("scp \(dir)/baton.conf root@\(RevocationAtServers.scpForm(broker.host)):/etc/mosquitto/conf.d/baton.conf")
            print("ssh root@\(broker.host) 'chown mosquitto: \(RelayServerConfig.mosquittoCertificateFolder)/baton-broker-key.pem && systemctl restart mosquitto'")
            print("# after each `baton device revoke`, copy the group's new CRL there (the command prints how)")
        }
    }
}
