import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Handoff through agents: two `batond` processes (devices A and B, static peers on
/// loopback), and example apps joined to them instead of running nodes of their own.
final class AgentHandoffTests: AgentTestCase {
    /// Mail and Reader both joined to A's agent: B continues Mail's draft (Mail became active
    /// last) while Reader runs on A too, and the draft's 8 MB attachment arrives over
    /// continuation streams relayed by both agents; then Reader becomes active on A, and B sees
    /// and continues Reader's article. Each originating app, and only it, is told.
    func testTwoAppsOnOneAgentAreHandedOffInTurn() throws {
        let folders = try devices("A", "B")
        let attachment = root.appendingPathComponent("photo.raw")
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<(8 * 1024 * 1024 / 8)).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } })
        try bytes.write(to: attachment)
        let inbox = root.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let (_, address) = try agent(folders[0], socket: socket("a.sock"))
        _ = try agent(folders[1], socket: socket("b.sock"), peers: [address])
        let readerA = try app("baton-reader", socket: socket("a.sock"), ["--read", "7", "--page", "3", "--scroll", "0.42"])
        let mailA = try app("baton-mail", socket: socket("a.sock"), ["--compose", "--to", "ada@example.org", "--subject", "Lunch",
                                                                      "--body", "At noon?", "--attach", attachment.path])
        let mailB = try app("baton-mail", socket: socket("b.sock"), ["--continue-nearby", "--save-to", inbox.path])
        XCTAssertEqual(mailB.waitForExit(timeout: 60), 0, mailB.output)
        XCTAssertTrue(mailB.output.contains("restoreUserActivityState: draft \"Lunch\" to ada@example.org: At noon?"), mailB.output)
        XCTAssertTrue(mailB.output.contains("received photo.raw over continuation streams: \(bytes.count) bytes, checksum matches"), mailB.output)
        XCTAssertEqual(try Data(contentsOf: inbox.appendingPathComponent("photo.raw")), bytes)
        XCTAssertEqual(mailA.waitForExit(timeout: 30), 0, mailA.output)
        XCTAssertTrue(mailA.output.contains("userActivityWasContinued: the draft continues on another device"), mailA.output)
        XCTAssertTrue(mailA.output.contains("sent photo.raw over continuation streams (\(bytes.count) bytes)"), mailA.output)
        XCTAssertFalse(readerA.output.contains("userActivityWasContinued"), readerA.output)

        readerA.send("deactivate")
        readerA.send("activate")
        let readerB = try app("baton-reader", socket: socket("b.sock"), ["--continue-nearby"])
        // What Reader shows its user: the article, page and scroll position restored.
        XCTAssertNotNil(readerB.waitForLine(containing: "restoreUserActivityState: article 7, page 3, scrolled to 0.42"), readerB.output)
        XCTAssertEqual(readerA.waitForExit(timeout: 30), 0, readerA.output)
        XCTAssertEqual(readerB.waitForExit(timeout: 30), 0, readerB.output)
        XCTAssertEqual(readerA.output.components(separatedBy: "userActivityWasContinued").count, 2, readerA.output)
        XCTAssertFalse(readerB.output.contains("draft"), readerB.output)
    }

    /// An app killed with SIGKILL: its activity disappears from B. The agent killed with SIGKILL
    /// and restarted (same port and socket): the app rejoins by itself and B sees A's activity again.
    func testAKilledAppIsWithdrawnAndAppsRejoinARestartedAgent() throws {
        let folders = try devices("A", "B")
        var (agentA, address) = try agent(folders[0], socket: socket("a.sock"))
        let (agentB, _) = try agent(folders[1], socket: socket("b.sock"), peers: [address])
        // Mail on B only watches: it continues Mail drafts, and A offers an article.
        let watcher = try app("baton-mail", socket: socket("b.sock"), ["--continue-nearby"])
        let article = "com.example.reader.reading"
        let reader = try app("baton-reader", socket: socket("a.sock"), ["--read", "3"])
        XCTAssertTrue(agentB.waitForNearby(from: "A", article), agentB.output)
        XCTAssertTrue(agentA.waitFor(.appJoined(appID: "com.example.reader", processID: reader.processIdentifier)), agentA.output)
        kill(reader.processIdentifier, SIGKILL)
        XCTAssertTrue(agentB.waitForWithdrawal(from: "A", article), agentB.output)
        XCTAssertTrue(agentA.waitFor(.appLeft(appID: "com.example.reader", reason: nil)), agentA.output)
        // What the watching app shows: the article, then nothing.
        XCTAssertNotNil(watcher.waitForLine(containing: "nearby now: none"), watcher.output)

        let second = try app("baton-reader", socket: socket("a.sock"), ["--read", "4"])
        XCTAssertTrue(agentB.waitForNearby(from: "A", article, occurrence: 2), agentB.output)
        kill(agentA.processIdentifier, SIGKILL)
        XCTAssertTrue(agentB.waitForWithdrawal(from: "A", article, occurrence: 2), agentB.output)
        agentA.waitForExit(timeout: 10)
        (agentA, _) = try agent(folders[0], socket: socket("a.sock"), listen: address)
        XCTAssertTrue(agentA.waitForAppJoined("com.example.reader", processID: second.processIdentifier, timeout: 60), second.output)
        XCTAssertTrue(agentB.waitForNearby(from: "A", article, occurrence: 3, timeout: 90), agentB.output)
        XCTAssertTrue(second.isRunning, "the app kept running while its agent was gone")
        // Logged once when the agent went, not once per retry: what the app's log says is the point here.
        XCTAssertEqual(second.output.components(separatedBy: "went away").count - 1, 1, second.output)
        XCTAssertFalse(second.output.contains("is unavailable"), second.output)
    }

    /// On B, where Mail runs joined to B's agent and waits: `baton nearby` asks the agent and
    /// lists Mail's draft on A; `baton continue` asks the agent, which hands the draft to the
    /// running Mail (no second one starts). Mail restores the draft and gets its attachment
    /// through both agents; A's Mail is told.
    func testBatonContinueHandsTheActivityToTheRunningAppThroughTheAgent() throws {
        let folders = try devices("A", "B")
        let attachment = root.appendingPathComponent("notes.txt")
        let bytes = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: attachment)
        let inbox = root.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let (agentA, address) = try agent(folders[0], socket: socket("a.sock"))
        let (agentB, _) = try agent(folders[1], socket: socket("b.sock"), peers: [address])
        let mailA = try app("baton-mail", socket: socket("a.sock"), ["--compose", "--to", "ada@example.org", "--subject", "Notes",
                                                                      "--body", "Attached.", "--attach", attachment.path])
        let mailB = try app("baton-mail", socket: socket("b.sock"), ["--wait", "--save-to", inbox.path])
        XCTAssertTrue(agentB.waitForNearby(from: "A", "com.example.mail.compose"), agentB.output)

        let noConfig = ["--config", root.appendingPathComponent("no-config").path]
        let nearby = try runProduct("baton", ["nearby", "--agent", socket("b.sock")] + noConfig, timeout: 30)
        XCTAssertEqual(nearby.status, 0, nearby.stderr)
        XCTAssertTrue(nearby.stdout.contains("A\t\"Editing Mail\"\tcom.example.mail.compose\tcom.example.mail"), nearby.stdout)

        let continued = try runProduct("baton", ["continue", "--agent", socket("b.sock")] + noConfig, timeout: 30)
        XCTAssertEqual(continued.status, 0, continued.stderr)
        XCTAssertTrue(continued.stdout.contains("from A in com.example.mail"), continued.stdout)
        XCTAssertEqual(mailB.waitForExit(timeout: 60), 0, mailB.output)
        XCTAssertTrue(mailB.output.contains("restoreUserActivityState: draft \"Notes\" to ada@example.org: Attached."), mailB.output)
        XCTAssertEqual(try Data(contentsOf: inbox.appendingPathComponent("notes.txt")), bytes)
        XCTAssertEqual(mailA.waitForExit(timeout: 30), 0, mailA.output)
        XCTAssertTrue(agentA.waitFor(.continuedElsewhere(activityType: "com.example.mail.compose", by: "B")), agentA.output)
        // What Mail on A shows its user: that the draft went on elsewhere.
        XCTAssertTrue(mailA.output.contains("userActivityWasContinued"), mailA.output)
    }
}
