import BatonAgent
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// `baton status` and `baton agent start|stop|restart` against real agents on loopback, and
/// `batond`'s `--config`, `--device` and `--local`. (The network default is checked in test
/// hosts: `AgentsBetweenHostsTests`.)
final class AgentStatusTests: AgentTestCase {
    /// Agents started by `baton agent start` here: not children of the test, so ended by pid.
    private var startedAgents: [Int32] = []

    override func tearDownWithError() throws {
        for pid in startedAgents { kill(pid, SIGKILL) }
        try super.tearDownWithError()
    }

    /// Whether `pid` has exited: gone, or a zombie nobody reaped yet (its parent, `baton agent
    /// start`, has exited, and a container's first process may not reap).
    private func hasExited(_ pid: Int32) -> Bool {
        guard kill(pid, 0) == 0, let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
    }

    private struct Report: Decodable {
        var running: Bool
        var socket: String
        var autostartProgram: String
        var agent: AgentStatus?
    }

    private func status(_ socket: String, environment: [String: String]? = nil) throws -> (status: Int32, report: Report) {
        let result = try runProduct("baton", ["status", "--json", "--agent", socket], environment: environment, timeout: 30)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let report = try decoder.decode(Report.self, from: Data(result.stdout.utf8))
        return (result.status, report)
    }

