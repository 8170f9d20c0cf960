import BatonAgent
import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 29's failure cases, agent to agent with real parts (as `ContinuationAcrossNATsTests`):
/// two `batond` agents, each in a home behind its own NAT (`NatTopology`), no LAN between them
/// (no D-Bus, no avahi-daemon, no static peer), and an internet host running a real coturn and
/// a real mosquitto from `baton relay server-config`'s files. Each test breaks one part — UDP,
/// the broker, coturn, a device's standing in the group — and checks the typed diagnostics
/// the agents publish and what `baton status` shows the person. Every wait is bounded.
/// Needs root (CI runs as root); skipped, with the reason, without it or the servers.
final class NatFailureTests: NatAgentTestCase {
    // MARK: The cases

    /// Both homes' networks let no UDP out at all (not even to the internet host), only TCP;
    /// the group names its TURN server over UDP and over TCP. STUN and TURN over UDP go
    /// nowhere, so even across endpoint-independent NATs (which go direct otherwise) the agents
    /// link through coturn, reached over TCP: the path is the relay.
    func testWithUDPBlockedTheAgentsLinkThroughTURNOverTCP() throws {
        let topology = try makeTopology(.endpointIndependent, .endpointIndependent)
        try topology.blockUDPToTheInternet()
        let internet = NatTopology.internetAddress
        let group = try relayGroup(topology, turn: ["turn:\(internet):3478", "turn:\(internet):3478?transport=tcp"])
        try startServers(topology, coturn: true, mosquitto: true)
        let agents = try startAgents(topology, group.folders)
        for (agent, peer) in zip(agents, ["B", "A"]) {
            let succeeded = agent.waitForEvent(timeout: 180) { if case .relayAttemptSucceeded(peer, _) = $0 { true } else { false } }
            XCTAssertEqual(succeeded, .relayAttemptSucceeded(peer: peer, path: .relayed), agent.output)
            XCTAssertTrue(agent.waitForLink(with: peer, timeout: 30), agent.output)
        }
        for index in 0..<2 {
            let links = try status(in: topology.homes[index].device, socket: group.sockets[index]).links
            XCTAssertEqual(links.map(\.device), [["B", "A"][index]])
            XCTAssertEqual(links.first?.path, .relayed, "what the person sees: the link goes through the relay")
        }
    }

    /// The same network with the group's TURN server named over UDP only: nothing gets out
    /// but the broker's TCP, so the offering agent's attempt fails, typed (no path: only host
    /// candidates, which cannot reach across), and is tried again later; no link.
    func testWithUDPBlockedAndNoTURNOverTCPTheAttemptFailsTyped() throws {
        let topology = try makeTopology(.endpointIndependent, .endpointIndependent)
        try topology.blockUDPToTheInternet()
        let group = try relayGroup(topology)
        try startServers(topology, coturn: true, mosquitto: true)
        let agents = try startAgents(topology, group.folders)
        let offering = group.offering, peers = ["B", "A"]
        let failed = agents[offering].waitForEvent(timeout: 150) { if case .relayAttemptFailed(peers[offering], _, _) = $0 { true } else { false } }
        guard case .relayAttemptFailed(_, let reason, let retry)? = failed else { return XCTFail("no typed failure: \(agents[offering].output)") }
        print("NAT failures: UDP blocked, TURN over UDP only: the attempt failed with \(reason)")
        XCTAssertTrue([.noPath, .gatheringFailed].contains(reason), "\(reason): \(agents[offering].output)")
        XCTAssertNotNil(retry, "tried again later")
        for index in 0..<2 {
            XCTAssertEqual(try status(in: topology.homes[index].device, socket: group.sockets[index]).links.map(\.device), [])
        }
        XCTAssertFalse(agents.contains { $0.diagnosticEvents.contains { if case .relayAttemptSucceeded = $0 { true } else { false } } })
    }

