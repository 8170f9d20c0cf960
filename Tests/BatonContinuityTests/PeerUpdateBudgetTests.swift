@testable import Baton
@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 26, "Memory per peer … is bounded: a flooding group device is slowed": a device's
/// activity is state, so a linked device sending `CurrentChanged` past its budget
/// (`UpdateBudget`, 20 a second, bursts of 50) has only its latest update taken, and its link
/// is read only as fast as the budget allows — TCP slows the device itself. Real processes: a
/// `DeviceProbe` that floods, and a node in this process.
final class PeerUpdateBudgetTests: TrustTestCase {
    nonisolated(unsafe) private var probe: RunningProcess?

    override func tearDownWithError() throws {
        probe?.terminate()
        probe?.waitForExit(timeout: 10)
        probe = nil
        try super.tearDownWithError()
    }

    func testAFloodOfActivityUpdatesIsSlowedAndTheLatestIsTaken() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let folder = root.appendingPathComponent("A")
        try authority.issueDevice(named: "A").write(to: folder)
        let probe = try RunningProcess(product: "DeviceProbe", [folder.path, "--ok"])
        self.probe = probe
        let address = try XCTUnwrap(probe.listeningAddress(), probe.output)
        let b = try authority.issueDevice(named: "B")
        try MainActor.assumeIsolated {
            launchAsProbeApp(ContinuedActivityRecorder())
            let node = try ContinuityNode(identity: b, staticPeers: [address])
            var limited: [DiagnosticEvent] = []
            let observation = node.diagnostics.observe { if case .peerLimited = $0 { limited.append($0) } }
            defer { observation.cancel() }
            try node.start(host: "127.0.0.1")
            defer { node.stop() }
            spin(until: { !Application.shared.nearbyActivities.isEmpty })
            let updates = 2000  // past `maximumFoldedUpdates` in a window: the link is not read for a while too
            let started = ContinuousClock.now
            probe.send("flood \(updates)")
            defer { print("measured: the latest of \(updates) updates taken after \(ContinuousClock.now - started)") }
            // The last update reaches B, after the others were folded into it.
            XCTAssertTrue(MainLoop.run(until: {
                Application.shared.nearbyActivities.first?.title?.hasPrefix("\(updates - 1) ") == true
            }, timeout: .seconds(120)), "B never took A's latest update")
            XCTAssertEqual(limited, [.peerLimited(peer: "A", reason: .updateRate)], "said once, for A")
            XCTAssertEqual(node.connectedPeers, ["A"], "slowed, not cut")
        }
        XCTAssertNotNil(probe.waitForLine(containing: "flooded"), probe.output)
    }

    /// The budget: a burst is taken at once, then one token each 1/`perSecond` s; only whole
    /// tokens are taken.
    func testTheBudgetTakesABurstThenItsRate() {
        var budget = UpdateBudget(perSecond: 20, burst: 3)
        let start = ContinuousClock.now
        XCTAssertEqual((0..<5).map { _ in budget.take(now: start) }, [true, true, true, false, false])
        XCTAssertEqual(budget.untilNext(now: start), .milliseconds(50))
        XCTAssertFalse(budget.take(now: start + .milliseconds(40)))
        XCTAssertTrue(budget.take(now: start + .milliseconds(50)))
        XCTAssertFalse(budget.take(now: start + .milliseconds(50)))
        XCTAssertEqual((0..<4).map { _ in budget.take(now: start + .seconds(10)) }, [true, true, true, false], "never more than the burst")
    }
}