    func testStatusShowsTheAgentItsListenerDiscoveryLinksAndNoSelf() throws {
        let (agentA, _, _) = try twoLinkedAgents()
        let (exit, report) = try status(socket("a.sock"))
        XCTAssertEqual(exit, 0)
        XCTAssertTrue(report.running)
        let agent = try XCTUnwrap(report.agent)
        XCTAssertEqual(agent.processID, agentA.processIdentifier)
        XCTAssertEqual(agent.device, "A")
        XCTAssertEqual(agent.group, "Ada")
        XCTAssertEqual(agent.version, BatonVersion.current)
        XCTAssertEqual(agent.startedBy, "command")
        XCTAssertEqual(agent.socket, socket("a.sock"))
        XCTAssertEqual(URL(fileURLWithPath: agent.program).lastPathComponent, "batond")
        XCTAssertEqual(agent.listening.host, "127.0.0.1")
        XCTAssertEqual(agent.listening.reach, "loopback")
        XCTAssertNotEqual(agent.listening.port, 0)
        // On loopback there is nothing to publish, and the status says so rather than nothing.
        XCTAssertEqual(agent.discovery.state, "loopback-only")
        XCTAssertFalse(agent.discovery.working)
        XCTAssertEqual(agent.links.map(\.device), ["B"])
        XCTAssertEqual(agent.links.first?.address, "127.0.0.1")
        XCTAssertEqual(agent.links.first?.dialedByThisDevice, false, "B dialed A")
        XCTAssertEqual(agent.apps, [], "the command's own connection is not listed")
        // The text form says the same in words.
        let text = try runProduct("baton", ["status", "--agent", socket("a.sock")], timeout: 30)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("link: B at 127.0.0.1"), text.stdout)
        XCTAssertTrue(text.stdout.contains("discovery: NOT WORKING"), text.stdout)
    }

    /// Each link's path and round trip (one ping over it, measured as the agent answers), in
    /// JSON and in words; a linked device that does not answer within the deadline (here its
    /// agent is stopped with SIGSTOP, so its link stays up) shows "—" and no time.
    func testStatusShowsEachLinksRoundTripAndPathAndADashForADeviceThatDoesNotAnswer() throws {
        let (agentA, agentB, _) = try twoLinkedAgents()
        XCTAssertTrue(agentA.waitFor(.linked(peer: "B", dialed: false)), agentA.output)
        var link = try XCTUnwrap(try status(socket("a.sock")).report.agent?.links.first)
        XCTAssertEqual(link.device, "B")
        XCTAssertEqual(link.path, .lan)
        XCTAssertEqual(link.droppedStreamBytes, 0)
        XCTAssertGreaterThan(try XCTUnwrap(link.roundTripMilliseconds, "B answered its ping"), 0)
        var text = try runProduct("baton", ["status", "--agent", socket("a.sock")], timeout: 30)
        XCTAssertTrue(text.stdout.contains("link: B at 127.0.0.1 (local network), for "), text.stdout)
        XCTAssertTrue(text.stdout.contains(" ms\n"), "the round trip in words: \(text.stdout)")

        XCTAssertEqual(kill(agentB.processIdentifier, SIGSTOP), 0)
        defer { kill(agentB.processIdentifier, SIGCONT) }
        link = try XCTUnwrap(try status(socket("a.sock")).report.agent?.links.first, "B is still linked, only silent")
        XCTAssertNil(link.roundTripMilliseconds, "B did not answer within the deadline")
        text = try runProduct("baton", ["status", "--agent", socket("a.sock")], timeout: 30)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("round trip —\n"), text.stdout)
    }

    /// `baton nearby` (which asks the status when nothing is nearby, to say why) and `baton
    /// agent stop` (which asks it for the agent's process) show no round trips, so the agent
    /// pings no link for them: a linked device that does not answer (its agent stopped with
    /// SIGSTOP) does not hold them up. Only `baton status` pings (`roundTripsMeasured`). The
    /// agent's events come in order: none before `nearby`'s leaving means it asked for none.
    func testNearbyAndAgentStopDoNotPingASilentDevice() throws {
        let (agentA, agentB, _) = try twoLinkedAgents()
        XCTAssertTrue(agentA.waitFor(.linked(peer: "B", dialed: false)), agentA.output)
        XCTAssertEqual(kill(agentB.processIdentifier, SIGSTOP), 0)
        defer { kill(agentB.processIdentifier, SIGCONT) }
        let pinged = { (event: DiagnosticEvent) -> Bool in if case .roundTripsMeasured = event { true } else { false } }

        let nearby = try runProduct("baton", ["nearby", "--agent", socket("a.sock")], timeout: 30)
        XCTAssertEqual(nearby.status, 0, nearby.stderr)
        XCTAssertTrue(nearby.stdout.contains("nothing nearby"), nearby.stdout)
        XCTAssertFalse(nearby.stdout.contains("no device of the group is linked"), "B is linked, only silent: \(nearby.stdout)")
        XCTAssertNotNil(agentA.waitForEvent { if case .appLeft = $0 { true } else { false } }, "`baton nearby` left the agent")
        XCTAssertFalse(agentA.diagnosticEvents.contains(where: pinged), "`baton nearby` pinged no link: \(agentA.diagnosticEvents)")

        let link = try XCTUnwrap(try status(socket("a.sock")).report.agent?.links.first, "B is still linked")
        XCTAssertNil(link.roundTripMilliseconds, "B did not answer within the deadline")
        XCTAssertEqual(agentA.waitForEvent(where: pinged), .roundTripsMeasured(links: 1, answered: 0),
                       "the first ping is `baton status`'s, not `baton nearby`'s")

        let stop = try runProduct("baton", ["agent", "stop", "--agent", socket("a.sock")], timeout: 30)
        XCTAssertEqual(stop.status, 0, stop.stderr)
        XCTAssertTrue(stop.stdout.contains("stopped batond (pid \(agentA.processIdentifier))"), stop.stdout)
        agentA.waitForExit()
        XCTAssertNil(agentA.waitForEvent(occurrence: 2, where: pinged), "`baton agent stop` pinged no link: \(agentA.diagnosticEvents)")
    }

    /// Nothing nearby and no device linked: `baton nearby` says why instead of nothing.
    func testNearbyWithNoLinkSaysWhyNothingIsOffered() throws {
        let folders = try devices("A")
        _ = try agent(folders[0], socket: socket("a.sock"))
        let nearby = try runProduct("baton", ["nearby", "--agent", socket("a.sock")], timeout: 30)
        XCTAssertEqual(nearby.status, 0, nearby.stderr)
        XCTAssertTrue(nearby.stdout.contains("nothing nearby"), nearby.stdout)
        XCTAssertTrue(nearby.stdout.contains("no device of the group is linked: discovery is off: the device listens on loopback only"), nearby.stdout)
    }

    func testStatusOfNoAgentExitsWithThreeAndNamesWhatAnAppWouldStart() throws {
        let (exit, report) = try status(socket("none.sock"), environment: ["BATOND": "/opt/elsewhere/batond", "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(exit, 3)
        XCTAssertFalse(report.running)
        XCTAssertNil(report.agent)
        XCTAssertEqual(report.autostartProgram, "/opt/elsewhere/batond ($BATOND)")
    }

    /// A configuration folder as `baton` and `batond --config` take it: the device's identity
    /// in `device/`, and `agent.conf` saying to listen on loopback.
    private func configurationFolder() throws -> URL {
        let folder = try devices("A")[0]
        let config = root.appendingPathComponent("config/baton")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: folder, toPath: config.appendingPathComponent("device").path)
        try "[Agent]\nListen=127.0.0.1:0\nNotifications=false\n".write(to: config.appendingPathComponent("agent.conf"), atomically: true, encoding: .utf8)
        return config
    }

    func testAgentStopStartAndRestartWithoutSystemd() throws {
        let config = try configurationFolder()
        let environment = ["XDG_CONFIG_HOME": config.deletingLastPathComponent().path, "BATOND": productURL("batond").path,
                           "PATH": "/usr/bin:/bin", "HOME": root.path]
        let sock = socket("agent.sock")
        // start: runs the program an app would (here $BATOND), which reads agent.conf.
        let started = try runProduct("baton", ["agent", "start", "--agent", sock], environment: environment, timeout: 30)
        XCTAssertEqual(started.status, 0, started.stderr)
        var report = try status(sock, environment: environment).report
        let first = try XCTUnwrap(report.agent)
        startedAgents.append(first.processID)
        XCTAssertEqual(first.startedBy, "autostart")
        XCTAssertEqual(first.listening.reach, "loopback", "Listen= of agent.conf")
        // start again: it runs already, and stays the same process.
        let again = try runProduct("baton", ["agent", "start", "--agent", sock], environment: environment, timeout: 30)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("already runs"), again.stdout)
        // restart: a new process.
        let restarted = try runProduct("baton", ["agent", "restart", "--agent", sock], environment: environment, timeout: 30)
        XCTAssertEqual(restarted.status, 0, restarted.stderr)
        XCTAssertTrue(hasExited(first.processID), "the first agent has exited")
        report = try status(sock, environment: environment).report
        let second = try XCTUnwrap(report.agent)
        startedAgents.append(second.processID)
        XCTAssertNotEqual(second.processID, first.processID)
        // stop: returns once the agent has exited.
        let stopped = try runProduct("baton", ["agent", "stop", "--agent", sock], environment: environment, timeout: 30)
        XCTAssertEqual(stopped.status, 0, stopped.stderr)
        XCTAssertTrue(hasExited(second.processID), "the agent exited before stop returned")
        let after = try status(sock, environment: environment)
        XCTAssertEqual(after.status, 3)
        XCTAssertFalse(after.report.running)
        let none = try runProduct("baton", ["agent", "stop", "--agent", sock], environment: environment, timeout: 30)
        XCTAssertEqual(none.status, 0, "stopping no agent is no error")
    }

    func testAStoppedAgentStartedByTheTestExitsAtOnce() throws {
        let folders = try devices("A")
        let (agentA, _) = try agent(folders[0], socket: socket("a.sock"))
        let stopped = try runProduct("baton", ["agent", "stop", "--agent", socket("a.sock")], timeout: 30)
        XCTAssertEqual(stopped.status, 0, stopped.stderr)
        XCTAssertEqual(agentA.waitForExit(timeout: 10), 0, agentA.output)
    }

    func testConfigMeansTheConfigurationFolderForBatondAsForBaton() throws {
        let config = try configurationFolder()
        // The identity folder itself, given as --config, is refused with the right advice.
        let wrong = try runProduct("batond", ["--config", config.appendingPathComponent("device").path, "--socket", socket("w.sock")], timeout: 30)
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("--device"), wrong.stderr)
        // The configuration folder: its agent.conf (Listen=127.0.0.1:0) and device/ are used.
        let agent = try start("batond", ["--config", config.path, "--socket", socket("c.sock")])
        XCTAssertNotNil(agent.listeningAddress(), agent.output)
        let status = try XCTUnwrap(try self.status(socket("c.sock")).report.agent)
        XCTAssertEqual(status.device, "A")
        XCTAssertEqual(status.identityFolder, config.appendingPathComponent("device").path)
        XCTAssertEqual(status.listening.host, "127.0.0.1", "Listen= of the folder's agent.conf")
        XCTAssertEqual(status.discovery.state, "loopback-only")
    }

    func testLocalListensOnLoopbackAndIsNotGivenWithListen() throws {
        let folders = try devices("A")
        let both = try runProduct("batond", ["--device", folders[0], "--local", "--listen", "127.0.0.1:0", "--socket", socket("b.sock")], timeout: 30)
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.stderr.contains("--listen or --local"), both.stderr)
        let agent = try start("batond", ["--device", folders[0], "--local", "--socket", socket("l.sock")])
        XCTAssertEqual(agent.listeningAddress()?.host, "127.0.0.1", agent.output)
    }

    /// The agent program is the same whichever app starts it: `$BATOND`, else the installed
    /// one on `PATH`, else the one beside the app (a build folder).
    func testAutostartPrefersTheInstalledAgentToTheOneBesideTheApp() throws {
        let bin = root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let installed = bin.appendingPathComponent("batond")
        try "#!/bin/sh\nexit 0\n".write(to: installed, atomically: true, encoding: .utf8)
        chmod(installed.path, 0o755)
        let binPath = bin.path, emptyPath = root.appendingPathComponent("empty").path
        let onPath = MainActor.assumeIsolated { AgentAutostart.choice(environment: ["PATH": "relative:\(binPath):/usr/bin"]) }
        XCTAssertEqual(onPath.program, installed.path)
        let explicit = MainActor.assumeIsolated { AgentAutostart.choice(environment: ["PATH": binPath, "BATOND": "/x/batond"]) }
        XCTAssertEqual(explicit.program, "/x/batond")
        let beside = MainActor.assumeIsolated { AgentAutostart.choice(environment: ["PATH": emptyPath]) }
        // Under XCTest the running program is the test bundle's runner, beside which the build put batond.
        XCTAssertEqual(URL(fileURLWithPath: beside.program).resolvingSymlinksInPath(), productURL("batond").resolvingSymlinksInPath(),
                       beside.reason)
    }

    /// With systemd's user units, `baton agent` goes through `systemctl --user` so systemd and
    /// the agent never disagree. A systemd user manager cannot run here, so a stand-in
    /// `systemctl` on `PATH` says the units are loaded and records what it is asked; the agent
    /// itself is socket-activated for real (`systemd-socket-activate`, as `batond.socket` does).
    func testWithSystemdUnitsStartAndStopGoThroughSystemctl() throws {
        let activate = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
        guard FileManager.default.isExecutableFile(atPath: activate.path) else {
            throw XCTSkip("systemd-socket-activate is not installed (scripts/install-deps.sh installs systemd)")
        }
        let runtime = root.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime.appendingPathComponent("baton"), withIntermediateDirectories: true)
        chmod(runtime.path, 0o700)
        chmod(runtime.appendingPathComponent("baton").path, 0o700)
        let bin = root.appendingPathComponent("bin"), calls = root.appendingPathComponent("systemctl-calls")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let standIn = bin.appendingPathComponent("systemctl")
        try """
            #!/bin/sh
            echo "$*" >> '\(calls.path)'
            case "$*" in *show*LoadState*) echo loaded ;; esac
            exit 0
            """.write(to: standIn, atomically: true, encoding: .utf8)
        chmod(standIn.path, 0o755)
        let environment = ["XDG_RUNTIME_DIR": runtime.path, "PATH": "\(bin.path):/usr/bin:/bin", "HOME": root.path]

        // No agent: start goes through the units.
        let started = try runProduct("baton", ["agent", "start"], environment: environment, timeout: 30)
        XCTAssertEqual(started.status, 0, started.stderr)
        var asked = try String(contentsOf: calls, encoding: .utf8)
        XCTAssertTrue(asked.contains("--user start batond.socket batond.service"), asked)

        // An agent systemd started (socket activation): stop goes through the units too.
        let folders = try devices("A")
        let path = runtime.appendingPathComponent("baton/agent.socket").path
        let activator = try start(activate.path, ["--listen=\(path)", "--fdname=agent", productURL("batond").path,
                                                  "--device", folders[0], "--local", "--socket", path])
        XCTAssertNotNil(activator.waitForLine(containing: "Listening on"), activator.output)
        let status = try runProduct("baton", ["status", "--json"], environment: environment, timeout: 30)
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("\"startedBy\" : \"systemd\""), status.stdout)
        let stopped = try runProduct("baton", ["agent", "stop"], environment: environment, timeout: 30)
        XCTAssertEqual(stopped.status, 0, stopped.stderr)
        asked = try String(contentsOf: calls, encoding: .utf8)
        XCTAssertTrue(asked.contains("--user stop batond.socket batond.service"), asked)
        XCTAssertTrue(activator.isRunning, "systemd, not baton, stops a unit's agent")
    }

}
