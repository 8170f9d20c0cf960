import BatonAgent
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 25's check: the README's quick start for two machines, word for word, on two test
/// hosts (network namespaces, each with its own system bus and a stock avahi-daemon), with no
/// `agent.conf` and no `peers` file. Desk makes the group and opens a pairing window in its
/// agent; the laptop finds it through DNS-SD, joins with the code and starts its agent; the
/// agents find each other through Avahi; the laptop lists the desk's Reader article and
/// `baton continue` launches its own Reader, which restores the article. Needs root (CI).
final class QuickStartBetweenHostsTests: AgentTestHostsCase {

    /// A person's session on one machine: a home with its XDG folders (nothing in them), a
    /// private runtime folder, and the build's programs (`$BATOND`, as on a machine where
    /// `make install` put batond on the PATH).
    private func session(_ name: String) throws -> [String] {
        let home = root.appendingPathComponent(name)
        let runtime = home.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        chmod(runtime.path, 0o700)
        return ["/usr/bin/env", "-u", "DBUS_SESSION_BUS_ADDRESS", "HOME=\(home.path)", "XDG_CONFIG_HOME=\(home.path)/.config",
                "XDG_DATA_HOME=\(home.path)/.local/share", "XDG_STATE_HOME=\(home.path)/.local/state",
                "XDG_DATA_DIRS=\(home.path)/no-system-apps", "XDG_RUNTIME_DIR=\(runtime.path)",
                "BATOND=\(productURL("batond").path)", "PATH=/usr/bin:/bin"]
    }

    private func run(in host: TestHost, _ session: [String], _ command: [String]) throws -> RunningProcess {
        let process = try host.start(session + command)
        processes.append(process)
        return process
    }

    func testTheQuickStartHandsAnArticleFromOneMachineToTheOther() throws {
        let baton = productURL("baton").path
        let desk = try session("desk"), laptop = try session("laptop")
        // The hosts' first processes wait; every command runs in them as a person would type it.
        let (a, b) = try TestHost.pair(["/bin/sh", "-c", "read -r end"], ["/bin/sh", "-c", "read -r end"])
        hosts = [a, b]

        // Desk: the group, its own identity, its agent, a pairing window (in the agent).
        for command in [["group", "create", "Ada"], ["device", "add", "desk", "--install"], ["agent", "start"]] {
            let step = try run(in: a, desk, [baton] + command)
            XCTAssertEqual(step.waitForExit(), 0, "\(command): \(step.output)")
        }
        // The window is the agent's (started by `baton agent start`, out of the test's reach):
        // what the person at the desk reads of it is what this step checks.
        let window = try run(in: a, desk, [baton, "pair", "--accept"])
        XCTAssertNotNil(window.waitForLine(containing: "pairing window open on"), window.output)

        // Laptop: joins with the code it finds through DNS-SD, then starts its agent.
        let newcomer = try run(in: b, laptop, [baton, "pair", "--name", "laptop"])
        let shown = try XCTUnwrap(newcomer.pairingCode(onWindow: false), newcomer.output)
        XCTAssertNotNil(window.waitForLine(containing: "wants to join group 'Ada': code \(shown)"), "\(window.output)\n\(newcomer.output)")
        window.send("y")
        newcomer.send("y")
        XCTAssertEqual(newcomer.waitForExit(), 0, newcomer.output)
        XCTAssertTrue(newcomer.waitFor(.joinedGroup(group: "Ada", device: "laptop")), newcomer.output)
        // What the laptop's person reads: its agent runs now.
        XCTAssertTrue(newcomer.output.contains("started the agent"), newcomer.output)
        XCTAssertEqual(window.waitForExit(), 0, window.output)

        // Laptop: the examples installed as `make install-examples` does (their launch form:
        // no mode, joining the agent that starts them); its agent links with the desk's through Avahi.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../scripts/install-examples.sh")
            .standardizedFileURL.path
        let install = try run(in: b, laptop, ["/bin/bash", script, productURL("baton").deletingLastPathComponent().path])
        XCTAssertEqual(install.waitForExit(), 0, install.output)

        // Desk: reading an article, as the README says (it joins the user's agent).
        let article = try run(in: a, desk, [productURL("baton-reader").path, "--read", "7", "--page", "3"])
        // Reader publishes that it joined (its agent is out of the test's reach); then what each command prints for its user.
        XCTAssertTrue(article.waitForJoinedAgent(), article.output)

        // Laptop: the article is nearby, and continuing it launches the Reader, which restores it.
        let nearby = try run(in: b, laptop, [baton, "nearby", "--watch"])
        XCTAssertNotNil(nearby.waitForLine(containing: "com.example.reader"), nearby.output)
        nearby.terminate()
        let status = try run(in: b, laptop, [baton, "status"])
        XCTAssertEqual(status.waitForExit(), 0, status.output)
        XCTAssertTrue(status.output.contains("link: desk at 10.77.0.1"), status.output)
        XCTAssertTrue(status.output.contains("listening: every interface"), status.output)
        let continued = try run(in: b, laptop, [baton, "continue"])
        XCTAssertEqual(continued.waitForExit(), 0, continued.output)
        XCTAssertTrue(continued.output.contains("from desk in com.example.reader"), continued.output)
        XCTAssertNotNil(article.waitForLine(containing: "userActivityWasContinued"), article.output)
        // The launched Reader restored the article once; its output is in its log.
        let log = root.appendingPathComponent("laptop/.local/state/baton/apps/com.example.reader.log")
        let launched = try run(in: b, laptop, ["/usr/bin/tail", "-n", "+1", "-f", log.path])
        XCTAssertNotNil(launched.waitForLine(containing: "restoreUserActivityState: article 7, page 3"), launched.output)
        launched.terminate()
        XCTAssertEqual(launched.output.components(separatedBy: "restoreUserActivityState").count - 1, 1, launched.output)

        // Neither machine has a settings file or a peers file: nothing was edited by hand.
        for home in ["desk", "laptop"] {
            let config = root.appendingPathComponent("\(home)/.config/baton")
            XCTAssertFalse(FileManager.default.fileExists(atPath: config.appendingPathComponent("agent.conf").path))
            XCTAssertFalse(FileManager.default.fileExists(atPath: config.appendingPathComponent("peers").path))
        }
        for session in [desk, laptop] {
            let stop = try run(in: session == desk ? a : b, session, [baton, "agent", "stop"])
            XCTAssertEqual(stop.waitForExit(), 0, stop.output)
        }
    }
}
