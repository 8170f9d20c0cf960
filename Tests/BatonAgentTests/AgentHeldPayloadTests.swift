import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Held payloads (docs/PROTOCOL.md §5, "Held payloads"): the originating app hands its agent
/// the payload of each save, says when anything it carries changes, and the agent answers a
/// peer's fetch from what it holds while the activity is unchanged; otherwise it asks the app,
/// which saves first.
final class AgentHeldPayloadTests: AgentTestCase {
    /// DeviceProbe on A (joined to A's `batond`) is continued from DeviceProbe on B four times;
    /// A's probe prints each save of its activity. The first fetch asks A's app, which saves
    /// first; the second is answered by A's agent (no second save) and A's app is still told it
    /// was continued. A title set directly is seen by the next fetch, which asks the app again
    /// and so saves first; `needsSave` is followed by the app's own save in its idle, which
    /// hands the agent the new payload, and a fetch after that is answered from it. Apple's
    /// rule: the activity is brought up to date when it needs it, "before the activity is
    /// continued on another device" (handoff-programming-guide, "User Activity Delegate").
    func testACleanActivityIsServedByTheAgentAndAChangedOneIsSavedFirst() throws {
        let (agentA, agentB, _) = try twoLinkedAgents()
        let probe = productURL("DeviceProbe").path
        let offering = try start(probe, ["unused", "--ok", "--agent", socket("a.sock")])
        XCTAssertTrue(agentA.waitForAppJoined(processID: offering.processIdentifier), offering.output + agentA.output)
        let continuing = try start(probe, ["unused", "--ok", "--agent", socket("b.sock")])
        XCTAssertTrue(agentB.waitForNearby(from: "A"), agentB.output)
        // The probe's own list (it prints it as it changes), which `continue` takes from; its
        // saves, titles and delegate calls below are what the app saw, as the probe reports them.
        XCTAssertNotNil(continuing.waitForLine(containing: "nearby A"), continuing.output)
        var pings = 0
        /// The saves A's probe printed before it answers a ping (so every one it made so far).
        func saves() -> Int {
            pings += 1
            offering.send("ping")
            XCTAssertNotNil(offering.waitForLine(containing: "pong", occurrence: pings), offering.output)
            return offering.output.components(separatedBy: "saving for a fetch").count - 1
        }

        continuing.send("continue 10")
        XCTAssertTrue(agentB.waitForContinued(from: "A"), continuing.output)
        XCTAssertEqual(saves(), 1, "the first fetch asks the app, which saves first: " + offering.output)

        continuing.send("continue 10")
        XCTAssertTrue(agentB.waitForContinued(from: "A", occurrence: 2), continuing.output)
        XCTAssertEqual(saves(), 1, "an unchanged activity is answered by the agent, without a save: " + offering.output)
        XCTAssertTrue(agentA.waitForContinuedElsewhere(occurrence: 2), agentA.output)
        XCTAssertNotNil(offering.waitForLine(containing: "was continued", occurrence: 2), offering.output)

        offering.send("retitle Changed")
        XCTAssertNotNil(offering.waitForLine(containing: "retitled"), offering.output)
        continuing.send("continue 10")
        XCTAssertNotNil(continuing.waitForLine(containing: "continued Changed"), continuing.output)
        XCTAssertEqual(saves(), 2, "a changed activity is asked for again, and saved first: " + offering.output)

        offering.send("touch")
        XCTAssertNotNil(offering.waitForLine(containing: "saving for a fetch", occurrence: 3), offering.output)
        XCTAssertEqual(saves(), 3)
        // The app hands the agent that save's payload in a message of its own, which a fetch
        // from B can overtake (B's request crosses other processes): then the agent asks the
        // app, which saves once more. Either way, the fetch after it is served by the agent.
        continuing.send("continue 10")
        XCTAssertNotNil(continuing.waitForLine(containing: "continued Changed", occurrence: 2), continuing.output)
        let afterTouch = saves()
        XCTAssertTrue((3...4).contains(afterTouch), "the save after needsSave is sent, or the app saves once for the fetch: " + offering.output)
        continuing.send("continue 10")
        XCTAssertNotNil(continuing.waitForLine(containing: "continued Changed", occurrence: 3), continuing.output)
        XCTAssertEqual(saves(), afterTouch, "then the agent holds it and the app is not asked: " + offering.output)
        XCTAssertFalse(agentB.diagnosticEvents.contains { if case .continuationFailed = $0 { true } else { false } }, agentB.output)
        XCTAssertFalse(continuing.output.contains("failed"), continuing.output)
    }
}
