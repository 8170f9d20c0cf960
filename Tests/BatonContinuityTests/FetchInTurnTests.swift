@testable import Baton
@testable import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

/// `ContinuityNode.startFetchingPayload` (issue 26, an agent's forwarded `FetchPayload`): the
/// payload over a real link (mutual TLS on loopback) to a device served in this process, its
/// completion run from the read of the reply itself — outside any task, so no turn of the loop
/// comes between the reply and what the completion writes — and never before the call returns;
/// failures as `fetchPayload(of:)` gives them.
final class FetchInTurnTests: TrustTestCase {
    func testTheReplyIsTakenOutsideAnyTaskAndFailuresKeepTheirCodes() throws {
        let authority = try GroupAuthority.create(name: "Ada-\(UUID().uuidString.prefix(8))", in: config(UUID().uuidString))
        let a = try authority.issueDevice(named: "A"), b = try authority.issueDevice(named: "B")
        let payload = Data("the payload, as the device sent it".utf8)
        try MainActor.assumeIsolated {
            launchAsProbeApp(FailureRecorder())
            let device = MisbehavingDevice(identity: a) { payload }
            let address = try device.start()
            let node = try ContinuityNode(identity: b, staticPeers: [address])
            try node.start(host: "127.0.0.1")
            defer {
                node.stop()
                device.stop()
                drainIdle()
            }
            spin(until: { !Application.shared.nearbyActivities.isEmpty })
            let entry = Application.shared.nearbyActivities[0]

            var result: Result<Data, CocoaError>?
            var inTask: Bool?
            node.startFetchingPayload(of: entry) { outcome in
                inTask = withUnsafeCurrentTask { $0 != nil }
                result = outcome
            }
            XCTAssertNil(result, "the completion never runs before the call returns")
            spin(until: { result != nil })
            XCTAssertEqual(try result?.get(), payload)
            XCTAssertEqual(inTask, false, "the reply is handed over from its read, not from a task resumed later")

            // A device with no link: the code `fetchPayload(of:)` gives, after the call returns.
            let elsewhere = NearbyActivity(device: "Nobody", sequence: entry.sequence, activityType: entry.activityType, title: entry.title,
                                           appID: entry.appID, teamIdentifier: entry.teamIdentifier, webpageURL: nil)
            var failure: Result<Data, CocoaError>?
            node.startFetchingPayload(of: elsewhere) { failure = $0 }
            XCTAssertNil(failure)
            spin(until: { failure != nil })
            guard case .failure(let error)? = failure else { return XCTFail("fetched from a device with no link: \(String(describing: failure))") }
            XCTAssertEqual(error.code, .userActivityConnectionUnavailable)

            // Beside the task's way, at once over the same link: the same payload.
            var viaTask: Result<Data, CocoaError>?
            Task { @MainActor in
                do { viaTask = .success(try await node.fetchPayload(of: entry)) } catch { viaTask = .failure(HandoffFailure.error(for: error)) }
            }
            var inTurn: Result<Data, CocoaError>?
            node.startFetchingPayload(of: entry) { inTurn = $0 }
            spin(until: { viaTask != nil && inTurn != nil })
            XCTAssertEqual(try inTurn?.get(), try viaTask?.get(), "both ways give the same payload")
        }
    }
}
