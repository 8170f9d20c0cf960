import Baton
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest
@testable import BatonAgent

/// An app the agent launches through its desktop entry (`DesktopAppLauncher`, a real GIO
/// spawn) that ends before it joins: the continuation waiting for it fails at once with
/// `HandoffFailed` (`CocoaError.userActivityHandoffFailed` in the app that asked), saying how
/// it ended and its last lines, not when `launchJoinTimeout` passes; its output is in its log
/// under `$XDG_STATE_HOME/baton/apps/`. Device A is a real `batond` with Reader joined, offering
/// its article; device B's agent runs in the test process.
final class LaunchedAppExitTests: AgentTestCase {
    private var xdg: XDGFixture!

    override func setUpWithError() throws {
        try super.setUpWithError()
        xdg = try XDGFixture()
    }

    override func tearDownWithError() throws {
        xdg.remove()
        try super.tearDownWithError()
    }

    private var stateHome: URL { xdg.root.appendingPathComponent("state") }

    /// Installs, as `com.example.reader` (Reader's manifest), a desktop entry whose Exec is a
    /// shell script with `body`; B's agent, with a launch join timeout of 60 s (past the test's
    /// own 20 s wait), is asked to continue A's article. Returns the answer to `ContinueNearby`
    /// and what the launcher reported of the app's end.
    private func continueWithApp(running body: String) throws -> (GLibError?, String?, [LaunchedAppExit]) {
        let folders = try devices("A", "B")
        let (_, address) = try agent(folders[0], socket: socket("a.sock"))
        _ = try app("baton-reader", socket: socket("a.sock"), ["--read", "2"])
        let script = xdg.root.appendingPathComponent("reader.sh")
        try "#!/bin/sh\n\(body)\n".write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        try xdg.goodEntry("com.example.reader", exec: script.path)
        try xdg.manifest("com.example.reader", team: "EXAMPLETEAM", types: ["com.example.reader.reading"])
        var environment = xdg.environment
        environment["XDG_STATE_HOME"] = stateHome.path
        let (folderB, socketB) = (folders[1], socket("b.sock"))
        return try MainActor.assumeIsolated { () throws -> (GLibError?, String?, [LaunchedAppExit]) in
            let (agentB, server) = try inProcessAgent(folderB, peer: address, socket: socketB)
            defer {
                server.stop()
                agentB.stop()
            }
            let launcher = DesktopAppLauncher(catalog: InstalledAppCatalog(environment: environment))
            var exits: [LaunchedAppExit] = []
            launcher.onExited = { exits.append($0) }
            agentB.launcher = launcher
            agentB.launchJoinTimeout = .seconds(60)
            spin(until: { agentB.apps.nearby.contains { $0.activityType == "com.example.reader.reading" } })
            guard let offered = agentB.apps.nearby.first else { return (nil, nil, []) }
            let answer = continueNearby(offered, through: socketB, activationToken: "")
            spin(until: { answer.value != nil && !exits.isEmpty })
            return (answer.value?.error, answer.value?.app, exits)
        }
    }

