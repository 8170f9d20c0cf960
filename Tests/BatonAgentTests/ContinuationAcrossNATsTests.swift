import BatonAgent
import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 29, end to end with real parts: two agents (`batond`), each in a home behind its own
/// NAT (`NatTopology`: nftables masquerade, no route between the homes), an internet host
/// running a real coturn and a real mosquitto from `baton relay server-config`'s files, and a
/// group whose list carries relay settings pointing at that host. The homes have no D-Bus and
/// no avahi-daemon and the agents no static peers: the LAN finds nothing, so each agent's
/// relay connector (docs/PROTOCOL.md, 7.4) links them through the broker and ICE. Then Shapes
/// on device A continues the shape Shapes on device B advertises, through that link.
/// Needs root (CI runs as root); skipped, with the reason, without it or the servers.
final class ContinuationAcrossNATsTests: NatAgentTestCase {
    /// Endpoint-independent NATs: the agents hole-punch a direct path across them.
    func testAContinuationAcrossEndpointIndependentNATsGoesDirect() throws {
        try continueAcross(.endpointIndependent, expecting: .serverReflexive)
    }

    /// Symmetric NATs: only the TURN relay gets through; the continuation goes through it.
    func testAContinuationAcrossSymmetricNATsGoesThroughTheRelay() throws {
        try continueAcross(.symmetric, expecting: .relayed)
    }

    // MARK: The run

    /// Both homes' routers map as `mapping`; the agents must link on `path`, then Shapes on A
    /// continues Shapes on B's triangle.
    private func continueAcross(_ mapping: NatTopology.Mapping, expecting path: IcePath) throws {
        let linkPath: LinkPath = path == .relayed ? .relayed : .directAcrossNATs
        let topology = try NatTopology(mapping, mapping)
        self.topology = topology
        let folders = try relayGroup(topology, devices: ["A", "B"])
        let servers = topology.folder.appendingPathComponent("servers")
        let made = try runProduct("baton", ["relay", "server-config", "--out", servers.path, "--allow-peer", NatTopology.internetPeerRange,
                                            "--config", root.appendingPathComponent("admin").path], timeout: 60)
        XCTAssertEqual(made.status, 0, made.stderr)
        try topology.startCoturn(from: servers)
        try topology.startMosquitto(from: servers)

        let batond = productURL("batond").path
        let empty = root.appendingPathComponent("no-config").path
        let sockets = [socket("a.sock"), socket("b.sock")]
        let started = Date()
        let agents = try zip(topology.homes, zip(folders, sockets)).map { home, device in
            let agent = try home.device.start(["/usr/bin/env", "XDG_CONFIG_HOME=\(empty)", batond, "--device", device.0,
                                               "--listen", "0.0.0.0:0", "--socket", device.1, "--no-notifications"])
            processes.append(agent)
            return agent
        }
        for (agent, socket) in zip(agents, sockets) {
            XCTAssertTrue(agent.waitForAgentServing(at: socket, timeout: 60), agent.output)
        }
        // Gathering (10 s), the broker's exchange, the checks (30 s), the gate and TLS bound
        // an attempt; a failed one is tried again after 5 s: waited for generously.
        for (agent, peer) in zip(agents, ["B", "A"]) {
            let succeeded = agent.waitForEvent(timeout: 180) { if case .relayAttemptSucceeded(peer, _) = $0 { true } else { false } }
            XCTAssertEqual(succeeded, .relayAttemptSucceeded(peer: peer, path: path), agent.output)
            XCTAssertTrue(agent.waitForLink(with: peer, timeout: 30), agent.output)
        }
        print("Agents across NATs (\(mapping)): both agents started to both linked (\(path.rawValue)): "
              + String(format: "%.2f s", Date().timeIntervalSince(started)))
        guard !agents.contains(where: { !$0.isRunning }) else { return XCTFail("an agent ended: \(agents.map(\.output))") }
        // What `baton status` tells the person: the link and its path.
        for (index, home) in topology.homes.enumerated() {
            let links = try status(in: home.device, socket: sockets[index]).links
            XCTAssertEqual(links.map(\.device), [["B", "A"][index]])
            XCTAssertEqual(links.first?.path, linkPath)
            if let milliseconds = links.first?.roundTripMilliseconds {
                print("Agents across NATs (\(mapping)): round trip on device \(["A", "B"][index])'s link: " + String(format: "%.2f ms", milliseconds))
            }
        }

        // Shapes on B advertises a triangle; Shapes on A continues it across the NATs.
        let shapes = productURL("baton-shapes").path
        let creator = try app(in: topology.homes[1].device, agent: agents[1], [shapes, "--agent", sockets[1], "--create", "triangle"])
        let continuer = try app(in: topology.homes[0].device, agent: agents[0], [shapes, "--agent", sockets[0], "--continue-nearby"])
        XCTAssertTrue(agents[0].waitForNearby(from: "B", timeout: 60), continuer.output + agents[0].output)
        XCTAssertTrue(agents[0].waitForContinued(from: "B", timeout: 60), continuer.output + agents[0].output)
        // What Shapes shows its user: the shape restored from the payload that crossed the NATs.
        XCTAssertNotNil(continuer.waitForLine(containing: "restoreUserActivityState: created a triangle", timeout: 60), continuer.output)
        XCTAssertTrue(agents[1].waitForContinuedElsewhere(timeout: 60), creator.output + agents[1].output)
        XCTAssertEqual(creator.waitForExit(timeout: 60), 0, creator.output)
        XCTAssertEqual(continuer.waitForExit(timeout: 60), 0, continuer.output)
        // The link stayed the relay connector's: no LAN link was ever made (there is no LAN).
        for agent in agents {
            XCTAssertEqual(agent.diagnosticEvents.filter { if case .linked = $0 { true } else { false } }.count, 1, agent.output)
        }
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

    /// A new group (its authority's folder `admin`, with the admin device) and its devices
    /// `names`, the list carrying relay settings that point at the internet host (TURN with a
    /// shared secret, the mqtts broker); returns the devices' folders.
    private func relayGroup(_ topology: NatTopology, devices names: [String]) throws -> [String] {
        let admin = ConfigDirectory(url: root.appendingPathComponent("admin"))
        let authority = try GroupAuthority.create(name: "Ada", in: admin)
        _ = try authority.issueDevice(named: "admin", writingTo: admin.deviceDirectory)
        let folders = try names.map { name in
            let folder = root.appendingPathComponent(name)
            try authority.issueDevice(named: name).write(to: folder)
            return folder
        }
        let internet = NatTopology.internetAddress
        try authority.setRelaySettings(
            RelaySettings(turn: [try TURNServer(uri: "turn:\(internet):3478")], broker: try BrokerAddress(uri: "mqtts://\(internet):8883"),
                          turnSecret: RelaySettings.generatedSecret()),
            updating: [admin.deviceDirectory] + folders)
        return folders.map(\.path)
    }

    /// Starts `command` (an app) inside `host`; returns once it has joined `agent` (the app's
    /// `joinedAgent` and the agent's `appJoined`).
    private func app(in host: TestHost, agent: RunningProcess, _ command: [String]) throws -> RunningProcess {
        let joined = agent.diagnosticEvents.filter { if case .appJoined = $0 { true } else { false } }.count
        let process = try host.start(command)
        processes.append(process)
        XCTAssertTrue(process.waitForJoinedAgent(timeout: 60), process.output + agent.output)
        XCTAssertTrue(agent.waitForAppJoined(occurrence: joined + 1, timeout: 60), process.output + agent.output)
        return process
    }
}
