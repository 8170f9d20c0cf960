@testable import BatonAgent
import BatonContinuity
import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest

/// What a body run on a thread of its own gave, for the loop to wait on.
private final class OffLoopResult<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

/// Runs `body` (synchronous GDBus calls to an agent of this process) on a thread of its own
/// while the loop runs, and returns what it gave.
@MainActor
private func offLoop<T>(_ body: @escaping @Sendable () throws -> T) throws -> T {
    let box = OffLoopResult<T>()
    Thread.detachNewThread {
        let result = Result { try body() }
        DispatchQueue.main.async { box.result = result }  // wakes the loop
    }
    spin(until: { box.result != nil })
    return try box.result!.get()
}

/// The agent forwards an app's `Continued` in the loop turn that reads it and answers the app
/// in the turn that reads the other device's acknowledgement (issue 26): two agents in this
/// process, linked on loopback, an app joined to each over the agents' real sockets (GDBus
/// clients on threads of their own). Loop turns are counted (`LoopIterationCounter`) from the
/// turn in which the originating agent acknowledges (`continuedElsewhere`) to the one in which
/// the continuing agent has answered its app (`continued`, published beside the reply): one,
/// where a task resumed after the read makes it two.
final class AgentContinuedInTurnTests: XCTestCase {
    func testContinuedIsAnsweredInTheTurnThatReadsTheAcknowledgement() throws {
        let root = URL(fileURLWithPath: "/tmp").appendingPathComponent("baton-cit-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        chmod(root.path, 0o700)
        defer { try? FileManager.default.removeItem(at: root) }
        let authority = try GroupAuthority.create(name: "Ada", in: ConfigDirectory(url: root.appendingPathComponent("admin")))
        for name in ["A", "B"] { try authority.issueDevice(named: name).write(to: root.appendingPathComponent(name)) }
        let type = "com.example.shapes.editing"

        try MainActor.assumeIsolated {
            @MainActor func agent(_ name: String, peers: [PeerAddress]) throws -> (Agent, AgentServer, String) {
                let folder = root.appendingPathComponent(name)
                let agent = try Agent(identity: try DeviceIdentity.load(from: folder), identityDirectory: folder, staticPeers: peers)
                try agent.start(host: "127.0.0.1", discovery: .off)
                let socket = root.appendingPathComponent("\(name).sock").path
                let listening = try AgentListeningSocket.bind(socket)
                defer { g_object_unref(UnsafeMutableRawPointer(listening)) }
                return (agent, try AgentServer(listeningSocket: listening, agent: agent), socket)
            }
            let (agentA, serverA, socketA) = try agent("A", peers: [])
            let (agentB, serverB, socketB) = try agent("B", peers: [PeerAddress(host: "127.0.0.1", port: agentA.node.port!)])
            defer {
                serverB.stop()
                agentB.stop()
                serverA.stop()
                agentA.stop()
                drainIdle()
            }

            // The originating app advertises and hands its agent the payload; the continuing
            // app joins B's agent.
            let payload = Data("the shape".utf8)
            let originating = try offLoop {
                let client = try RawAgentClient(socket: socketA)
                try client.joinAsSilentActiveApp("com.example.shapes", offering: type)
                _ = try client.call("HoldPayload", [.uint64(1), .bytes(payload)], replyType: "()")
                return client
            }
            let client = try offLoop {
                let client = try RawAgentClient(socket: socketB)
                try client.join(as: "com.example.shapes")
                return client
            }
            spin(until: { agentB.apps.nearby.contains { $0.activityType == type } })
            let activity = agentB.apps.nearby.first { $0.activityType == type }!
            let arguments: [Variant] = [.string(activity.device), .uint64(activity.sequence)]
            let fetched = try offLoop { try client.call("FetchPayload", arguments, replyType: "(ay)") }
            XCTAssertEqual(fetched, [.bytes(payload)])

            var acknowledged: Int?, answered: Int?
            let counter = LoopIterationCounter(on: MainLoop.context)
            defer { counter.remove() }
            let observations = [
                agentA.node.diagnostics.observe { if case .continuedElsewhere = $0 { acknowledged = counter.iterations } },
                agentB.node.diagnostics.observe { if case .continued = $0 { answered = counter.iterations } },
            ]
            defer { for observation in observations { observation.cancel() } }
            // The fewest turns over a few continuations: turns of other sources only add.
            var turns: [Int] = []
            for _ in 0..<5 {
                acknowledged = nil
                answered = nil
                XCTAssertEqual(try offLoop { try client.call("Continued", arguments, replyType: "()") }, [])
                let (before, after) = try XCTUnwrap(acknowledged.flatMap { a in answered.map { (a, $0) } }, "both agents said so")
                turns.append(after - before)
            }
            XCTAssertEqual(turns.min(), 1, "answered in the turn after the acknowledgement was written: \(turns)")
            let record = agentB.continuationHistory.records.last { $0.activityType == type }
            XCTAssertEqual(record?.steps.last?.kind, .wasContinuedSent, "recorded as the task's way did")
            withExtendedLifetime(originating) {}
        }
    }
}
