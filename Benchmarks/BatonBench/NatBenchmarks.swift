import BatonContinuity
import Foundation
import HostSupport

/// Issue 29's rows between agents: a warm continuation between two `batond`s in two homes,
/// each behind its own NAT (`NatTopology`: nftables masquerade, no route between the homes,
/// a real coturn and a real mosquitto on the internet host from the group's own server
/// configuration), linked by their relay connectors through the broker and ICE — **direct
/// across NATs** (endpoint-independent NATs: a hole-punched path) and **relayed** (symmetric
/// NATs: only the TURN relay gets through). Beside each, the same over a **LAN**: two agents
/// on two namespace hosts on one link (`TestHost.pair`, Avahi), up for the whole run, whose
/// blocks of continuations alternate with the NAT path's so that both meet the same state of
/// the shared machine. In every case the continuing app is a `ContinuerMode` process joined
/// to the agent of device A and the advertising app an `AgentAppMode` one joined to B's; a
/// continuation is "continue" to `restoreUserActivityState`, the link already up.
///
/// Also: both agents started to both linked (`relayAttemptSucceeded` on both, or `linked` on
/// the LAN), one run each. Needs root (network namespaces), coturn and mosquitto; otherwise
/// one line says why.
@MainActor
enum NatBenchmarks {
    /// Blocks of `AgentBenchmarks.warmBlock` continuations per path.
    static let blocks = 4
    /// A relay attempt is bounded by gathering, the broker's exchange, the checks and TLS; a
    /// failed one is tried again after 5 s.
    static let linkDeadline: Duration = .seconds(180)

    /// One NAT path's figures, with the LAN's taken in the blocks alternated with it.
    struct PathResults {
        var warm: [Double] = []
        var lanWarm: [Double] = []
        /// Both agents started to both linked, ms (one run).
        var linkUp: Double = .nan
        /// The path the agents reported.
        var path: IcePath?
    }

    struct Results {
        var direct = PathResults(), relayed = PathResults()
        /// The LAN agents started to both linked, ms (one run).
        var lanLinkUp: Double = .nan
    }

    /// The rows, or one line saying why they were not measured.
    static func lines() -> [String] {
        if let reason = NatTopology.unavailableReason { return ["agents across NATs: skipped: \(reason)"] }
        for tool in [LoopbackCoturn.executable, "/usr/sbin/mosquitto"] where !FileManager.default.isExecutableFile(atPath: tool) {
            return ["agents across NATs: skipped: \(tool) is missing (Debian's coturn and mosquitto)"]
        }
        do { return lines(try run()) } catch {
            return ["agents across NATs failed: \(error)"]
        }
    }

    static func lines(_ results: Results) -> [String] {
        let lan = "LAN (namespace hosts)"
        func rows(_ name: String, _ path: PathResults) -> [String] {
            [
                Figure(name: "\(name): warm continuation p50", value: percentile(path.warm, 50),
                       baselineName: "\(lan) p50, alternated", baseline: percentile(path.lanWarm, 50), unit: "µs", aim: "").line(),
                Figure(name: "\(name): warm continuation p99", value: percentile(path.warm, 99),
                       baselineName: "\(lan) p99, alternated", baseline: percentile(path.lanWarm, 99), unit: "µs", aim: "").line(),
                Figure(name: "\(name): agents started to linked", value: path.linkUp,
                       baselineName: "LAN: agents started to linked", baseline: results.lanLinkUp, unit: "ms",
                       aim: "one run; broker, ICE, TLS").line(),
            ]
        }
        return rows("across NATs, direct", results.direct) + rows("across NATs, relayed", results.relayed) + [
            "(agents across NATs: batond in two homes behind nftables NATs, coturn and mosquitto on an \"internet\" host;"
                + " direct: endpoint-independent NATs, path \(results.direct.path?.rawValue ?? "?");"
                + " relayed: symmetric NATs, path \(results.relayed.path?.rawValue ?? "?");"
                + " LAN: two hosts on one link with Avahi; \(blocks * AgentBenchmarks.warmBlock) continuations each)",
        ]
    }

