import BatonLoop
import BatonTestSupport
import DeviceTestSupport
import CGLib
import Foundation
import XCTest
@testable import BatonAgent

/// `Agent1.ContinueNearby` when no app that continues the activity is joined: the agent asks
/// its launcher, then hands the activity to the app when it joins, within a bound. Device B's
/// agent runs in the test process (its loop spun by the test), served on a socket the test
/// binds; device A is a real `batond` with Mail joined; the launcher is the test's own.
final class AgentLaunchTests: AgentTestCase {
    /// The launcher starts Mail on B (`--wait`); once it joins, the agent hands it the draft:
    /// Mail restores it and gets the attachment through both agents, A's Mail is told, and
    /// only one Mail was started.
    func testTheAgentLaunchesTheAppAndHandsItTheActivityWhenItJoins() throws {
        let folders = try devices("A", "B")
        let attachment = root.appendingPathComponent("notes.txt")
        let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: attachment)
        let inbox = root.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let (_, address) = try agent(folders[0], socket: socket("a.sock"))
        let mailA = try app("baton-mail", socket: socket("a.sock"), ["--compose", "--to", "ada@example.org", "--subject", "Notes",
                                                                      "--body", "Attached.", "--attach", attachment.path])
        let (folderB, socketB, inboxPath) = (folders[1], socket("b.sock"), inbox.path)
        let outcome = try MainActor.assumeIsolated { () throws -> (Answer<(app: String?, error: GLibError?)>, [(appID: String, type: String, token: String?)], RunningProcess?) in
            let (agentB, server) = try inProcessAgent(folderB, peer: address, socket: socketB)
            let launcher = TestLauncher {
                try RunningProcess(product: "baton-mail", ["--agent", socketB, "--wait", "--save-to", inboxPath])
            }
            defer {
                server.stop()
                agentB.stop()
            }
            agentB.launcher = launcher
            spin(until: { agentB.apps.nearby.contains { $0.activityType == "com.example.mail.compose" } })
            guard let offered = agentB.apps.nearby.first else { return (Answer(), [], nil) }
            let answer = continueNearby(offered, through: socketB, activationToken: "token-1")
            spin(until: { answer.value != nil })
            guard let mailB = launcher.processes.first else { return (answer, launcher.launches, nil) }
            // The agent relays Mail's streams: the loop runs until Mail has finished.
            let exited = waitInBackground { mailB.waitForExit(timeout: 60) }
            spin(until: { exited.value != nil })
            return (answer, launcher.launches, mailB)
        }
        let (answer, launches, launched) = outcome
        let mailB = try XCTUnwrap(launched, "nothing launched: \(String(describing: answer.value))")
        processes.append(mailB)
        XCTAssertEqual(answer.value?.app, "com.example.mail", String(describing: answer.value))
        XCTAssertEqual(launches.map(\.appID), ["com.example.mail"], "one app started")
        XCTAssertEqual(launches.first?.type, "com.example.mail.compose")
        XCTAssertEqual(launches.first?.token, "token-1")
        XCTAssertEqual(mailB.waitForExit(timeout: 5), 0, mailB.output)
        XCTAssertTrue(mailB.output.contains("restoreUserActivityState: draft \"Notes\" to ada@example.org: Attached."), mailB.output)
        XCTAssertEqual(try Data(contentsOf: inbox.appendingPathComponent("notes.txt")), bytes)
        XCTAssertEqual(mailA.waitForExit(timeout: 30), 0, mailA.output)
        XCTAssertTrue(mailA.output.contains("userActivityWasContinued"), mailA.output)
    }

    /// While the launched app starts, B's agent fetches the activity's payload from A beside the
    /// launch, and the app's own fetch takes it (`PayloadPrefetch`): A's app was saved once, for
    /// that fetch ("before the activity is continued on another device", handoff-programming-guide,
    /// "User Activity Delegate"), not a second time, and the launched app saw the usual
    /// sequence: `willContinue…`, then `continue…` with A's title.
    func testThePayloadFetchedWhileTheAppStartsIsTheOneItContinues() throws {
        let (offering, continuing, taken) = try launchProbe(offering: ["--ok", "--title", "Prefetched"], until: "continued ")
        XCTAssertEqual(taken, 1, "the launched app's fetch took the prefetched payload")
        let lines = continuing.output.split(separator: "\n").map(String.init)
        let will = try XCTUnwrap(lines.firstIndex(of: "will continue com.example.probe.editing"), continuing.output)
        let continued = try XCTUnwrap(lines.firstIndex(of: "continued Prefetched"), continuing.output)
        XCTAssertLessThan(will, continued, continuing.output)
        XCTAssertFalse(continuing.output.contains("failed"), continuing.output)
        XCTAssertNotNil(offering.waitForLine(containing: "saving for a fetch"), offering.output)
        XCTAssertEqual(offering.output.components(separatedBy: "saving for a fetch").count - 1, 1,
                       "one save, for the one fetch: " + offering.output)
    }

    /// The payload fetched while the app starts is refused by A's app (its userInfo grew past
    /// the limit in its save): the launched app still sees `willContinue…` first, then
    /// `didFailToContinue…` with `userActivityHandoffUserInfoTooLarge`, the code A's side gave.
    func testAFailedPrefetchEndsInDidFailWithTheCodeOfTheFailure() throws {
        let (_, continuing, taken) = try launchProbe(offering: ["--oversize"], until: "failed ")
        XCTAssertEqual(taken, 1, "the launched app's fetch took the prefetch's failure")
        let lines = continuing.output.split(separator: "\n").map(String.init)
        let will = try XCTUnwrap(lines.firstIndex(of: "will continue com.example.probe.editing"), continuing.output)
        let failed = try XCTUnwrap(lines.firstIndex(of: "failed \(CocoaError.Code.userActivityHandoffUserInfoTooLarge.rawValue)"),
                                   continuing.output)
        XCTAssertLessThan(will, failed, continuing.output)
        XCTAssertFalse(continuing.output.contains("continued "), continuing.output)
    }

    /// DeviceProbe on A (`offering`'s options, joined to A's `batond`) offers its activity;
    /// B's agent, in this process, launches a DeviceProbe of its own to continue it; returns
    /// both probes once the launched one printed `until`, and how many prefetches B's agent
    /// gave to a launched app.
    private func launchProbe(offering options: [String], until text: String) throws -> (RunningProcess, RunningProcess, Int) {
        let folders = try devices("A", "B")
        let (agentA, address) = try agent(folders[0], socket: socket("a.sock"))
        let probe = productURL("DeviceProbe").path
        let offering = try start(probe, ["unused"] + options + ["--agent", socket("a.sock")])
        XCTAssertTrue(agentA.waitForAppJoined(processID: offering.processIdentifier), offering.output + agentA.output)
        let (folderB, socketB) = (folders[1], socket("b.sock"))
        let outcome = try MainActor.assumeIsolated { () throws -> (Answer<(app: String?, error: GLibError?)>, RunningProcess?, Int) in
            let (agentB, server) = try inProcessAgent(folderB, peer: address, socket: socketB)
            defer {
                server.stop()
                agentB.stop()
            }
            let launcher = TestLauncher {
                try RunningProcess(executable: URL(fileURLWithPath: probe), ["unused", "--ok", "--agent", socketB])
            }
            agentB.launcher = launcher
            spin(until: { agentB.apps.nearby.contains { $0.activityType == "com.example.probe.editing" } })
            guard let offered = agentB.apps.nearby.first(where: { $0.activityType == "com.example.probe.editing" }) else {
                return (Answer(), nil, 0)
            }
            let answer = continueNearby(offered, through: socketB, activationToken: "")
            spin(until: { answer.value != nil })
            guard let launched = launcher.processes.first else { return (answer, nil, agentB.prefetchesTaken) }
            // The launched app fetches through this agent: the loop runs until it has finished (its
            // delegate's calls, in order, as the probe reports them, are what this test checks).
            let ended = waitInBackground { launched.waitForLine(containing: text) == nil ? 1 : 0 }
            spin(until: { ended.value != nil })
            return (answer, launched, agentB.prefetchesTaken)
        }
        let (answer, launched, taken) = outcome
        let continuing = try XCTUnwrap(launched, "nothing launched: \(String(describing: answer.value))")
        processes.append(continuing)
        XCTAssertEqual(answer.value?.app, "com.example.probe", String(describing: answer.value))
        XCTAssertNotNil(continuing.waitForLine(containing: text, timeout: 1), continuing.output)
        return (offering, continuing, taken)
    }

    /// A launched app that never joins: the continuation fails with `TimedOut` once the bound passes.
    func testALaunchedAppThatNeverJoinsFailsWithinTheBound() throws {
        let folders = try devices("A", "B")
        let (_, address) = try agent(folders[0], socket: socket("a.sock"))
        _ = try app("baton-reader", socket: socket("a.sock"), ["--read", "2"])
        let (folderB, socketB) = (folders[1], socket("b.sock"))
        let (answer, launches) = try MainActor.assumeIsolated { () throws -> (Answer<(app: String?, error: GLibError?)>, [(appID: String, type: String, token: String?)]) in
            let (agentB, server) = try inProcessAgent(folderB, peer: address, socket: socketB)
            defer {
                server.stop()
                agentB.stop()
            }
            let launcher = TestLauncher { nil }
            agentB.launcher = launcher
            agentB.launchJoinTimeout = .seconds(2)
            spin(until: { !agentB.apps.nearby.isEmpty })
            guard let offered = agentB.apps.nearby.first else { return (Answer(), []) }
            let answer = continueNearby(offered, through: socketB, activationToken: "")
            spin(until: { answer.value != nil })
            return (answer, launcher.launches)
        }
        XCTAssertEqual(answer.value?.error?.remoteDBusErrorName, AgentInterface.ErrorName.timedOut, String(describing: answer.value))
        XCTAssertEqual(launches.count, 1)
        XCTAssertNil(launches.first?.token, "an empty token is none")
    }
}