    /// The broker down (mosquitto not running): the offering agent says, typed, that the
    /// broker is unavailable for its peer, once; both agents keep trying the broker with a
    /// growing delay; neither has a link. Once mosquitto runs, the agents connect to it and
    /// link, with no step by the person.
    func testWithTheBrokerDownTheAgentsSayWhyAndLinkOnceItIsBack() throws {
        let topology = try makeTopology(.endpointIndependent, .endpointIndependent)
        let group = try relayGroup(topology)
        try startServers(topology, coturn: true, mosquitto: false)
        let agents = try startAgents(topology, group.folders)
        let offering = group.offering, peers = ["B", "A"]
        let failedWith = { (peer: String) in { (event: DiagnosticEvent) in if case .relayAttemptFailed(peer, _, _) = event { true } else { false } } }
        let unavailable = agents[offering].waitForEvent(timeout: 120, where: failedWith(peers[offering]))
        XCTAssertEqual(unavailable, .relayAttemptFailed(peer: peers[offering], reason: .brokerUnavailable, retryAfterMilliseconds: nil),
                       agents[offering].output)
        for agent in agents {
            // Two failed connections in a row: the second waits longer than the first.
            let delays = (1...2).map { occurrence in
                agent.waitForEvent(timeout: 120, occurrence: occurrence) { if case .brokerConnectFailed = $0 { true } else { false } }
            }.map { event -> Int64? in if case .brokerConnectFailed(_, _, let retry)? = event { retry } else { nil } }
            guard let first = delays[0], let second = delays[1] else { return XCTFail("no two failures: \(agent.output)") }
            XCTAssertGreaterThan(second, first, "the broker is tried again with a back-off")
        }
        for index in 0..<2 {
            XCTAssertEqual(try status(in: topology.homes[index].device, socket: group.sockets[index]).links.map(\.device), [],
                           "no link without the broker")
        }
        XCTAssertEqual(agents[offering].diagnosticEvents.filter(failedWith(peers[offering])).count, 1,
                       "said once, not at every broker retry: \(agents[offering].output)")
        XCTAssertFalse(agents.contains { $0.diagnosticEvents.contains { if case .relayAttemptStarted = $0 { true } else { false } } },
                       "no attempt runs without the broker")

        try topology.startMosquitto(from: group.servers)
        for (agent, peer) in zip(agents, peers) {
            XCTAssertTrue(agent.waitFor(.brokerConnected, timeout: 120), agent.output)
            let succeeded = agent.waitForEvent(timeout: 180) { if case .relayAttemptSucceeded(peer, _) = $0 { true } else { false } }
            XCTAssertEqual(succeeded, .relayAttemptSucceeded(peer: peer, path: .serverReflexive), agent.output)
        }
        for index in 0..<2 {
            let links = try status(in: topology.homes[index].device, socket: group.sockets[index]).links
            XCTAssertEqual(links.map(\.device), [peers[index]])
            XCTAssertEqual(links.first?.path, .directAcrossNATs)
        }
    }

    /// coturn down, across symmetric NATs (only a relay could get through): the offering
    /// agent's attempt fails typed — no path, or no candidate beyond the host ones — within its
    /// deadlines, and is tried again after the back-off; no link, the agents still answer.
    func testWithCoturnDownAcrossSymmetricNATsTheAttemptFailsTypedAndNothingHangs() throws {
        let topology = try makeTopology(.symmetric, .symmetric)
        let group = try relayGroup(topology)
        try startServers(topology, coturn: false, mosquitto: true)
        let agents = try startAgents(topology, group.folders)
        let offering = group.offering, peers = ["B", "A"]
        // Gathering (10 s) and the checks (30 s) bound an attempt.
        let failed = agents[offering].waitForEvent(timeout: 150) { if case .relayAttemptFailed(peers[offering], _, _) = $0 { true } else { false } }
        guard case .relayAttemptFailed(let peer, let reason, let retry)? = failed else {
            return XCTFail("no typed failure: \(agents[offering].output)")
        }
        XCTAssertEqual(peer, peers[offering])
        print("NAT failures: coturn down across symmetric NATs: the attempt failed with \(reason)")
        XCTAssertTrue([.noPath, .gatheringFailed].contains(reason), "\(reason): \(agents[offering].output)")
        XCTAssertNotNil(retry, "the offering agent tries again later")
        // The answering side's attempt ended too (it does not wait for ever), typed.
        let answered = agents[1 - offering].waitForEvent(timeout: 150) {
            if case .relayAttemptFailed(peers[1 - offering], _, nil) = $0 { true } else { false }
        }
        XCTAssertNotNil(answered, agents[1 - offering].output)
        // Tried again after the delay.
        XCTAssertTrue(agents[offering].waitFor(.relayAttemptStarted(peer: peers[offering], offering: true), occurrence: 2, timeout: 120),
                      agents[offering].output)
        for index in 0..<2 {
            XCTAssertTrue(agents[index].isRunning, agents[index].output)
            XCTAssertEqual(try status(in: topology.homes[index].device, socket: group.sockets[index]).links.map(\.device), [])
        }
        XCTAssertFalse(agents.contains { $0.diagnosticEvents.contains { if case .relayAttemptSucceeded = $0 { true } else { false } } })
    }

