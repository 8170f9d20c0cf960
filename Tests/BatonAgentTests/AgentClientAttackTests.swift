import BatonLoop
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest
@testable import BatonAgent

/// Clients that misbehave on the agent's socket, and processes of another user: refused or
/// bounded, and never in the way of the apps that behave.
final class AgentClientAttackTests: AgentTestCase {
    /// On A's agent: a client that sends garbage, one that connects and says nothing, and one
    /// that joins, becomes the active app and never answers the agent (so a peer's
    /// `FetchPayload` waits on it). Garbage and silence are closed within the deadline; the
    /// fetch fails within the agent's bound; meanwhile Reader on the same agent is handed off
    /// to B as if they were not there.
    func testMisbehavingClientsDoNotStallOtherApps() throws {
        let (_, agentB, _) = try twoLinkedAgents()

        let garbage = try connectedSocket(socket("a.sock"))
        defer { close(garbage) }
        _ = "GET / HTTP/1.1\r\nHost: agent\r\n\r\n".withCString { write(garbage, $0, strlen($0)) }
        let silent = try connectedSocket(socket("a.sock"))
        defer { close(silent) }

        let hostile = try RawAgentClient(socket: socket("a.sock"))
        try hostile.joinAsSilentActiveApp("com.example.hostile", offering: "com.example.hostile.page")
        XCTAssertTrue(agentB.waitForNearby(from: "A", "com.example.hostile.page"), agentB.output)

        // A client on B fetches the hostile app's payload; A's agent asks the app, which never answers.
        let probe = try RawAgentClient(socket: socket("b.sock"))
        try probe.join(as: "com.example.probe")
        let nearby = AgentInterface.nearbyList(from: try XCTUnwrap(probe.call("GetNearby", [], replyType: "(aa{sv})").first))
        let offered = try XCTUnwrap(nearby.first { $0.activityType == "com.example.hostile.page" })
        let fetched = LockedResult()
        let fetching = Thread {
            let started = Date()
            do {
                _ = try probe.call("FetchPayload", [.string(offered.device), .uint64(offered.sequence)], replyType: "(ay)", timeout: 60_000)
                fetched.set(nil, Date().timeIntervalSince(started))
            } catch let error as GLibError {
                fetched.set(error, Date().timeIntervalSince(started))
            } catch {
                fetched.set(GLibError(domain: "test", code: 0, message: "\(error)"), Date().timeIntervalSince(started))
            }
        }
        fetching.start()

        XCTAssertTrue(closedByPeer(garbage, timeout: 20), "the agent kept a client that sent garbage")
        let readerA = try app("baton-reader", socket: socket("a.sock"), ["--read", "5"])
        let readerB = try app("baton-reader", socket: socket("b.sock"), ["--continue-nearby"])
        // What Reader shows its user: the article restored.
        XCTAssertNotNil(readerB.waitForLine(containing: "restoreUserActivityState: article 5"), readerB.output)
        XCTAssertEqual(readerA.waitForExit(timeout: 30), 0, readerA.output)
        XCTAssertTrue(readerA.output.contains("userActivityWasContinued"), readerA.output)
        XCTAssertTrue(closedByPeer(silent, timeout: 20), "the agent kept a client that never spoke past its deadline")

        let outcome = try XCTUnwrap(fetched.wait(timeout: 60), "the fetch from an app that never answers was not bounded")
        XCTAssertEqual(outcome.error?.remoteDBusErrorName, AgentInterface.ErrorName.handoffFailed, "\(String(describing: outcome.error))")
        XCTAssertLessThan(outcome.seconds, 50, "bounded by the agent's call deadline (5 s), well under the caller's 60 s")
    }

    /// A process of another user reaches the agent's socket (root, whom file modes do not stop,
    /// against an agent run as uid 4242): the agent reads its uid from the socket and closes
    /// it before reading anything, and says so.
    func testAnotherUidIsRefused() throws {
        let folders = try devices("A")
        let runtime = root.appendingPathComponent("run-4242")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        chmod(runtime.path, 0o700)
        for path in [folders[0], runtime.path, root.path] { XCTAssertEqual(chown(path, 4242, 4242), 0) }
        for file in try FileManager.default.contentsOfDirectory(atPath: folders[0]) {
            XCTAssertEqual(chown(folders[0] + "/" + file, 4242, 4242), 0)
        }
        let path = runtime.appendingPathComponent("agent.socket").path
        let agent = try start("/usr/bin/setpriv", ["--reuid=4242", "--regid=4242", "--clear-groups", productURL("batond").path,
                                                   "--device", folders[0], "--local", "--socket", path],
                          environment: ["XDG_CONFIG_HOME": runtime.path, "HOME": runtime.path, "PATH": "/usr/bin:/bin"])
        XCTAssertNotNil(agent.listeningAddress(), agent.output)
        let fd = try connectedSocket(path)
        defer { close(fd) }
        XCTAssertTrue(closedByPeer(fd, timeout: 20), "the agent kept a connection of another uid")
        XCTAssertTrue(agent.waitFor(.appRefused(userID: 0, reason: .otherUser)), agent.output)
        XCTAssertThrowsError(try RawAgentClient(socket: path), "D-Bus with another uid")
    }
}

/// The outcome of a call made on another thread: set once, waited for with a bound.
final class LockedResult: @unchecked Sendable {
    private let condition = NSCondition()
    private var outcome: (error: GLibError?, seconds: TimeInterval)?

    func set(_ error: GLibError?, _ seconds: TimeInterval) {
        condition.lock()
        outcome = (error, seconds)
        condition.broadcast()
        condition.unlock()
    }

    func wait(timeout: TimeInterval) -> (error: GLibError?, seconds: TimeInterval)? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while outcome == nil, condition.wait(until: deadline) {}
        return outcome
    }
}
