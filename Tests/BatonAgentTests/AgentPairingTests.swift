import BatonContinuity
import BatonLoop
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Pairing through the agent, with real processes: device A's `batond` holds the group's
/// authority (beside its identity, as `baton device add A --install` puts it); `baton pair
/// --accept` opens the window in it; the newcomer is the real `baton pair`. On a desktop the
/// agent shows each request as a notification with Accept and Decline — here on a private
/// session bus (`dbus-daemon`) whose notification server is the test's own stand-in
/// (`NotificationServerStandIn`), not a desktop's. The loop runs while the test waits for the
/// processes, so the stand-in answers the agent's calls.
final class AgentPairingTests: AgentTestCase {
    private var admin: URL { root.appendingPathComponent("admin") }
    private var newcomerFolder: URL { root.appendingPathComponent("new") }
    private var busAddress: String { "unix:path=\(root.path)/bus" }

    /// The group Ada administered in `admin`, with this machine's own device A in `admin/device`.
    private func makeGroup() throws {
        for command in [["group", "create", "Ada"], ["device", "add", "A", "--install"]] {
            let result = try runProduct("baton", command + ["--config", admin.path], timeout: 30)
            XCTAssertEqual(result.status, 0, result.stderr)
        }
    }

    /// A private session bus; the agent of A on it; returns the agent and its device's address.
    private func startAgentA(peers: [String] = []) throws -> (RunningProcess, String) {
        _ = try start("/usr/bin/dbus-daemon", ["--session", "--nofork", "--print-address", "--address=\(busAddress)"])
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = busAddress
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("A-config").path
        environment["XDG_DATA_DIRS"] = root.appendingPathComponent("no-system-apps").path
        let process = try start("batond", ["--device", admin.appendingPathComponent("device").path, "--socket", socket("a.sock"),
                                           "--listen", "127.0.0.1:0"] + peers.flatMap { ["--peer", $0] }, environment: environment)
        let address = try XCTUnwrap(process.listeningAddress(), process.output).description
        return (process, address)
    }

    /// `baton pair --accept` through `agent` (A's); returns it and the window's port (the
    /// agent's `pairingWindowOpen`).
    private func openWindow(on agent: RunningProcess, _ extra: [String] = []) throws -> (RunningProcess, UInt16) {
        let window = try start("baton", ["pair", "--accept", "--agent", socket("a.sock"), "--listen", "127.0.0.1:0", "--config", admin.path] + extra)
        let port = try XCTUnwrap(agent.pairingWindowPort(), agent.output)
        // What the person at the terminal reads: where the window is, and that the agent holds it.
        let line = try XCTUnwrap(window.waitForLine(containing: "pairing window open on 127.0.0.1:\(port)"), window.output)
        XCTAssertTrue(line.contains("in the agent"), line)
        return (window, port)
    }

    /// The real newcomer: `baton pair 127.0.0.1:PORT --name B`, its agent not started.
    private func newcomer(port: UInt16, name: String = "B") throws -> RunningProcess {
        try start("baton", ["pair", "127.0.0.1:\(port)", "--name", name, "--config", newcomerFolder.path, "--no-agent"])
    }

    /// The code the newcomer `process` showed its person, the loop running meanwhile.
    @MainActor
    private func code(_ process: RunningProcess) -> String? {
        whileServing { process.pairingCode(onWindow: false, timeout: 60) } ?? nil
    }

    /// Whether `process` published an event that `matches` within a minute, the loop running meanwhile.
    @MainActor
    private func event(_ process: RunningProcess, _ matches: @escaping @Sendable (DiagnosticEvent) -> Bool) -> Bool {
        whileServing { process.waitForEvent(timeout: 60, where: matches) != nil } ?? false
    }

    /// Waits, the loop running (the stand-in serves the agent meanwhile), for `body` on another thread.
    @MainActor
    private func whileServing<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T? {
        let answer = Answer<T>()
        Thread {
            let result = body()
            DispatchQueue.main.async { answer.value = result }
        }.start()
        _ = MainLoop.run(until: { answer.value != nil }, timeout: .seconds(120))
        return answer.value
    }

    /// The line of `process` containing `text`, the loop running meanwhile.
    @MainActor
    private func line(_ process: RunningProcess, _ text: String, occurrence: Int = 1, timeout: TimeInterval = 60) -> String? {
        whileServing { process.waitForLine(containing: text, occurrence: occurrence, timeout: timeout) } ?? nil
    }

