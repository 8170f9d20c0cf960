import BatonAgent
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Handoff through agents between real hosts (`TestHost`: two network namespaces joined by
/// veth, each with its own `dbus-daemon --system` and `avahi-daemon`). Each host runs one
/// agent, `batond`, as its first process, listening beyond loopback with no static peers, so
/// the two agents find each other through Avahi; the apps run inside the hosts too, joined to
/// their host's agent with `--agent`. Needs root, which CI has; skipped without it.
final class AgentsBetweenHostsTests: AgentTestHostsCase {

    /// Hosts A and B, each running the agent of the device in `folders[0]`, `folders[1]`
    /// (sockets `a.sock`, `b.sock`); returns once both agents listen.
    private func startHosts(_ folders: [String]) throws -> (TestHost, TestHost) {
        let batond = productURL("batond").path
        func agent(_ folder: String, _ socket: String) -> [String] {
            [batond, "--device", folder, "--listen", "0.0.0.0:0", "--socket", socket, "--no-notifications"]
        }
        let (a, b) = try TestHost.pair(agent(folders[0], socket("a.sock")), agent(folders[1], socket("b.sock")))
        hosts = [a, b]
        for host in hosts {
            XCTAssertEqual(host.process.listeningAddress()?.host, "0.0.0.0", host.process.output)
        }
        return (a, b)
    }

    /// Issue 25, "Defaults that work on a network": agents given nothing but their identity
    /// (no --listen, no agent.conf, no peers) listen on every interface, publish and browse
    /// through the host's avahi-daemon and link; `baton status` says so, with the peer's plain
    /// IPv4 address (not the IPv4-mapped form the dual-stack socket sees).
    func testAgentsWithNoSettingsListenOnTheNetworkAndLinkThroughAvahi() throws {
        let folders = try devices("A", "B")
        let batond = productURL("batond").path
        let empty = root.appendingPathComponent("no-config").path
        func agent(_ folder: String, _ socket: String) -> [String] {
            ["/usr/bin/env", "XDG_CONFIG_HOME=\(empty)", batond, "--device", folder, "--socket", socket, "--no-notifications"]
        }
        let (a, b) = try TestHost.pair(agent(folders[0], socket("a.sock")), agent(folders[1], socket("b.sock")))
        hosts = [a, b]
        for host in hosts {
            XCTAssertEqual(host.process.listeningAddress()?.host, "::", host.process.output)
        }
        XCTAssertTrue(b.process.waitForLink(with: "A"), b.process.output + a.process.output)
        let status = try b.start([productURL("baton").path, "status", "--json", "--agent", socket("b.sock")])
        XCTAssertEqual(status.waitForExit(), 0, status.output)
        let text = status.output
        let json = try XCTUnwrap(text.firstIndex(of: "{").map { String(text[$0...]) }, text)
        struct Report: Decodable { var running: Bool; var agent: AgentStatus? }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let report = try decoder.decode(Report.self, from: Data(json.utf8))
        let agent = try XCTUnwrap(report.agent, text)
        XCTAssertEqual(agent.listening.host, "::")
        XCTAssertEqual(agent.listening.reach, "network")
        XCTAssertEqual(agent.discovery.state, "running", agent.discovery.explanation)
        XCTAssertTrue(agent.discovery.working)
        XCTAssertEqual(agent.staticPeers, [])
        XCTAssertEqual(agent.links.map(\.device), ["A"])
        XCTAssertEqual(agent.links.first?.address, "10.77.0.1")
    }

    /// Starts `command` inside `host` (a process of the host, ended with it and with the
    /// test); returns once it has joined the host's agent.
    private func app(in host: TestHost, _ command: [String]) throws -> RunningProcess {
        let process = try host.start(command)
        processes.append(process)
        XCTAssertNotNil(process.waitForLine(containing: "joined the agent"), process.output)
        return process
    }

    /// The seed "Implementing Handoff in Your App" between two hosts, through their agents:
    /// Shapes on host A advertises a shape through A's agent; B's agent finds A's through
    /// Avahi; Shapes on host B continues the shape and A's Shapes is told. Both apps end by
    /// themselves.
    func testShapesOnTwoHostsHandOffThroughAgentsThatFoundEachOtherThroughAvahi() throws {
        let folders = try devices("A", "B")
        let (a, b) = try startHosts(folders)
        let shapes = productURL("baton-shapes").path
        let creator = try app(in: a, [shapes, "--agent", socket("a.sock"), "--create", "triangle"])
        let continuer = try app(in: b, [shapes, "--agent", socket("b.sock"), "--continue-nearby"])
        XCTAssertNotNil(continuer.waitForLine(containing: "nearby: \"Creating shape\""), continuer.output + b.process.output)
        XCTAssertNotNil(continuer.waitForLine(containing: "restoreUserActivityState: created a triangle"), continuer.output)
        XCTAssertNotNil(creator.waitForLine(containing: "userActivityWasContinued"), creator.output)
        XCTAssertEqual(creator.waitForExit(), 0, creator.output)
        XCTAssertEqual(continuer.waitForExit(), 0, continuer.output)
        // No static peers: the agents found each other through Avahi, and only the one whose
        // service name sorts first dialed, so there was one link, never two to reconcile.
        let agents = a.process.output + b.process.output
        XCTAssertTrue(agents.contains("found a device of the group at 10.77.0."), agents)
        XCTAssertEqual(agents.components(separatedBy: "(dialed 10.77.0.").count - 1, 1, agents)
        XCTAssertFalse(agents.contains("replacing the link"), agents)
    }

    /// Probes joined to the agents of hosts A (offering) and B (continuing): B's probe sees
    /// A's activity, through agents that found each other through Avahi.
    private func probes(streams: Bool) throws -> (a: TestHost, offering: RunningProcess, continuing: RunningProcess) {
        let folders = try devices("A", "B")
        let (a, b) = try startHosts(folders)
        let probe = productURL("DeviceProbe").path
        let offering = try app(in: a, [probe, "unused", "--ok", "--agent", socket("a.sock")] + (streams ? ["--streams"] : []))
        let continuing = try app(in: b, [probe, "unused", "--ok", "--agent", socket("b.sock")])
        XCTAssertNotNil(continuing.waitForLine(containing: "nearby A"), continuing.output + b.process.output)
        return (a, offering, continuing)
    }

    /// handoff-programming-guide, "Using Continuation Streams", through agents, with the link
    /// between the hosts taken down while a large answer is streaming: the continuing app's
    /// stream ends with an error (the agents' dead-peer detection, about 20 s), never as if it
    /// had ended, and never hangs; both apps keep running; once the link is back, the agents
    /// link again and a continuation works.
    func testALinkDroppedMidStreamThroughAgentsEndsTheStreamWithAnErrorAndRecovers() throws {
        let (a, offering, continuing) = try probes(streams: true)
        continuing.send("continue 10")
        XCTAssertNotNil(continuing.waitForLine(containing: "continued Probe"), continuing.output)
        continuing.send("streams \(4 * 1024 * 1024 * 1024)")
        XCTAssertNotNil(continuing.waitForLine(containing: "stream receiving"), continuing.output)
        try a.run(inNetwork: ["/usr/sbin/ip", "link", "set", "veth0", "down"])
        let unavailable = CocoaError.Code.userActivityConnectionUnavailable.rawValue
        XCTAssertNotNil(continuing.waitForLine(containing: "stream failed: code \(unavailable),", timeout: 60), continuing.output)
        XCTAssertFalse(continuing.output.contains("stream received"), continuing.output)
        offering.send("ping")
        continuing.send("ping")
        XCTAssertNotNil(offering.waitForLine(containing: "pong"), offering.output)
        XCTAssertNotNil(continuing.waitForLine(containing: "pong"), continuing.output)

        // The agents saw the link die: A's activity left B's list. Back up, they link again
        // (through Avahi) and B sees it once more.
        let seen = continuing.output.components(separatedBy: "nearby A").count - 1
        try a.run(inNetwork: ["/usr/sbin/ip", "link", "set", "veth0", "up"])
        XCTAssertNotNil(continuing.waitForLine(containing: "nearby A", occurrence: seen + 1, timeout: 90), continuing.output)
        continueAgain(continuing, offering)
    }

    /// A link dropped while a fetch is pending through the agents: the continuing app's
    /// continuation ends in didFailToContinue within its bound (remote application timed out:
    /// nothing tells a device that a cable was pulled), both apps keep running, and once the
    /// link is back the agents link again and a continuation succeeds; the late reply of the
    /// first is not taken.
    func testALinkDroppedWhileAFetchThroughAgentsIsPendingTimesOutAndRecovers() throws {
        let (a, offering, continuing) = try probes(streams: false)
        try a.run(inNetwork: ["/usr/sbin/ip", "link", "set", "veth0", "down"])
        continuing.send("continue 3")
        let timedOut = CocoaError.Code.userActivityRemoteApplicationTimedOut.rawValue
        XCTAssertNotNil(continuing.waitForLine(containing: "failed \(timedOut)", timeout: 30), continuing.output)
        offering.send("ping")
        continuing.send("ping")
        XCTAssertNotNil(offering.waitForLine(containing: "pong"), offering.output)
        XCTAssertNotNil(continuing.waitForLine(containing: "pong"), continuing.output)

        try a.run(inNetwork: ["/usr/sbin/ip", "link", "set", "veth0", "up"])
        continuing.send("continue 20")
        XCTAssertNotNil(continuing.waitForLine(containing: "continued Probe", timeout: 40), continuing.output + "\non A:\n" + offering.output)
        XCTAssertEqual(continuing.output.components(separatedBy: "continued Probe").count - 1, 1, "the late reply was not taken")
    }

    /// Continues A's activity from B's probe once more and waits until it is continued.
    private func continueAgain(_ continuing: RunningProcess, _ offering: RunningProcess) {
        continuing.send("continue 20")
        XCTAssertNotNil(continuing.waitForLine(containing: "continued Probe", occurrence: 2, timeout: 40),
                        continuing.output + "\non A:\n" + offering.output)
    }
}
