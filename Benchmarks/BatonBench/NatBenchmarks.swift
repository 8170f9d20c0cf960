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
/// to the agent of device A and the advertising app an `AgentAppMode` one joined to B's, each
/// in its agent's host; a
/// continuation is "continue" to `restoreUserActivityState`, the link already up.
///
/// Also: both agents started to both linked (`relayAttemptSucceeded` on both, or `linked` on
/// the LAN), one run each. Needs root (network namespaces), coturn and mosquitto; otherwise
/// one line says why.
@MainActor
enum NatBenchmarks {
    /// Blocks of `AgentBenchmarks.warmBlock` continuations per path.
    static let blocks = 8
    /// A relay attempt is bounded by gathering, the broker's exchange, the checks and TLS; a
    /// failed one is tried again after 5 s.
    static let linkDeadline: TimeInterval = 180

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
        let lan = "LAN hosts"
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
        // Every process here is a HostSupport `RunningProcess` started inside a host (an app
        // must share its agent's PID namespace: the agent checks who connects): its typed
        // events on descriptor 3, its output waited on with deadlines.
        var processes: [RunningProcess] = []
        defer { for process in processes.reversed() { process.terminate() } }
        func agent(in host: TestHost, _ name: String, folder: URL) throws -> RunningProcess {
            let process = try host.start(["/usr/bin/env", "XDG_CONFIG_HOME=\(root.appendingPathComponent("config").path)", "BATON_PEERS=",
                                          batond.path, "--device", folder.path, "--listen", "0.0.0.0:0",
                                          "--socket", root.appendingPathComponent("\(name).sock").path, "--no-notifications"])
            processes.append(process)
            return process
        }
        /// The advertising app joined to B's agent (in `hostB`) and the continuing app joined to
        /// A's (in `hostA`); returns both, the continuer (last) once ready.
        func apps(_ prefix: String, _ hostA: TestHost, _ hostB: TestHost) throws -> [RunningProcess] {
            let advertiser = try hostB.start([executable.path, "--agent-app-mode", root.appendingPathComponent("\(prefix)B.sock").path,
                                              PeerMode.manifest.appID, AgentBenchmarks.editing, "--advertise"])
            processes.append(advertiser)
            guard advertiser.waitForLine(containing: "joined", timeout: 60) != nil else {
                throw BenchFailure("the advertising app did not join its agent: \(advertiser.output.suffix(2000))")
            }
            let continuer = try hostA.start([executable.path, "--continuer-mode", "agent", root.appendingPathComponent("\(prefix)A.sock").path])
            processes.append(continuer)
            guard continuer.waitForLine(containing: "ready", timeout: 60) != nil else {
                throw BenchFailure("the continuing app never saw the activity: \(continuer.output.suffix(2000))")
            }
            return [advertiser, continuer]
        }
        var blocksDone: [ObjectIdentifier: Int] = [:]
        func block(_ continuer: RunningProcess) throws -> [Double] {
            let done = blocksDone[ObjectIdentifier(continuer), default: 0] + 1
            blocksDone[ObjectIdentifier(continuer)] = done
            continuer.send("warm \(AgentBenchmarks.warmBlock)")
            guard let line = continuer.waitForLine(containing: "warm ", occurrence: done, timeout: 120),
                  let range = line.range(of: "warm ") else {
                throw BenchFailure("a block of continuations did not finish: \(continuer.output.suffix(2000))")
            }
            let times = line[range.upperBound...].split(separator: ",").compactMap { Double($0) }
            guard times.count == AgentBenchmarks.warmBlock else {
                throw BenchFailure("the continuer timed \(times.count) of \(AgentBenchmarks.warmBlock) continuations")
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
            hostA.shutDown()
            hostB.shutDown()
        }
        var results = Results()
        let lanStart = ContinuousClock.now
        let lanAgents = [try agent(in: hostA, "LanA", folder: lanFolders[0]), try agent(in: hostB, "LanB", folder: lanFolders[1])]
        for lanAgent in lanAgents {
            guard lanAgent.waitForEvent(DiagnosticEvent.self, timeout: 60, where: { if case .linked = $0 { true } else { false } }) != nil else {
                throw BenchFailure("the LAN agents did not link: \(lanAgent.output.suffix(2000))")
            }
        }
        results.lanLinkUp = milliseconds(ContinuousClock.now - lanStart)
        guard let lanContinuer = try apps("Lan", hostA, hostB).last else { throw BenchFailure("no continuer") }

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
        for mapping in [NatTopology.Mapping.endpointIndependent, .symmetric] {
            let topology = try NatTopology(mapping, mapping)
            defer { topology.shutDown() }
            let servers = topology.folder.appendingPathComponent("servers")
            try writeServerConfig(settings, authority: authority, admin: ConfigDirectory(url: root.appendingPathComponent("admin")),
                                  to: servers)
            try topology.startCoturn(from: servers)
            try topology.startMosquitto(from: servers, certificateFolder: RelayServerConfig.mosquittoCertificateFolder)
            let begin = ContinuousClock.now
            let agents = try zip(topology.homes, zip(["A", "B"], folders)).map { home, device in
                try agent(in: home.device, device.0, folder: device.1)
            }
            var measured = PathResults()
            for (agent, peer) in zip(agents, ["B", "A"]) {
                let event = agent.waitForEvent(DiagnosticEvent.self, timeout: linkDeadline) {
                    if case .relayAttemptSucceeded(peer, _) = $0 { true } else { false }
                }
                guard case .relayAttemptSucceeded(_, let path) = event else {
                    throw BenchFailure("device \(peer == "B" ? "A" : "B") did not link across the NATs: \(agent.output.suffix(2000))")
                }
                measured.path = path
            }
            measured.linkUp = milliseconds(ContinuousClock.now - begin)
            let made = try apps("", topology.homes[0].device, topology.homes[1].device)
            guard let continuer = made.last else { throw BenchFailure("no continuer") }
            for _ in 0..<blocks {
                measured.warm += try block(continuer)
                measured.lanWarm += try block(lanContinuer)
            }
            for process in (agents + made).reversed() {
                process.terminate()
                _ = process.waitForExit(timeout: 10)
            }
            if mapping == .symmetric { results.relayed = measured } else { results.direct = measured }
        }
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
        // The broker's client CA is the group CA allowed to sign CRLs, and the group's CRL beside it.
        let groupCA = try authority.brokerClientAuthority().serializeAsPEM().pemString
        let crl = try authority.certificateRevocationList().pemString
        for (name, text, mode) in [("turnserver.conf", coturn, 0o600), ("baton.conf", mosquitto, 0o644), ("baton-group-ca.pem", groupCA, 0o644),
                                   (RelayServerConfig.crlFileName, crl, 0o644),
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