    /// The notification of the pairing request showing `code`, once posted.
    @MainActor
    private func request(showing code: String, on server: NotificationServerStandIn) -> NotificationServerStandIn.Notification? {
        let summary = "A new device wants to join: code \(code)"
        _ = MainLoop.run(until: { server.notifications.contains { $0.summary == summary } }, timeout: .seconds(60))
        return server.notifications.first { $0.summary == summary }
    }

    /// Accept on the desktop notification, and yes on the new device: paired. The new device's
    /// identity is written; A's agent holds the list naming B at once; B's agent links with A's
    /// and an activity is handed off between them.
    func testAcceptOnTheNotificationPairsAndTheTwoAgentsLinkAndHandOff() throws {
        try makeGroup()
        let (agentA, addressA) = try startAgentA()
        nonisolated(unsafe) let test = self
        try MainActor.assumeIsolated {
            let server = try NotificationServerStandIn(address: test.busAddress)
            defer { server.close() }
            let (window, port) = try test.openWindow(on: agentA)
            let b = try test.newcomer(port: port)
            let code = try XCTUnwrap(test.code(b), b.output)
            let posted = try XCTUnwrap(test.request(showing: code, on: server), "\(server.notifications); A: \(agentA.output)")
            XCTAssertEqual(posted.actions, ["accept", "Accept", "decline", "Decline"])
            XCTAssertTrue(posted.body.contains("Accept only if the new device shows the same code"), posted.body)
            XCTAssertFalse(posted.summary.contains("B") || posted.body.contains("'B'"), "the newcomer's name is not known before the yes")
            // The terminal that opened the window is asked the same code.
            XCTAssertNotNil(test.line(window, "Does the new device show \(code)? [y/N]"), window.output)
            b.send("y")
            server.click(posted.id, action: "accept")
            XCTAssertEqual(test.whileServing { b.waitForExit(timeout: 60) }, 0, b.output)
            XCTAssertEqual(test.whileServing { window.waitForExit(timeout: 60) }, 0, window.output)
            XCTAssertTrue(test.event(agentA) { $0 == .paired(device: "B") }, agentA.output)
            XCTAssertTrue(b.waitFor(.joinedGroup(group: "Ada", device: "B")), b.output)
            // What the terminal that opened the window tells its person: who answered, and where.
            XCTAssertTrue(window.output.contains("paired 'B'"), window.output)
            XCTAssertTrue(window.output.contains("answered on the desktop"), window.output)
            _ = MainLoop.run(until: { server.closed.contains(posted.id) }, timeout: .seconds(30))
            XCTAssertTrue(server.closed.contains(posted.id), "the answered request is withdrawn: \(server.closed)")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: newcomerFolder.appendingPathComponent("device/key.pem").path))