    /// A revoked device, with no LAN to try, tries the relay path: the device that offers is
    /// revoked (it still holds the list from before). While the broker holds the group's CRL
    /// from before the revocation, the revoked device still connects to it, and its offer
    /// reaches its old peer, which refuses it, typed (`revokedSender`): no attempt starts, no
    /// link. A stranger — a device of another group, its own CA, its list naming the same
    /// broker — is refused at the broker's TLS handshake and never connects. Once the new CRL
    /// is copied to the broker and it restarts (what `baton device revoke` says to do), the
    /// broker refuses the revoked device too, and the peer connects again.
    func testARevokedDeviceAndAStrangerAreRefused() throws {
        let topology = try makeTopology(.endpointIndependent, .endpointIndependent)
        let group = try relayGroup(topology, revokingTheOfferingDevice: true)
        try startServers(topology, coturn: true, mosquitto: false)
        var broker = try topology.startMosquitto(from: group.servers)
        let agents = try startAgents(topology, group.folders)
        let revoked = group.offering, peer = 1 - group.offering
        for agent in agents { XCTAssertTrue(agent.waitFor(.brokerConnected, timeout: 120), agent.output) }
        XCTAssertTrue(agents[revoked].waitFor(.relayAttemptStarted(peer: ["B", "A"][revoked], offering: true), timeout: 120),
                      agents[revoked].output)
        XCTAssertTrue(agents[peer].waitFor(.brokerMessageRefused(reason: .revokedSender), timeout: 120), agents[peer].output)
        let gaveUp = agents[revoked].waitForEvent(timeout: 120) { if case .relayAttemptFailed(["B", "A"][revoked], _, _) = $0 { true } else { false } }
        XCTAssertEqual(gaveUp, .relayAttemptFailed(peer: ["B", "A"][revoked], reason: .noAnswer,
                                                   retryAfterMilliseconds: 5000), agents[revoked].output)
        XCTAssertFalse(agents[peer].diagnosticEvents.contains(.relayAttemptStarted(peer: ["B", "A"][peer], offering: false)),
                       "the revoked device's offer started nothing")

        // A stranger at the broker, in home B beside the group's device.
        let strangerAdmin = ConfigDirectory(url: root.appendingPathComponent("stranger-admin"))
        let stranger = try GroupAuthority.create(name: "Eve", in: strangerAdmin)
        let strangerFolder = root.appendingPathComponent("stranger")
        try stranger.issueDevice(named: "stranger").write(to: strangerFolder)
        try stranger.setRelaySettings(group.settings, updating: [strangerFolder])
        let strangerSocket = socket("stranger.sock")
        let strangerAgent = try startAgent(in: topology.homes[1].device, folder: strangerFolder.path, socket: strangerSocket)
        let refused = strangerAgent.waitForEvent(timeout: 120) { if case .brokerConnectFailed = $0 { true } else { false } }
        guard case .brokerConnectFailed(let reason, _, _)? = refused else { return XCTFail("not refused: \(strangerAgent.output)") }
        XCTAssertEqual(reason, .tls, strangerAgent.output)
        XCTAssertFalse(strangerAgent.diagnosticEvents.contains(.brokerConnected), strangerAgent.output)

        // The new CRL on the broker, as the revoke says: copied over the old one, mosquitto restarted.
        broker.terminate()
        broker.waitForExit()
        let crl = group.servers.appendingPathComponent(RelayServerConfig.crlFileName)
        try FileManager.default.removeItem(at: crl)
        try FileManager.default.copyItem(at: ConfigDirectory(url: root.appendingPathComponent("admin")).groupDirectory
                                            .appendingPathComponent(GroupAuthority.crlFileName), to: crl)
        broker = try topology.startMosquitto(from: group.servers)
        XCTAssertTrue(agents[peer].waitFor(.brokerConnected, occurrence: 2, timeout: 120), agents[peer].output)
        let refusedRevoked = agents[revoked].waitForEvent(timeout: 120) { if case .brokerConnectFailed(.tls, _, _) = $0 { true } else { false } }
        XCTAssertNotNil(refusedRevoked, "the broker refuses the revoked device: \(agents[revoked].output)")
        XCTAssertEqual(agents[revoked].diagnosticEvents.filter { $0 == .brokerConnected }.count, 1, agents[revoked].output)

        for index in 0..<2 {
            XCTAssertEqual(try status(in: topology.homes[index].device, socket: group.sockets[index]).links.map(\.device), [])
        }
        XCTAssertFalse(agents.contains { $0.diagnosticEvents.contains { if case .linked = $0 { true } else { false } } })
    }

    // MARK: The parts

