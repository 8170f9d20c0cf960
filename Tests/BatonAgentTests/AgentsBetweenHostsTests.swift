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
    /// test); returns once it has joined the host's agent: the app's `joinedAgent`, published
    /// once it has taken the agent's answer (the agent's `appJoined` comes before it).
    private func app(in host: TestHost, _ command: [String]) throws -> RunningProcess {
        let joined = host.process.diagnosticEvents.filter { if case .appJoined = $0 { true } else { false } }.count
        let process = try host.start(command)
        processes.append(process)
        XCTAssertTrue(process.waitForJoinedAgent(), process.output + host.process.output)
        XCTAssertTrue(host.process.waitForAppJoined(occurrence: joined + 1), process.output + host.process.output)
        return process
    }

    /// How many times `process` published an event that `matches`.
    private func count(_ process: RunningProcess, _ matches: (DiagnosticEvent) -> Bool) -> Int {
        process.diagnosticEvents.filter(matches).count
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
        XCTAssertTrue(b.process.waitForNearby(from: "A"), continuer.output + b.process.output)
        // What Shapes shows its user: the shape restored from the payload.
        XCTAssertNotNil(continuer.waitForLine(containing: "restoreUserActivityState: created a triangle"), continuer.output)
        XCTAssertTrue(a.process.waitForContinuedElsewhere(), creator.output + a.process.output)
        XCTAssertEqual(creator.waitForExit(), 0, creator.output)
        XCTAssertEqual(continuer.waitForExit(), 0, continuer.output)
        // No static peers: the agents found each other through Avahi. Most often only one
        // dials (the one whose service name sorts first, or the one that found the other
        // before its first browse settled, whose link then reaches the other before it dials).
        // Both dial when each finds the other before the other's link has come (a slow
        // handshake on a loaded machine): then each keeps the same one of the two connections
        // (the last told linked) and neither drops a link. Either way, one link, the same on
        // both sides.
        let agents = a.process.output + b.process.output
        XCTAssertEqual(count(a.process) { if case .deviceFound(let at) = $0 { at.hasPrefix("10.77.0.") } else { false } }
                       + count(b.process) { if case .deviceFound(let at) = $0 { at.hasPrefix("10.77.0.") } else { false } } > 0, true, agents)
        let dials = count(a.process) { if case .linked(_, dialed: true) = $0 { true } else { false } }
            + count(b.process) { if case .linked(_, dialed: true) = $0 { true } else { false } }
        XCTAssertTrue((1...2).contains(dials), agents)
        var kept: [Bool] = []
        for agent in [a.process, b.process] {
            let linked = agent.diagnosticEvents.compactMap { if case .linked(_, let dialed) = $0 { dialed } else { nil } }
            // A connection that arrives after the one kept is not told linked.
            XCTAssertTrue((1...max(1, dials)).contains(linked.count), "a link for each connection kept when it came: \(agent.output)")
            XCTAssertEqual(count(agent) { if case .unlinked = $0 { true } else { false } }, 0, "no link dropped: \(agent.output)")
            kept += linked.suffix(1)
        }
        XCTAssertEqual(Set(kept), [true, false], "both sides keep the same connection: \(agents)")
    }

    /// Probes joined to the agents of hosts A (offering) and B (continuing): B's probe sees
    /// A's activity, through agents that found each other through Avahi.
    private func probes(streams: Bool) throws -> (a: TestHost, b: TestHost, offering: RunningProcess, continuing: RunningProcess) {
        let folders = try devices("A", "B")
        let (a, b) = try startHosts(folders)
        let probe = productURL("DeviceProbe").path
        let offering = try app(in: a, [probe, "unused", "--ok", "--agent", socket("a.sock")] + (streams ? ["--streams"] : []))
        let continuing = try app(in: b, [probe, "unused", "--ok", "--agent", socket("b.sock")])
        XCTAssertTrue(b.process.waitForNearby(from: "A"), continuing.output + b.process.output)
        // The app's own list, which the probe prints as it changes: `continue` takes from it.
        XCTAssertNotNil(continuing.waitForLine(containing: "nearby A"), continuing.output + b.process.output)
        return (a, b, offering, continuing)
    }

    /// handoff-programming-guide, "Using Continuation Streams", through agents, with the link
    /// between the hosts taken down while a large answer is streaming: the continuing app's
    /// stream ends with an error (the agents' dead-peer detection, about 20 s), never as if it
    /// had ended, and never hangs; both apps keep running; once the link is back, the agents
    /// link again and a continuation works.
    func testALinkDroppedMidStreamThroughAgentsEndsTheStreamWithAnErrorAndRecovers() throws {
        let (a, b, offering, continuing) = try probes(streams: true)
        continuing.send("continue 10")
        XCTAssertTrue(b.process.waitForContinued(from: "A"), continuing.output + b.process.output)
        continuing.send("streams \(4 * 1024 * 1024 * 1024)")
        // The probe's answers to its commands (its protocol on standard output, not a log).
        XCTAssertNotNil(continuing.waitForLine(containing: "stream receiving"),
                        continuing.output + "\non B's agent:\n" + b.process.output + "\non A:\n" + offering.output + "\non A's agent:\n" + a.process.output)
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
        XCTAssertTrue(b.process.waitForWithdrawal(from: "A"), b.process.output)
        let seen = continuing.output.components(separatedBy: "nearby A").count - 1
        try a.run(inNetwork: ["/usr/sbin/ip", "link", "set", "veth0", "up"])
        XCTAssertTrue(b.process.waitForNearby(from: "A", occurrence: 2, timeout: 90), b.process.output)
        // The app's own list (the probe prints it as it changes): `continue` takes from it.
        XCTAssertNotNil(continuing.waitForLine(containing: "nearby A", occurrence: seen + 1, timeout: 30), continuing.output)
        continueAgain(b, continuing, offering)
    }

    /// A link dropped while a fetch is pending through the agents: the continuing app's
    /// continuation ends in didFailToContinue within its bound (remote application timed out:
    /// nothing tells a device that a cable was pulled), both apps keep running, and once the
    /// link is back the agents link again and a continuation succeeds; the late reply of the
    /// first is not taken.
    func testALinkDroppedWhileAFetchThroughAgentsIsPendingTimesOutAndRecovers() throws {
        let (a, b, offering, continuing) = try probes(streams: false)
        try a.run(inNetwork: ["/usr/sbin/ip", "link", "set", "veth0", "down"])
        continuing.send("continue 3")
        let timedOut = CocoaError.Code.userActivityRemoteApplicationTimedOut.rawValue
        // The probe's report of its delegate's didFailToContinueUserActivityWithType and the code it got;
        // `ping` is answered `pong` (the probe's protocol): both apps still run.
        XCTAssertNotNil(continuing.waitForLine(containing: "failed \(timedOut)", timeout: 30), continuing.output)
        offering.send("ping")
        continuing.send("ping")
        XCTAssertNotNil(offering.waitForLine(containing: "pong"), offering.output)
        XCTAssertNotNil(continuing.waitForLine(containing: "pong"), continuing.output)

        try a.run(inNetwork: ["/usr/sbin/ip", "link", "set", "veth0", "up"])
        continuing.send("continue 20")
        XCTAssertTrue(b.process.waitForContinued(from: "A", timeout: 40), continuing.output + "\non A:\n" + offering.output)
        XCTAssertEqual(count(b.process) { if case .continued = $0 { true } else { false } }, 1,
                       "the late reply was not taken: \(b.process.output)")
    }

    /// Continues A's activity from B's probe once more and waits until B's agent has continued it.
    private func continueAgain(_ b: TestHost, _ continuing: RunningProcess, _ offering: RunningProcess) {
        continuing.send("continue 20")
        XCTAssertTrue(b.process.waitForContinued(from: "A", occurrence: 2, timeout: 40),
                      continuing.output + "\non A:\n" + offering.output)
    }
}