        // B's agent links with A's at once (A knows B's name: it holds the list naming it), and
        // Reader's article on A continues on B through both agents.
        let (agentB, _) = try agent(newcomerFolder.appendingPathComponent("device").path, socket: socket("b.sock"), peers: [addressA])
        XCTAssertTrue(agentA.waitForLink(with: "B"), agentA.output)
        XCTAssertTrue(agentB.waitForLink(with: "A"), agentB.output)
        let readerA = try app("baton-reader", socket: socket("a.sock"), ["--read", "7", "--page", "3", "--scroll", "0.42"])
        let readerB = try app("baton-reader", socket: socket("b.sock"), ["--continue-nearby"])
        // What Reader shows its user: the article, page and scroll position restored.
        XCTAssertNotNil(readerB.waitForLine(containing: "restoreUserActivityState: article 7, page 3, scrolled to 0.42", timeout: 60),
                        readerB.output)
        XCTAssertEqual(readerA.waitForExit(timeout: 30), 0, readerA.output)
        XCTAssertTrue(readerA.output.contains("userActivityWasContinued"), readerA.output)
        // The window, the desktop's answer and the handoff ran on A's loop: no thread of Swift's pool.
        XCTAssertEqual(swiftPoolThreads(of: agentA), [], agentA.output)
        XCTAssertEqual(swiftPoolThreads(of: agentB), [], agentB.output)
    }

    /// While a request waits unanswered on the desktop, A's agent goes on with its other work:
    /// an app joins it and device C continues A's activity (this fails if the request held up
    /// the agent's loop). Then Decline: nothing is written on either side; the window stays
    /// for another attempt until the command that opened it ends, which closes it; the agent
    /// still serves.
    func testWhileARequestWaitsTheAgentServesAndDeclineWritesNothing() throws {
        try makeGroup()
        let folderC = root.appendingPathComponent("C")
        try GroupAuthority.load(from: ConfigDirectory(url: admin)).issueDevice(named: "C", updating: [admin.appendingPathComponent("device")])
            .write(to: folderC)
        let (agentA, addressA) = try startAgentA()
        let (agentC, _) = try agent(folderC.path, socket: socket("c.sock"), peers: [addressA])
        XCTAssertTrue(agentC.waitForLink(with: "A"), agentC.output)
        nonisolated(unsafe) let before = try FolderSnapshot(admin, newcomerFolder)
        nonisolated(unsafe) let test = self
        try MainActor.assumeIsolated {
            let server = try NotificationServerStandIn(address: test.busAddress)
            defer { server.close() }
            let (window, port) = try test.openWindow(on: agentA)
            let b = try test.newcomer(port: port)
            let code = try XCTUnwrap(test.code(b), b.output)
            let posted = try XCTUnwrap(test.request(showing: code, on: server), "\(server.notifications); A: \(agentA.output)")
            b.send("y")

            // The request waits. Meanwhile an app joins A's agent, and C continues its article.
            let readerA = try test.start("baton-reader", ["--agent", test.socket("a.sock"), "--read", "5"])
            let pid = readerA.processIdentifier
            XCTAssertTrue(test.event(agentA) { if case .appJoined(_, pid) = $0 { true } else { false } }, readerA.output)
            let readerC = try test.start("baton-reader", ["--agent", test.socket("c.sock"), "--continue-nearby"])
            // What Reader shows its user: the article restored.
            XCTAssertNotNil(test.line(readerC, "restoreUserActivityState: article 5"), readerC.output)
            XCTAssertEqual(test.whileServing { readerA.waitForExit(timeout: 30) }, 0, readerA.output)
            XCTAssertTrue(server.notifications.contains(posted) && !server.closed.contains(posted.id), "still waiting: \(server.closed)")
            XCTAssertTrue(b.isRunning, b.output)

            server.click(posted.id, action: "decline")
            XCTAssertEqual(test.whileServing { b.waitForExit(timeout: 60) }, 1, b.output)
            XCTAssertEqual(b.pairingFailure()?.reason, .declinedThere, b.output)
            XCTAssertTrue(test.event(agentA) { if case .pairingFailed(.declinedHere, _) = $0 { true } else { false } }, agentA.output)
            XCTAssertEqual(try FolderSnapshot(test.admin, test.newcomerFolder), before, "nothing written on either side")

            // The command that opened the window ends (as on Ctrl-C): the window closes with it.
            window.terminate()
            _ = test.whileServing { window.waitForExit(timeout: 30) }
            XCTAssertTrue(test.event(agentA) { $0 == .pairingWindowClosed(port: port) }, agentA.output)
            let refused = try test.start("baton", ["pair", "127.0.0.1:\(port)", "--name", "D", "--config", test.root.appendingPathComponent("D").path, "--no-agent"])
            XCTAssertEqual(test.whileServing { refused.waitForExit(timeout: 30) }, 1, refused.output)
            XCTAssertTrue(refused.output.contains("connection failed"), "the port is closed: \(refused.output)")
        }
        // The agent still serves: another app joins and continues.
        let readerA = try app("baton-reader", socket: socket("a.sock"), ["--read", "6"])
        let readerC = try app("baton-reader", socket: socket("c.sock"), ["--continue-nearby"])
        XCTAssertNotNil(readerC.waitForLine(containing: "restoreUserActivityState: article 6"), readerC.output)
        XCTAssertEqual(readerA.waitForExit(timeout: 30), 0, readerA.output)
        XCTAssertEqual(try FolderSnapshot(admin, newcomerFolder), before)
    }

    /// The window's bounds in the agent: garbage on the pairing port changes nothing; a second
    /// window is refused while one is open; a "no" typed on the terminal declines (the
    /// notification is withdrawn); a request nobody answers ends with the window's time (its
    /// notification withdrawn too), and the command says so. Nothing is written.
    func testTheWindowsBoundsHoldInTheAgent() throws {
        try makeGroup()
        let (agentA, _) = try startAgentA()
        nonisolated(unsafe) let before = try FolderSnapshot(admin, newcomerFolder)
        nonisolated(unsafe) let test = self
        try MainActor.assumeIsolated {
            let server = try NotificationServerStandIn(address: test.busAddress)
            defer { server.close() }
            let (window, port) = try test.openWindow(on: agentA, ["--timeout", "40"])
            let second = try test.start("baton", ["pair", "--accept", "--agent", test.socket("a.sock"), "--listen", "127.0.0.1:0", "--config", test.admin.path])
            XCTAssertEqual(test.whileServing { second.waitForExit(timeout: 30) }, 1, second.output)
            XCTAssertTrue(second.output.contains("a pairing window is open already"), second.output)

            // Garbage, then a hang-up, on the pairing port.
            let garbage = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: port.bigEndian,
                                      sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(garbage, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            XCTAssertEqual(connected, 0)
            let junk = [UInt8](repeating: 0x16, count: 4096)
            _ = junk.withUnsafeBytes { write(garbage, $0.baseAddress, $0.count) }
            close(garbage)

            // A "no" typed on the terminal declines; the notification goes.
            let b = try test.newcomer(port: port)
            let code = try XCTUnwrap(test.code(b), b.output)
            let first = try XCTUnwrap(test.request(showing: code, on: server), "\(server.notifications); A: \(agentA.output)")
            // A terminal dialog: the answer follows the question its person reads.
            XCTAssertNotNil(test.line(window, "Does the new device show \(code)? [y/N]"), window.output)
            window.send("n")
            XCTAssertEqual(test.whileServing { b.waitForExit(timeout: 60) }, 1, b.output)
            XCTAssertEqual(b.pairingFailure()?.reason, .declinedThere, b.output)
            XCTAssertTrue(test.event(agentA) { $0 == .pairingFailed(reason: .declinedHere, attemptsLeft: 2) }, agentA.output)
            // What the terminal tells its person of it.
            let failed = test.line(window, "pairing failed: not confirmed here")
            XCTAssertTrue(failed?.contains("(2 attempts left)") == true, window.output)
            _ = MainLoop.run(until: { server.closed.contains(first.id) }, timeout: .seconds(30))
            XCTAssertTrue(server.closed.contains(first.id), "the declined request is withdrawn: \(server.closed); A: \(agentA.output)")

            // Nobody answers the next one: the window's time ends it, and its notification.
            let late = try test.newcomer(port: port, name: "E")
            let lateCode = try XCTUnwrap(test.code(late), late.output)
            let second2 = try XCTUnwrap(test.request(showing: lateCode, on: server), "\(server.notifications)")
            XCTAssertEqual(test.whileServing { window.waitForExit(timeout: 60) }, 1, window.output)
            XCTAssertTrue(test.event(agentA) { $0 == .pairingWindowClosed(port: port) }, agentA.output)
            // What the terminal tells its person: why the window closed.
            XCTAssertTrue(window.output.contains("its time (40.0 seconds) is up"), window.output)
            XCTAssertEqual(test.whileServing { late.waitForExit(timeout: 60) }, 1, late.output)
            _ = MainLoop.run(until: { server.closed.contains(second2.id) }, timeout: .seconds(30))
            XCTAssertTrue(server.closed.contains(second2.id), "the unanswered request is withdrawn at the window's end: \(server.closed)")
        }
        XCTAssertEqual(try FolderSnapshot(admin, newcomerFolder), before, "nothing written")
        // The agent is unaffected: an app still joins.
        _ = try app("baton-reader", socket: socket("a.sock"), ["--read", "1"])
        XCTAssertTrue(agentA.isRunning, agentA.output)
    }

    /// An agent whose device holds no authority refuses to open a window, saying why.
    func testAnAgentWithoutTheAuthorityRefusesAWindow() throws {
        let folders = try devices("A")
        _ = try agent(folders[0], socket: socket("a.sock"))
        let window = try runProduct("baton", ["pair", "--accept", "--agent", socket("a.sock"), "--listen", "127.0.0.1:0",
                                              "--config", root.appendingPathComponent("elsewhere").path], timeout: 30)
        XCTAssertEqual(window.status, 1, window.stdout + window.stderr)
        XCTAssertTrue(window.stderr.contains("this agent holds no group authority"), window.stderr)
    }
}