    /// The app prints its usage and exits with status 2 before joining.
    func testAnAppThatExitsBeforeJoiningFailsTheContinuationAtOnceWithItsStatusAndLastLines() throws {
        let (error, app, exits) = try continueWithApp(running: """
            echo "starting reader"
            echo "usage: baton-reader (--read ARTICLE | --continue-nearby)" >&2
            exit 2
            """)
        XCTAssertNil(app)
        let failure = try XCTUnwrap(error, "the continuation did not fail")
        XCTAssertEqual(failure.remoteDBusErrorName, AgentInterface.ErrorName.handoffFailed, "\(failure)")
        let exit = try XCTUnwrap(exits.first)
        XCTAssertEqual(exits.count, 1)
        XCTAssertEqual(exit.appID, "com.example.reader")
        XCTAssertEqual(exit.status, .exited(2))
        XCTAssertEqual(exit.lastLines, ["starting reader", "usage: baton-reader (--read ARTICLE | --continue-nearby)"])
        // What the person who asked reads: the app, how it ended, its last lines.
        XCTAssertTrue(failure.message.contains("com.example.reader exited with status 2 before joining: starting reader / usage: baton-reader"),
                      failure.message)

        let log = stateHome.appendingPathComponent("baton/apps/com.example.reader.log")
        let text = try String(contentsOf: log, encoding: .utf8)
        XCTAssertTrue(text.contains("usage: baton-reader (--read ARTICLE | --continue-nearby)\n"), text)
        let attributes = try FileManager.default.attributesOfItem(atPath: log.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let folder = try FileManager.default.attributesOfItem(atPath: log.deletingLastPathComponent().path)
        XCTAssertEqual((folder[.posixPermissions] as? NSNumber)?.intValue, 0o700)
    }

    /// A signal ends the app before it joins; what it wrote is escaped in the error.
    func testAnAppKilledBeforeJoiningFailsTheContinuationWithTheSignal() throws {
        let (error, _, exits) = try continueWithApp(running: #"printf 'bad \033[31mterminal\n'; kill -KILL $$"#)
        let failure = try XCTUnwrap(error, "the continuation did not fail")
        XCTAssertEqual(failure.remoteDBusErrorName, AgentInterface.ErrorName.handoffFailed, "\(failure)")
        let exit = try XCTUnwrap(exits.first)
        XCTAssertEqual(exit.status, .killed(signal: SIGKILL))
        XCTAssertEqual(exit.lastLines, [#"bad \u{1B}[31mterminal"#])
        XCTAssertFalse(failure.message.contains("\u{1B}"), failure.message)
    }
}

/// `LaunchedAppLog` on its own: where logs go, which ids may name one, and the size bound.
final class LaunchedAppLogTests: XCTestCase {
    func testTheLogIsUnderTheStateDirectory() {
        XCTAssertEqual(LaunchedAppLog(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]).directory.path, "/s/baton/apps")
        XCTAssertEqual(LaunchedAppLog(environment: ["XDG_STATE_HOME": "relative", "HOME": "/h"]).directory.path,
                       "/h/.local/state/baton/apps", "a relative XDG_STATE_HOME is ignored, as the spec says")
        XCTAssertEqual(LaunchedAppLog(environment: ["HOME": "/h"]).file(of: "com.example.Mail")?.path,
                       "/h/.local/state/baton/apps/com.example.Mail.log")
    }

    func testAnAppIDThatIsNotAFileNameNamesNoLog() {
        for id in ["", "../x", "a/b", ".hidden", "..", "a\0b", String(repeating: "a", count: 250)] {
            XCTAssertNil(LaunchedAppLog(directory: URL(fileURLWithPath: "/l")).file(of: id), id)
        }
        XCTAssertThrowsError(try LaunchedAppLog(directory: URL(fileURLWithPath: "/nonexistent")).open(for: "../escape"))
    }

    /// A log past the bound is moved aside at the next launch (one previous kept), and the
    /// last lines are those of this launch only.
    func testALogPastTheBoundIsMovedAsideAndTheLastLinesAreThisLaunchs() throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-log-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = LaunchedAppLog(directory: folder)
        let file = try XCTUnwrap(log.file(of: "com.example.Big"))
        do {
            let first = try log.open(for: "com.example.Big")
            let old = Data(repeating: UInt8(ascii: "x"), count: Int(LaunchedAppLog.sizeLimit)) + Data("\nold line\n".utf8)
            _ = old.withUnsafeBytes { write(first.descriptor, $0.baseAddress, $0.count) }
        }
        let second = try log.open(for: "com.example.Big")
        XCTAssertEqual(second.start, 0, "a new log")
        XCTAssertEqual(LaunchedAppLog.lastLines(of: second), [], "nothing written in this launch yet")
        let lines = (1...6).map { "line \($0)" }.joined(separator: "\n") + "\n"
        _ = Data(lines.utf8).withUnsafeBytes { write(second.descriptor, $0.baseAddress, $0.count) }
        XCTAssertEqual(LaunchedAppLog.lastLines(of: second), ["line 3", "line 4", "line 5", "line 6"])
        let previous = try Data(contentsOf: URL(fileURLWithPath: file.path + ".1"))
        XCTAssertTrue(previous.count > Int(LaunchedAppLog.sizeLimit))
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), lines)

        // Appended to, and only this launch's output is read back.
        let third = try log.open(for: "com.example.Big")
        _ = Data("only mine\n".utf8).withUnsafeBytes { write(third.descriptor, $0.baseAddress, $0.count) }
        XCTAssertEqual(LaunchedAppLog.lastLines(of: third), ["only mine"])
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), lines + "only mine\n")
    }
}

