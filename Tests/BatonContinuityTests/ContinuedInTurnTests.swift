@testable import Baton
@testable import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

/// A device served in this process that records what its peers ask of it, in order, and
/// refuses `Continued` when told to.
@MainActor
private final class ContinuedRecordingDevice: InProcessDevice {
    var asked: [String] = []
    var refusesContinued = false

    override func payload(sequence: UInt64, for peer: DevicePeer) throws(DeviceServiceError) -> Data {
        asked.append("FetchPayload")
        return Data("payload".utf8)
    }

    override func continued(sequence: UInt64, by peer: DevicePeer) throws(DeviceServiceError) {
        asked.append("Continued")
        if refusesContinued { throw .refused("not this time") }
    }
}

/// `ContinuityNode.startConfirmingContinued` (issue 26, an agent's forwarded `Continued`): over
/// a real link (mutual TLS on loopback) to a device served in this process, `FetchPayload` is
/// sent first to a device the activity was not fetched from, and the completion runs from the
/// read of the acknowledgement itself — outside any task — and never before the call returns;
/// failures and diagnostics as `confirmContinued(_:)` gives them.
final class ContinuedInTurnTests: TrustTestCase {
    func testTheAcknowledgementIsTakenOutsideAnyTaskAndFailuresKeepTheirCodes() throws {
        let authority = try GroupAuthority.create(name: "Ada-\(UUID().uuidString.prefix(8))", in: config(UUID().uuidString))
        let a = try authority.issueDevice(named: "A"), b = try authority.issueDevice(named: "B")
        try MainActor.assumeIsolated {
            launchAsProbeApp(FailureRecorder())
            let device = ContinuedRecordingDevice(identity: a, title: "Recording")
            let address = try device.start()
            let node = try ContinuityNode(identity: b, staticPeers: [address])
            var events: [DiagnosticEvent] = []
            let observation = node.diagnostics.observe { event in
                switch event {
                case .continued, .continuationFailed: events.append(event)
                default: break
                }
            }
            try node.start(host: "127.0.0.1")
            defer {
                observation.cancel()
                node.stop()
                device.stop()
                drainIdle()
            }
            spin(until: { !Application.shared.nearbyActivities.isEmpty })
            let entry = Application.shared.nearbyActivities[0]

            // Not fetched: the device is asked for the activity first, then told.
            var result: Result<Void, CocoaError>?
            var inTask: Bool?
            node.startConfirmingContinued(entry) { outcome in
                inTask = withUnsafeCurrentTask { $0 != nil }
                result = outcome
            }
            XCTAssertNil(result, "the completion never runs before the call returns")
            spin(until: { result != nil })
            XCTAssertNoThrow(try result?.get())
            XCTAssertEqual(inTask, false, "the acknowledgement is handed over from its read, not from a task resumed later")
            XCTAssertEqual(device.asked, ["FetchPayload", "Continued"], "asked for the activity before being told it was continued")
            XCTAssertEqual(events, [.continued(activityType: entry.activityType, from: entry.device)])

            // Fetched now: told alone.
            device.asked = []
            result = nil
            node.startConfirmingContinued(entry) { result = $0 }
            spin(until: { result != nil })
            XCTAssertNoThrow(try result?.get())
            XCTAssertEqual(device.asked, ["Continued"])

            // A refusal: the code the task's way gives, and its diagnostic.
            device.refusesContinued = true
            events = []
            result = nil
            node.startConfirmingContinued(entry) { result = $0 }
            spin(until: { result != nil })
            guard case .failure(let refused)? = result else { return XCTFail("a refused Continued succeeded") }
            var viaTask: (any Error)?
            Task { @MainActor in
                do { try await node.confirmContinued(entry) } catch { viaTask = error }
                if viaTask == nil { viaTask = CocoaError(.featureUnsupported) }
            }
            spin(until: { viaTask != nil })
            XCTAssertEqual(refused.code, .userActivityHandoffFailed)
            XCTAssertEqual(refused.code, HandoffFailure.error(for: viaTask!).code, "both ways give the same code")
            XCTAssertEqual(events, [.continuationFailed(activityType: entry.activityType, code: refused.code.rawValue),
                                    .continuationFailed(activityType: entry.activityType, code: refused.code.rawValue)])

            // A device with no link: the code `confirmContinued(_:)` gives, after the call returns.
            let elsewhere = NearbyActivity(device: "Nobody", sequence: entry.sequence, activityType: entry.activityType, title: entry.title,
                                           appID: entry.appID, teamIdentifier: entry.teamIdentifier, webpageURL: nil)
            var failure: Result<Void, CocoaError>?
            node.startConfirmingContinued(elsewhere) { failure = $0 }
            XCTAssertNil(failure)
            spin(until: { failure != nil })
            guard case .failure(let error)? = failure else { return XCTFail("confirmed to a device with no link") }
            XCTAssertEqual(error.code, .userActivityConnectionUnavailable)
        }
    }
}