/// Device `folder`'s agent in this process, dialing `peer`, served on `socket`.
@MainActor
func inProcessAgent(_ folder: String, peer: String, socket path: String) throws -> (Agent, AgentServer) {
    let directory = URL(fileURLWithPath: folder)
    let agent = try Agent(identity: try DeviceIdentity.load(from: directory), identityDirectory: directory,
                          staticPeers: [try PeerAddress(parsing: peer, from: .argument("peer"))])
    try agent.start(host: "127.0.0.1")
    let listening = try AgentListeningSocket.bind(path)
    defer { g_object_unref(UnsafeMutableRawPointer(listening)) }
    return (agent, try AgentServer(listeningSocket: listening, agent: agent))
}

/// Calls `Agent1.ContinueNearby` on another thread (as `baton continue` would); the answer
/// comes back through the main queue, which wakes the loop.
func continueNearby(_ activity: NearbyActivity, through path: String, activationToken: String) -> Answer<(app: String?, error: GLibError?)> {
    let answer = Answer<(app: String?, error: GLibError?)>()
    Thread {
        var outcome: (app: String?, error: GLibError?)
        do {
            let client = try RawAgentClient(socket: path)
            _ = try client.call("Join", [.string("org.baton.tool"), .string("baton"), .array(elementType: "s", [])], replyType: "(u)")
            let reply = try client.call("ContinueNearby", [.string(activity.device), .uint64(activity.sequence), .string(activationToken)],
                                        replyType: "(s)", timeout: 60_000)
            if case .string(let app)? = reply.first { outcome = (app, nil) } else { outcome = (nil, nil) }
        } catch let error as GLibError {
            outcome = (nil, error)
        } catch {
            outcome = (nil, GLibError(domain: "test", code: 0, message: "\(error)"))
        }
        let result = outcome
        DispatchQueue.main.async { answer.value = result }
    }.start()
    return answer
}

/// Runs `body` on another thread; its result comes back through the main queue.
func waitInBackground(_ body: @escaping @Sendable () -> Int32) -> Answer<Int32> {
    let answer = Answer<Int32>()
    Thread {
        let result = body()
        DispatchQueue.main.async { answer.value = result }
    }.start()
    return answer
}

/// A value set once on the main queue.
final class Answer<Value>: @unchecked Sendable {
    var value: Value?
}

/// The test's launcher: records each launch and runs `start` (which may start nothing).
@MainActor
final class TestLauncher: AppLaunching {
    private let start: @MainActor () throws -> RunningProcess?
    private(set) var launches: [(appID: String, type: String, token: String?)] = []
    private(set) var processes: [RunningProcess] = []

    init(_ start: @escaping @MainActor () throws -> RunningProcess?) { self.start = start }

    func launch(appID: String, activityType: String, activationToken: String?) throws {
        launches.append((appID, activityType, activationToken))
        if let process = try start() { processes.append(process) }
    }
}
