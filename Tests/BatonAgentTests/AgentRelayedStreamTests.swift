import BatonTestSupport
import Foundation
import XCTest

/// Continuation streams relayed by two agents (`batond`, static peers on loopback) when one
/// end breaks: the other end's read fails, never ends as if the stream were whole.
final class AgentRelayedStreamTests: AgentTestCase {
    /// The offering app dies half way through a 16 MB answer: its agent sees its connection
    /// end without the end frame and breaks the stream to B, whose agent breaks its app's
    /// connection the same way; B's app fails with userActivityConnectionUnavailable instead of
    /// receiving 8 MB as if that were all, and keeps running.
    func testAnAppDyingMidStreamFailsTheStreamOnTheOtherDevice() throws {
        let (_, _, _) = try twoLinkedAgents()
        let probe = productURL("DeviceProbe").path
        let offering = try start(probe, ["unused", "--ok", "--stream-die", "--agent", socket("a.sock")])
        XCTAssertNotNil(offering.waitForLine(containing: "joined the agent"), offering.output)
        let continuing = try start(probe, ["unused", "--ok", "--agent", socket("b.sock")])
        XCTAssertNotNil(continuing.waitForLine(containing: "nearby A"), continuing.output)
        continuing.send("continue 10")
        XCTAssertNotNil(continuing.waitForLine(containing: "continued Probe"), continuing.output)
        continuing.send("streams \(16 * 1024 * 1024)")
        XCTAssertNotNil(offering.waitForLine(containing: "dying mid-stream"), offering.output)
        let unavailable = CocoaError.Code.userActivityConnectionUnavailable.rawValue
        XCTAssertNotNil(continuing.waitForLine(containing: "stream failed: code \(unavailable),", timeout: 60), continuing.output)
        XCTAssertFalse(continuing.output.contains("stream received"), continuing.output)
        continuing.send("ping")
        XCTAssertNotNil(continuing.waitForLine(containing: "pong"), continuing.output)
    }
}