    static func run() throws -> Results {
        let root = URL(fileURLWithPath: "/tmp").appendingPathComponent("baton-bench-nat-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: root) }
        let executable = BenchProducts.bench, batond = try BenchProducts.batond()
        var environment = ProcessInfo.processInfo.environment
        environment["BATON_PEERS"] = nil
        environment["BATON_AGENT_SOCKET"] = nil
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        environment["BATON_DIAGNOSTICS_INODE"] = nil
        var agentEnvironment = environment
        agentEnvironment["BATON_DIAGNOSTICS_FD"] = "3"  // the typed events, on the child's standard output (below)
        environment["BATON_DIAGNOSTICS_FD"] = nil

        var children: [BenchChild] = []
        func agent(in host: TestHost, _ name: String, folder: URL) throws -> BenchChild {
            // Descriptor 3 is the standard output pipe the bench reads; the agent's own output goes to its log.
            let command = ["/bin/sh", "-c", "exec \"$0\" \"$@\" 3>&1 1>&2", batond.path, "--device", folder.path, "--listen", "0.0.0.0:0",
                           "--socket", root.appendingPathComponent("\(name).sock").path, "--no-notifications"]
            let child = try host.start("batond-\(name)", command, environment: agentEnvironment, logDirectory: root)
            children.append(child)
            return child
        }
        /// The advertising app joined to B's agent and the continuing app joined to A's, both
        /// in this machine's namespaces (an agent's socket is a file); returns both, the
        /// continuer (last) once ready.
        func apps(_ prefix: String) throws -> [BenchChild] {
            let advertiser = try BenchChild("app-\(prefix)B", executable: executable,
                                            ["--agent-app-mode", root.appendingPathComponent("\(prefix)B.sock").path, PeerMode.manifest.appID,
                                             AgentBenchmarks.editing, "--advertise"],
                                            environment: environment, logDirectory: root)
            children.append(advertiser)
            try advertiser.waitForLine("joined")
            let continuer = try BenchChild("app-\(prefix)A", executable: executable,
                                           ["--continuer-mode", "agent", root.appendingPathComponent("\(prefix)A.sock").path],
                                           environment: environment, logDirectory: root)
            children.append(continuer)
            try continuer.waitForLine("ready")
            return [advertiser, continuer]
        }
        func block(_ continuer: BenchChild) throws -> [Double] {
            let from = continuer.lines.count
            continuer.send("warm \(AgentBenchmarks.warmBlock)")
            let times = try continuer.waitForLine("warm ", from: from).dropFirst("warm ".count).split(separator: ",").compactMap { Double($0) }
            guard times.count == AgentBenchmarks.warmBlock else {
                throw BenchFailure("\(continuer.name) timed \(times.count) of \(AgentBenchmarks.warmBlock) continuations\(continuer.logTail())")
            }
            return times
        }

        // The LAN: a group without relay settings, two hosts on one link, up for the whole run.
        let lanAuthority = try GroupAuthority.create(name: "bench-lan", in: ConfigDirectory(url: root.appendingPathComponent("lan-admin")))
        let lanFolders = try ["LanA", "LanB"].map { name in
            let folder = root.appendingPathComponent(name)
            try lanAuthority.issueDevice(named: name).write(to: folder)
            return folder
        }
        let (hostA, hostB) = try TestHost.pair(["/bin/sleep", "infinity"], ["/bin/sleep", "infinity"])
        defer {
            for child in children.reversed() { child.stop() }
            children = []
            hostA.shutDown()
            hostB.shutDown()
        }
        var results = Results()
        let lanStart = ContinuousClock.now
        let lanAgents = [try agent(in: hostA, "LanA", folder: lanFolders[0]), try agent(in: hostB, "LanB", folder: lanFolders[1])]
        for lanAgent in lanAgents { _ = try BenchEvents(lanAgent).wait(timeout: .seconds(60)) { if case .linked = $0 { true } else { false } } }
        results.lanLinkUp = milliseconds(ContinuousClock.now - lanStart)
        guard let lanContinuer = try apps("Lan").last else { throw BenchFailure("no continuer") }

        // Across NATs: a group whose list carries relay settings pointing at the internet host.
        let authority = try GroupAuthority.create(name: "bench-nat", in: ConfigDirectory(url: root.appendingPathComponent("admin")))
        let folders = try ["A", "B"].map { name in
            let folder = root.appendingPathComponent(name)
            try authority.issueDevice(named: name).write(to: folder)
            return folder
        }
        let internet = NatTopology.internetAddress
        let settings = try authority.setRelaySettings(
            RelaySettings(turn: [try TURNServer(uri: "turn:\(internet):3478")], broker: try BrokerAddress(uri: "mqtts://\(internet):8883"),
                          turnSecret: RelaySettings.generatedSecret()),
            updating: folders)
        for (mapping, expected) in [(NatTopology.Mapping.endpointIndependent, IcePath.serverReflexive), (.symmetric, .relayed)] {
            let measured = try across(mapping, settings: settings, authority: authority, folders: folders, root: root,
                                      start: { try agent(in: $0, $1, folder: $2) }, apps: { try apps("") },
                                      alternate: { natContinuer in
                                          var path = PathResults()
                                          for _ in 0..<blocks {
                                              path.warm += try block(natContinuer)
                                              path.lanWarm += try block(lanContinuer)
                                          }
                                          return path
                                      },
                                      stopAgents: { started in
                                          for child in started { child.stop() }
                                          children.removeAll { child in started.contains { $0 === child } }
                                      })
            if expected == .relayed { results.relayed = measured } else { results.direct = measured }
        }
        return results
    }

    /// One NAT topology whose routers map as `mapping`: the servers from the group's own
    /// configuration, an agent in each home (started by `start`), both agents' relay attempts
    /// succeeded (timed), the apps (`apps`), then `alternate`'s blocks; the agents and apps
    /// end (`stopAgents`) and the topology is shut down before it returns.
    private static func across(_ mapping: NatTopology.Mapping, settings: RelaySettings, authority: GroupAuthority, folders: [URL],
                               root: URL, start: (TestHost, String, URL) throws -> BenchChild, apps: () throws -> [BenchChild],
                               alternate: (BenchChild) throws -> PathResults, stopAgents: ([BenchChild]) -> Void) throws -> PathResults {
        let topology = try NatTopology(mapping, mapping)
        var started: [BenchChild] = []
        defer {
            stopAgents(started)
            topology.shutDown()
        }
        let servers = topology.folder.appendingPathComponent("servers")
        try writeServerConfig(settings, authority: authority, admin: ConfigDirectory(url: root.appendingPathComponent("admin")),
                              to: servers)
        try topology.startCoturn(from: servers)
        try topology.startMosquitto(from: servers, certificateFolder: RelayServerConfig.mosquittoCertificateFolder)
        let begin = ContinuousClock.now
        for (home, (name, folder)) in zip(topology.homes, zip(["A", "B"], folders)) {
            started.append(try start(home.device, name, folder))
        }
        var path: IcePath?
        for (agent, peer) in zip(started, ["B", "A"]) {
            let (event, _) = try BenchEvents(agent).wait(timeout: linkDeadline) {
                if case .relayAttemptSucceeded(peer, _) = $0 { true } else { false }
            }
            if case .relayAttemptSucceeded(_, let reported) = event { path = reported }
        }
        let linkUp = milliseconds(ContinuousClock.now - begin)
        let made = try apps()
        started += made
        guard let continuer = made.last else { throw BenchFailure("no continuer") }
        var results = try alternate(continuer)
        results.linkUp = linkUp
        results.path = path
        return results
    }

    /// What `baton relay server-config --allow-peer` writes: coturn's and mosquitto's
    /// configuration, the group CA (from the authority's folder `admin`) and the broker's
    /// certificate and key, into `folder`.
    private static func writeServerConfig(_ settings: RelaySettings, authority: GroupAuthority, admin: ConfigDirectory, to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard let coturn = RelayServerConfig.coturn(settings, allowedPeerRanges: [NatTopology.internetPeerRange]),
              let mosquitto = RelayServerConfig.mosquitto(settings), let broker = settings.broker else {
            throw BenchFailure("the relay settings made no server configuration")
        }
        let issued = try authority.issueBrokerCertificate(host: broker.host)
        let groupCA = try String(contentsOf: admin.groupDirectory.appendingPathComponent("authority.pem"), encoding: .utf8)
        for (name, text, mode) in [("turnserver.conf", coturn, 0o600), ("baton.conf", mosquitto, 0o644), ("baton-group-ca.pem", groupCA, 0o644),
                                   ("baton-broker.pem", issued.certificatePEM, 0o644), ("baton-broker-key.pem", issued.keyPEM, 0o600)] {
            let file = folder.appendingPathComponent(name)
            try Data(text.utf8).write(to: file)
            chmod(file.path, mode_t(mode))
        }
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
