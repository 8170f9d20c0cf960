import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest
@testable import BatonAgent

/// batond as its host runs it: one agent per user (a second says so and exits), started by
/// systemd's socket activation (`systemd-socket-activate`, the same protocol the
/// `batond.socket` user unit uses), or started by the first app that needs it.
final class AgentDaemonTests: AgentTestCase {
    override func tearDownWithError() throws {
        // An agent an app started runs in a session of its own: ended here by the pid in its lock.
        if let root, let names = try? FileManager.default.contentsOfDirectory(atPath: root.path) {
            for lock in names where lock.hasSuffix(".lock") {
                if let text = try? String(contentsOfFile: root.appendingPathComponent(lock).path, encoding: .utf8),
                   let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1 {
                    kill(pid, SIGKILL)
                }
            }
        }
        try super.tearDownWithError()
    }

    /// What this test reads of `baton status --json`.
    private struct StatusReport: Decodable {
        struct Agent: Decodable { var startedBy: String }
        var agent: Agent?
    }

    func testASecondAgentForTheSameSocketSaysSoAndExitsWithoutTouchingTheFirst() throws {
        let folders = try devices("A")
        let (first, _) = try agent(folders[0], socket: socket("agent.socket"))
        var before = stat()
        XCTAssertEqual(lstat(socket("agent.socket"), &before), 0)
        let second = try runProduct("batond", ["--device", folders[0], "--listen", "127.0.0.1:0", "--socket", socket("agent.socket")], timeout: 30)
        XCTAssertEqual(second.status, AgentAutostart.alreadyRunningStatus, second.stderr)
        XCTAssertTrue(second.stderr.contains("already running for this user (pid \(first.processIdentifier),"), second.stderr)
        var after = stat()
        XCTAssertEqual(lstat(socket("agent.socket"), &after), 0, "the first agent's socket is still there")
        XCTAssertEqual(before.st_ino, after.st_ino, "and was not replaced")
        XCTAssertTrue(first.isRunning)
        // The first agent still answers: an app joins it.
        _ = try app("baton-reader", socket: socket("agent.socket"), ["--read", "1"])
    }

    func testTheAgentRefusesARuntimeDirectoryOthersCanEnter() throws {
        let folders = try devices("A")
        let open = root.appendingPathComponent("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
        chmod(open.path, 0o755)
        let result = try runProduct("batond", ["--device", folders[0], "--listen", "127.0.0.1:0", "--socket", open.appendingPathComponent("agent.socket").path], timeout: 30)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains(open.path) && result.stderr.contains("755"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: open.appendingPathComponent("agent.socket").path))
    }

    /// systemd listens, and starts batond on the first connection with the socket as fd 3
    /// (LISTEN_FDS): the agent serves on it without binding its own, and does not remove it
    /// when it stops (systemd keeps it, and queues connections while the agent restarts).
    func testSocketActivationServesOnTheSocketSystemdPasses() throws {
        let activate = URL(fileURLWithPath: "/usr/bin/systemd-socket-activate")
        guard FileManager.default.isExecutableFile(atPath: activate.path) else {
            throw XCTSkip("systemd-socket-activate is not installed (scripts/install-deps.sh installs systemd)")
        }
        let folders = try devices("A", "B")
        let path = socket("agent.socket")
        let (_, address) = try agent(folders[1], socket: socket("b.sock"))
        let activator = try start(activate.path, ["--listen=\(path)", "--fdname=agent", productURL("batond").path,
                                                  "--device", folders[0], "--local", "--socket", path, "--peer", address])
        // systemd-socket-activate's own words; the agent it starts has systemd's socket as its
        // descriptor 3, so no diagnostics pipe: its apps' events and `baton status` speak for it.
        XCTAssertNotNil(activator.waitForLine(containing: "Listening on"), activator.output)
        var bound = stat()
        XCTAssertEqual(lstat(path, &bound), 0)
        // The first app's connection starts the agent.
        let reader = try app("baton-reader", socket: path, ["--read", "2"])
        // It serves on systemd's socket: `baton status --json` says who started it.
        let status = try runProduct("baton", ["status", "--json", "--agent", path], timeout: 30)
        XCTAssertEqual(status.status, 0, status.stderr)
        let report = try JSONDecoder().decode(StatusReport.self, from: Data(status.stdout.utf8))
        XCTAssertEqual(report.agent?.startedBy, "systemd", status.stdout + activator.output)
        let watcher = try app("baton-reader", socket: socket("b.sock"), ["--continue-nearby"])
        // What Reader shows its user: the article restored.
        XCTAssertNotNil(watcher.waitForLine(containing: "restoreUserActivityState: article 2"), watcher.output)
        var served = stat()
        XCTAssertEqual(lstat(path, &served), 0)
        XCTAssertEqual(bound.st_ino, served.st_ino, "the agent did not bind a socket of its own")
        XCTAssertEqual(reader.waitForExit(timeout: 30), 0, reader.output)
    }

    /// No agent runs and no systemd listens: the first app that joins the user's agent starts
    /// one (batond beside it, in a session of its own), and it serves the app.
    func testTheFirstAppThatNeedsTheAgentStartsIt() throws {
        let folders = try devices("A")
        let config = root.appendingPathComponent("config")
        try FileManager.default.createDirectory(at: config.appendingPathComponent("baton"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: folders[0], toPath: config.appendingPathComponent("baton/device").path)
        let path = socket("agent.socket")
        var environment = ProcessInfo.processInfo.environment
        environment["BATON_AGENT_SOCKET"] = path
        environment["XDG_CONFIG_HOME"] = config.path
        let reader = try start("baton-reader", ["--agent", path, "--read", "9"], environment: environment)
        // The agent is the app's child, out of the test's reach: the app publishes that it joined.
        XCTAssertTrue(reader.waitForJoinedAgent(at: path), reader.output)
        let lock = try String(contentsOfFile: path + ".lock", encoding: .utf8)
        let pid = try XCTUnwrap(Int32(lock.trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(kill(pid, 0), 0, "the agent runs")
        XCTAssertEqual(getsid(pid), pid, "in a session of its own: the app's end does not end it")
        reader.terminate()
        reader.waitForExit(timeout: 10)
        XCTAssertEqual(kill(pid, 0), 0, "the agent outlives the app that started it")
        let log = try String(contentsOfFile: path + ".log", encoding: .utf8)
        XCTAssertFalse(log.contains("error"), log)
    }
}
