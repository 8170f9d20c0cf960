@testable import Baton
@testable import BatonContinuity
import BatonTestSupport
import CGLib
import Foundation
import XCTest

/// What this process holds: open file descriptors, GLib callback boxes, heap bytes.
struct ResourceCount: Equatable, CustomStringConvertible {
    var descriptors: Int
    var callbackBoxes: Int
    var heapBytes: Int

    static func now() -> ResourceCount {
        ResourceCount(descriptors: ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count,
                      callbackBoxes: LoopDiagnostics.liveCallbackBoxes, heapBytes: Int(baton_heap_bytes_in_use()))
    }

    var description: String { "\(descriptors) fds, \(callbackBoxes) callback boxes, \(heapBytes) heap bytes" }
}

/// A device of the group, in this process, that breaks the protocol where a real app cannot:
/// it advertises an activity properly, then answers `FetchPayload` with whatever `answer`
/// makes. It is a stand-in for a faulty or hostile peer (the honest code path cannot send
/// such payloads); the continuing side is the real node.
@MainActor
final class MisbehavingDevice: InProcessDevice {
    let answer: () -> Data

    init(identity: DeviceIdentity, answer: @escaping () -> Data) {
        self.answer = answer
        super.init(identity: identity, title: "Faulty")
    }

    override func payload(sequence: UInt64, for peer: DevicePeer) throws(DeviceServiceError) -> Data { answer() }
}

/// Issue 5's fault suite (every failure is reported, docs/PROTOCOL.md, section 3): malformed, truncated, mistyped and
/// oversized answers each end the continuation in didFailToContinue with the matching code
/// (handoff-programming-guide, "Continuing an Activity"), and this app goes on. Each case runs
/// seven times; after the last run the process holds the same file descriptors and callback
/// boxes as after the first, and its heap has not grown beyond noise: nothing leaks per
/// continuation.
/// (Peers that die, stall or lose their link are real processes and hosts: NetworkFailureTests,
/// ContinuationStreamTests, DiscoveryBetweenHostsTests.)
final class FaultSuiteTests: TrustTestCase {
    private func continueFromMisbehavingDevice(_ answer: @escaping @Sendable () -> Data) throws -> [CocoaError.Code] {
        let authority = try GroupAuthority.create(name: "Ada-\(UUID().uuidString.prefix(8))", in: config(UUID().uuidString))
        let a = try authority.issueDevice(named: "A"), b = try authority.issueDevice(named: "B")
        return try MainActor.assumeIsolated {
            let recorder = FailureRecorder()
            launchAsProbeApp(recorder)
            let device = MisbehavingDevice(identity: a, answer: answer)
            let address = try device.start()
            let node = try ContinuityNode(identity: b, staticPeers: [address])
            try node.start(host: "127.0.0.1")
            spin(until: { !Application.shared.nearbyActivities.isEmpty })
            Application.shared.continueNearbyActivity(Application.shared.nearbyActivities[0], timeout: .seconds(5))
            spin(until: { recorder.ended })
            node.stop()
            device.stop()
            drainIdle()
            XCTAssertEqual(recorder.continued, 0, "nothing half-continued")
            return recorder.failures.map(\.code)
        }
    }

    /// Runs the case seven times and checks what the process holds after each. Links are
    /// released asynchronously (GDBus finalises a closed connection from its worker thread), so
    /// each run ends once the callback boxes are back to where they started: an event, not a
    /// delay (the wait's own timeout source is one box). A leaked box or descriptor makes that
    /// wait fail. The heap may move by noise (GLib's and GnuTLS's caches; a TLS connection that
    /// a GIO worker thread finalises just after the sample: a few hundred KiB for one sample
    /// under load) but not grow with each continuation: the lower of the last two samples is
    /// compared with the lower of the first two, five continuations apart.
    private func check(_ expected: CocoaError.Code, file: StaticString = #filePath, line: UInt = #line,
                       answer: @escaping @Sendable () -> Data) throws {
        _ = MainActor.assumeIsolated { MainLoop.run(until: { true }, timeout: .zero) }  // the main-queue bridge exists
        let boxes = LoopDiagnostics.liveCallbackBoxes
        var counts: [ResourceCount] = []
        for _ in 0..<7 {
            XCTAssertEqual(try continueFromMisbehavingDevice(answer), [expected], file: file, line: line)
            let descriptors = counts.first?.descriptors ?? Int.max
            MainActor.assumeIsolated {
                spin(until: { LoopDiagnostics.liveCallbackBoxes <= boxes + 1 && ResourceCount.now().descriptors <= descriptors },
                     file: file, line: line)
            }
            counts.append(ResourceCount.now())
        }
        // A box or descriptor of the last run may still be on its way out (a call GDBus
        // completes from its worker after the link closed): wait for the count of the first
        // run, by event. A leaked one never comes back, and the wait fails.
        let first = counts[0]
        MainActor.assumeIsolated {
            spin(until: { LoopDiagnostics.liveCallbackBoxes <= first.callbackBoxes + 1 && ResourceCount.now().descriptors <= first.descriptors },
                 file: file, line: line)
        }
        let last = ResourceCount.now()
        // At most as many: what other tests left behind may still be closing meanwhile.
        XCTAssertLessThanOrEqual(last.descriptors, first.descriptors, "file descriptors: \(first) → \(last)", file: file, line: line)
        XCTAssertLessThanOrEqual(last.callbackBoxes, first.callbackBoxes, "callback boxes: \(first) → \(last)", file: file, line: line)
        let early = min(counts[0].heapBytes, counts[1].heapBytes), late = min(counts[5].heapBytes, counts[6].heapBytes, last.heapBytes)
        XCTAssertLessThan(late - early, 256 * 1024, "heap over five continuations: \(counts.map(\.heapBytes))",
                          file: file, line: line)
    }

    func testGarbageInsteadOfAPayloadFails() throws {
        try check(.userActivityHandoffFailed) { Data((0..<200).map { _ in UInt8.random(in: 0...255) }) }
    }

    func testATruncatedPayloadFails() throws {
        let whole = try MainActor.assumeIsolated { () throws -> Data in
            let activity = UserActivity(activityType: "com.example.probe.editing")
            activity.userInfo = ["text": String(repeating: "x", count: 500)]
            return try activity.payload()
        }
        try check(.userActivityHandoffFailed) { whole.prefix(whole.count / 2) }
    }

    func testAPayloadOfAnotherTypeThanOfferedFails() throws {
        let other = try MainActor.assumeIsolated { try UserActivity(activityType: "com.example.probe.other").payload() }
        try check(.userActivityHandoffFailed) { other }
    }

    func testAnEmptyPayloadFails() throws {
        try check(.userActivityHandoffFailed) { Data() }
    }

    /// Over the D-Bus message limit: the link is dropped before the reply is read.
    func testAnOversizedReplyDropsTheLink() throws {
        try check(.userActivityConnectionUnavailable) { Data(count: PeerBus.maximumMessageBody + 1) }
    }

    /// Within the message limit but over the payload limit: refused as too large.
    func testAPayloadOverTheLimitIsTooLarge() throws {
        let oversized = try MainActor.assumeIsolated { () throws -> Data in
            let activity = UserActivity(activityType: "com.example.probe.editing")
            return try activity.payload()
        }
        try check(.userActivityHandoffUserInfoTooLarge) { oversized + Data(count: UserActivity.payloadLimit) }
    }
}
