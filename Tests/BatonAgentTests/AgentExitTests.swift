import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 31: `batond` stops cleanly on SIGTERM — its links closed with TLS close_notify (the
/// peer drops the link as closed, not broken), its socket removed, its lock released, status
/// 0, nothing left running. How quickly is measured in `make bench` (AgentExitBenchmarks), not
/// here.
final class AgentExitTests: AgentTestCase {
    func testSIGTERMEndsTheAgentCleanlyAndItsPeerSeesTheLinkClosed() throws {
        let (agentA, agentB, _) = try twoLinkedAgents()
        XCTAssertTrue(agentA.waitForLink(with: "B"), agentA.output)
        XCTAssertTrue(agentB.waitForLink(with: "A"), agentB.output)
        let pid = agentA.processIdentifier

        XCTAssertEqual(kill(pid, SIGTERM), 0)
        XCTAssertEqual(agentA.waitForExit(timeout: 30), 0, agentA.output)

        XCTAssertNotNil(agentB.waitForEvent { if case .unlinked("A", .closed) = $0 { true } else { false } },
                        "the peer saw the link closed, not broken: \(agentB.output)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket("a.sock")), "the agent's socket is removed")
        // The lock is free: another agent could take it now.
        let lock = open(socket("a.sock") + ".lock", O_RDWR)
        XCTAssertGreaterThanOrEqual(lock, 0)
        XCTAssertEqual(flock(lock, LOCK_EX | LOCK_NB), 0, "the lock is released")
        close(lock)
        XCTAssertNotEqual(kill(pid, 0), 0, "nothing of the agent runs")
        XCTAssertTrue(agentB.isRunning, "the peer runs on")
    }
}
