import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest
@testable import BatonAgent

/// Two agents (`batond`) linked to each other, each with an app joined: every D-Bus connection
/// they hold — the link between the devices over TLS, the apps' connections on the agent's
/// socket — runs on Baton's own engine on the loop thread, so neither agent has GDBus's worker
/// thread ("gdbus").
final class AgentThreadTests: AgentTestCase {
    func testLinkedAgentsWithJoinedAppsHaveNoGDBusWorkerThread() throws {
        let (agentA, agentB, _) = try twoLinkedAgents()
        XCTAssertNotNil(agentA.waitForEvent { if case .linked = $0 { true } else { false } }, agentA.output)  // B, shown by its identifier until its list names it
        XCTAssertTrue(agentB.waitForLink(with: "A"), agentB.output)
        _ = try app("baton-reader", socket: socket("a.sock"), ["--read", "1"])
        _ = try app("baton-reader", socket: socket("b.sock"), ["--read", "1"])
        for agent in [agentA, agentB] {
            let threads = threadNames(of: agent)
            XCTAssertFalse(threads.isEmpty, "the agent's threads cannot be read")
            XCTAssertFalse(threads.contains("gdbus"), "threads of \(agent.processIdentifier): \(threads)")
        }
    }

    /// The names of `process`'s threads (`/proc/PID/task/*/comm`).
    private func threadNames(of process: RunningProcess) -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/task")) ?? []
        return tasks.compactMap { task in
            (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/task/\(task)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
