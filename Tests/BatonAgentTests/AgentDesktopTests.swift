import BatonLoop
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest
@testable import BatonAgent

/// The continuing device as a person lives it, with real agents: Mail is installed on B
/// (`baton app install`, into the test's own XDG data folder) but not running; B's agent
/// starts it from its desktop entry — for `baton continue`, or when the person clicks
/// Continue on the agent's notification — and Mail restores the draft. A's Mail is told.
final class AgentDesktopTests: AgentTestCase {
    private var inbox: URL { root.appendingPathComponent("inbox") }
    private var dataHome: URL { root.appendingPathComponent("B-data") }
    private var stateHome: URL { root.appendingPathComponent("B-state") }

    /// Devices A and B; Mail composing on A (joined to A's agent); Mail installed on B.
    private func setUpDevices() throws -> (folderB: String, address: String, mailA: RunningProcess, attachment: Data) {
        let folders = try devices("A", "B")
        let file = root.appendingPathComponent("notes.txt")
        let bytes = Data((0..<150_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        try bytes.write(to: file)
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let install = try runProduct("baton", ["app", "install", Self.mailManifest.path, "--name", "Mail", "--exec",
                                               "\(productURL("baton-mail").path) --agent \(socket("b.sock")) --wait --save-to \(inbox.path)"],
                                     environment: environmentB(), timeout: 30)
        XCTAssertEqual(install.status, 0, install.stderr)
        let (_, address) = try agent(folders[0], socket: socket("a.sock"))
        let mailA = try app("baton-mail", socket: socket("a.sock"), ["--compose", "--to", "ada@example.org", "--subject", "Notes",
                                                                      "--body", "Attached.", "--attach", file.path])
        return (folders[1], address, mailA, bytes)
    }

    private static var mailManifest: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/Mail/Manifest/Info.plist")
    }

    /// B's environment: its own XDG data folder and no system ones (nothing of the machine's).
    private func environmentB(bus: String? = nil) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = dataHome.path
        environment["XDG_DATA_DIRS"] = root.appendingPathComponent("no-system-apps").path
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("B-config").path
        environment["XDG_STATE_HOME"] = stateHome.path
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        if let bus { environment["DBUS_SESSION_BUS_ADDRESS"] = bus }
        return environment
    }

    private func agentB(_ folder: String, peer: String, bus: String? = nil) throws -> RunningProcess {
        let process = try start("batond", ["--device", folder, "--listen", "127.0.0.1:0", "--socket", socket("b.sock"), "--peer", peer], environment: environmentB(bus: bus))
        XCTAssertTrue(process.waitForLink(with: "A"), process.output)
        return process
    }

    /// Whether B's agent said a Mail it launched has ended, within `timeout`.
    private static func launchedMailEnded(_ agentB: RunningProcess, timeout: TimeInterval = 60) -> Bool {
        agentB.waitForEvent(timeout: timeout) {
            if case .launchedAppExited("com.example.mail", _, _) = $0 { true } else { false }
        } != nil
    }

    private func assertContinued(_ agentB: RunningProcess, _ mailA: RunningProcess, _ bytes: Data) throws {
        // The launched Mail writes to its log in B's state folder; B's agent says when it has ended.
        XCTAssertTrue(Self.launchedMailEnded(agentB), agentB.output)
        let output = (try? String(contentsOf: stateHome.appendingPathComponent("baton/apps/com.example.mail.log"), encoding: .utf8)) ?? ""
        XCTAssertTrue(output.contains("saved it as"), output)
        XCTAssertEqual(output.components(separatedBy: "launched to continue com.example.mail.compose").count - 1, 1,
                       "one Mail started, told in its launch options what it continues: \(output)")
        XCTAssertTrue(output.contains("restoreUserActivityState: draft \"Notes\" to ada@example.org: Attached."), output)
        XCTAssertEqual(try Data(contentsOf: inbox.appendingPathComponent("notes.txt")), bytes)
        XCTAssertEqual(mailA.waitForExit(timeout: 30), 0, mailA.output)
        XCTAssertTrue(mailA.output.contains("userActivityWasContinued"), mailA.output)
    }