/// The launch form the agent starts a device example with (docs/EXAMPLES.md): its program with
/// no mode, joining the agent and waiting. Reader, installed that way and launched by B's agent
/// through GIO, takes the article A's Reader offers and restores it exactly once; its output is
/// in its log.
final class ExampleLaunchFormTests: AgentTestCase {
    func testReaderLaunchedWithNoModeRestoresTheActivityTheAgentHandsItOnce() throws {
        let xdg = try XDGFixture()
        defer { xdg.remove() }
        let folders = try devices("A", "B")
        let (_, address) = try agent(folders[0], socket: socket("a.sock"))
        let readerA = try app("baton-reader", socket: socket("a.sock"), ["--read", "2", "--page", "3"])
        let (folderB, socketB) = (folders[1], socket("b.sock"))
        try xdg.goodEntry("com.example.reader", exec: "\(productURL("baton-reader").path) --agent \(socketB)")
        try FileManager.default.createDirectory(at: xdg.dataHome.appendingPathComponent("baton/apps"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                                            .appendingPathComponent("../../Examples/Reader/Manifest/Info.plist").standardized,
                                         to: xdg.dataHome.appendingPathComponent("baton/apps/com.example.reader.plist"))
        var environment = xdg.environment
        let state = xdg.root.appendingPathComponent("state")
        environment["XDG_STATE_HOME"] = state.path
        let (answer, exits) = try MainActor.assumeIsolated { () throws -> ((app: String?, error: GLibError?)?, [LaunchedAppExit]) in
            let (agentB, server) = try inProcessAgent(folderB, peer: address, socket: socketB)
            let launcher = DesktopAppLauncher(catalog: InstalledAppCatalog(environment: environment))
            var pids: [pid_t] = []
            var exits: [LaunchedAppExit] = []
            launcher.onLaunched = { pids.append($1) }
            launcher.onExited = { exits.append($0) }
            // The launched Reader waits on: it is ended, and the loop runs until it is reaped.
            @MainActor func endLaunched() {
                for pid in pids { kill(pid, SIGTERM) }
                spin(until: { exits.count == pids.count })
            }
            defer {
                endLaunched()
                server.stop()
                agentB.stop()
            }
            agentB.launcher = launcher
            spin(until: { agentB.apps.nearby.contains { $0.activityType == "com.example.reader.reading" } })
            guard let offered = agentB.apps.nearby.first else { return (nil, []) }
            let answer = continueNearby(offered, through: socketB, activationToken: "")
            spin(until: { answer.value != nil })
            // A's Reader exits once the launched one has confirmed the continuation.
            let continued = waitInBackground { readerA.waitForExit(timeout: 20) }
            spin(until: { continued.value != nil })
            endLaunched()
            return (answer.value, exits)
        }
        XCTAssertEqual(answer?.app, "com.example.reader", String(describing: answer))
        XCTAssertEqual(exits.count, 1, "one Reader launched")
        XCTAssertEqual(readerA.waitForExit(timeout: 1), 0, readerA.output)
        XCTAssertTrue(readerA.output.contains("userActivityWasContinued"), readerA.output)
        let log = try String(contentsOf: state.appendingPathComponent("baton/apps/com.example.reader.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("launched to continue com.example.reader.reading"), log)
        XCTAssertTrue(log.contains("waiting for the agent to hand over an activity"), log)
        XCTAssertEqual(log.components(separatedBy: "restoreUserActivityState: article 2, page 3").count - 1, 1, "restored once: \(log)")
    }
}