    /// A group of devices A and B made for a topology: their folders, sockets, the relay
    /// settings their lists carry, the servers' files, and which of the two offers.
    private struct Group {
        var folders: [String]
        var sockets: [String]
        var settings: RelaySettings
        var servers: URL
        /// The index (0: A, 1: B) of the device whose identifier sorts first: it offers.
        var offering: Int
    }

    private func makeTopology(_ a: NatTopology.Mapping, _ b: NatTopology.Mapping) throws -> NatTopology {
        let topology = try NatTopology(a, b)
        self.topology = topology
        return topology
    }

    /// A new group (its authority's folder `admin`) with devices A and B, the lists carrying
    /// relay settings that point at the internet host (the TURN servers `turn`, a shared
    /// secret, the mqtts broker), and the servers' files from `baton relay server-config`.
    /// With `revokingTheOfferingDevice`, the device that offers is then revoked in the
    /// authority's and the other device's lists, not in its own (it missed the revocation).
    private func relayGroup(_ topology: NatTopology, turn: [String]? = nil, revokingTheOfferingDevice: Bool = false) throws -> Group {
        let internet = NatTopology.internetAddress
        let admin = ConfigDirectory(url: root.appendingPathComponent("admin"))
        let authority = try GroupAuthority.create(name: "Ada", in: admin)
        _ = try authority.issueDevice(named: "admin", writingTo: admin.deviceDirectory)
        let names = ["A", "B"]
        let folders = try names.map { name in
            let folder = root.appendingPathComponent(name)
            try authority.issueDevice(named: name).write(to: folder)
            return folder
        }
        let settings = RelaySettings(turn: try (turn ?? ["turn:\(internet):3478"]).map { try TURNServer(uri: $0) },
                                     broker: try BrokerAddress(uri: "mqtts://\(internet):8883"), turnSecret: RelaySettings.generatedSecret())
        try authority.setRelaySettings(settings, updating: [admin.deviceDirectory] + folders)
        let identifiers = try folders.map { try DeviceIdentity.load(from: $0).identifier }
        let offering = IceSession.Role.for(local: identifiers[0], remote: identifiers[1]) == .controlling ? 0 : 1
        let servers = topology.folder.appendingPathComponent("servers")
        let made = try runProduct("baton", ["relay", "server-config", "--out", servers.path, "--allow-peer", NatTopology.internetPeerRange,
                                            "--config", admin.url.path], timeout: 60)
        XCTAssertEqual(made.status, 0, made.stderr)
        // After the servers' files: the broker holds the group's CRL from before the revocation
        // until the person copies the new one, as `baton device revoke` tells them to.
        if revokingTheOfferingDevice {
            try authority.revokeDevice(named: names[offering], updating: [admin.deviceDirectory, folders[1 - offering]])
        }
        return Group(folders: folders.map(\.path), sockets: [socket("a.sock"), socket("b.sock")], settings: settings,
                     servers: servers, offering: offering)
    }

    private func startServers(_ topology: NatTopology, coturn: Bool, mosquitto: Bool) throws {
        let servers = topology.folder.appendingPathComponent("servers")
        if coturn { try topology.startCoturn(from: servers) }
        if mosquitto { try topology.startMosquitto(from: servers) }
    }

    /// `batond` for each device in its home; returns once both serve their sockets.
    private func startAgents(_ topology: NatTopology, _ folders: [String]) throws -> [RunningProcess] {
        let sockets = [socket("a.sock"), socket("b.sock")]
        return try zip(topology.homes, zip(folders, sockets)).map { home, device in
            try startAgent(in: home.device, folder: device.0, socket: device.1)
        }
    }

    private func startAgent(in host: TestHost, folder: String, socket: String) throws -> RunningProcess {
        let empty = root.appendingPathComponent("no-config").path
        let agent = try host.start(["/usr/bin/env", "XDG_CONFIG_HOME=\(empty)", productURL("batond").path, "--device", folder,
                                    "--listen", "0.0.0.0:0", "--socket", socket, "--no-notifications"])
        processes.append(agent)
        XCTAssertTrue(agent.waitForAgentServing(at: socket, timeout: 60), agent.output)
        return agent
    }

    /// The status of the agent at `socket`, from `baton status --json` run in `host`.
    private func status(in host: TestHost, socket: String) throws -> AgentStatus {
        let command = try host.start([productURL("baton").path, "status", "--json", "--agent", socket])
        processes.append(command)
        XCTAssertEqual(command.waitForExit(timeout: 60), 0, command.output)
        let text = command.output
        let json = try XCTUnwrap(text.firstIndex(of: "{").map { String(text[$0...]) }, text)
        struct Report: Decodable { var agent: AgentStatus? }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try XCTUnwrap(try decoder.decode(Report.self, from: Data(json.utf8)).agent, text)
    }
}