    func testBatonContinueStartsTheInstalledAppFromItsDesktopEntry() throws {
        let (folderB, address, mailA, bytes) = try setUpDevices()
        let agentB = try agentB(folderB, peer: address)
        let noConfig = ["--config", root.appendingPathComponent("no-config").path]
        let watch = try start("baton", ["nearby", "--watch", "--agent", socket("b.sock")] + noConfig)
        XCTAssertTrue(agentB.waitForNearby(from: "A", "com.example.mail.compose"), agentB.output)
        // What `baton nearby --watch` shows its user.
        XCTAssertNotNil(watch.waitForLine(containing: "com.example.mail.compose"), watch.output)
        let continued = try runProduct("baton", ["continue", "--agent", socket("b.sock")] + noConfig, timeout: 60)
        XCTAssertEqual(continued.status, 0, continued.stderr)
        XCTAssertTrue(continued.stdout.contains("from A in com.example.mail"), continued.stdout)
        try assertContinued(agentB, mailA, bytes)
    }

    /// Mail installed on B and already running there (joined to B's agent): `baton continue`
    /// hands the draft to it; no second Mail is started from the desktop entry.
    func testARunningAppGetsTheActivityAndNoSecondOneStarts() throws {
        let (folderB, address, mailA, bytes) = try setUpDevices()
        let agentB = try agentB(folderB, peer: address)
        let running = try app("baton-mail", socket: socket("b.sock"), ["--wait", "--save-to", inbox.path])
        XCTAssertTrue(agentB.waitForNearby(from: "A", "com.example.mail.compose"), agentB.output)
        let continued = try runProduct("baton", ["continue", "--agent", socket("b.sock"), "--config", root.appendingPathComponent("no-config").path],
                                       timeout: 60)
        XCTAssertEqual(continued.status, 0, continued.stderr)
        XCTAssertEqual(running.waitForExit(timeout: 60), 0, running.output)
        XCTAssertTrue(running.output.contains("restoreUserActivityState: draft \"Notes\" to ada@example.org: Attached."), running.output)
        XCTAssertEqual(try Data(contentsOf: inbox.appendingPathComponent("notes.txt")), bytes)
        XCTAssertEqual(mailA.waitForExit(timeout: 30), 0, mailA.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stateHome.appendingPathComponent("baton/apps/com.example.mail.log").path),
                       "no second Mail: \(agentB.output)")
        XCTAssertFalse(Self.launchedMailEnded(agentB, timeout: 0), "no second Mail: \(agentB.output)")
    }

    /// On a desktop session: B's agent posts "Continue … from A" to the session's notification
    /// server — here the test's own stand-in on a private bus, not a desktop's — and the click
    /// (with the activation token the server sends first) starts Mail, which continues.
    func testClickingContinueOnTheNotificationStartsTheApp() throws {
        let (folderB, address, mailA, bytes) = try setUpDevices()
        let busAddress = "unix:path=\(root.path)/bus"
        _ = try start("/usr/bin/dbus-daemon", ["--session", "--nofork", "--print-address", "--address=\(busAddress)"])
        // The agent starts before the server: it posts once the name has an owner.
        let agentB = try self.agentB(folderB, peer: address, bus: busAddress)
        try MainActor.assumeIsolated {
            let server = try NotificationServerStandIn(address: busAddress)
            defer { server.close() }
            spin(until: { server.notifications.contains { $0.summary == "Continue Editing Mail from A" } })
            let posted = try XCTUnwrap(server.notifications.first { $0.summary == "Continue Editing Mail from A" },
                                       "the server got \(server.notifications.map(\.summary)); B: \(agentB.output)")
            XCTAssertTrue(posted.body.contains("Mail"), posted.body)
            XCTAssertEqual(posted.actions.first, "continue")
            server.click(posted.id, token: "click-token")
            // The loop runs (serving the agent's calls to the server) until Mail has saved the
            // attachment and ended (B's agent says when its launched app has ended).
            let saved = waitInBackground { Self.launchedMailEnded(agentB) ? 0 : 1 }
            spin(until: { saved.value != nil })
        }
        try assertContinued(agentB, mailA, bytes)
        // The notification server's link, the click and the launch ran on B's loop: no thread of Swift's pool.
        XCTAssertEqual(swiftPoolThreads(of: agentB), [], agentB.output)
    }
}
