import BatonLoop
import BatonTestSupport
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
private func inProcessAgent(_ folder: String, peer: String, socket path: String) throws -> (Agent, AgentServer) {
    let directory = URL(fileURLWithPath: folder)
    let agent = try Agent(identity: try DeviceIdentity.load(from: directory), identityDirectory: directory,
                          staticPeers: [try PeerAddress(parsing: peer, from: .argument("peer"))])
    try agent.start()
    let listening = try AgentListeningSocket.bind(path)
    defer { g_object_unref(UnsafeMutableRawPointer(listening)) }
    return (agent, try AgentServer(listeningSocket: listening, agent: agent))
}

/// Calls `Agent1.ContinueNearby` on another thread (as `baton continue` would); the answer
/// comes back through the main queue, which wakes the loop.
private func continueNearby(_ activity: NearbyActivity, through path: String, activationToken: String) -> Answer<(app: String?, error: GLibError?)> {
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
