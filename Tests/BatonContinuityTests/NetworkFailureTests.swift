@testable import Baton
@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Records how continuations end, as an app delegate.
@MainActor
final class FailureRecorder: ApplicationDelegate {
    var failures: [CocoaError] = []
    var continued = 0
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
        continued += 1
        return true
    }
    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
        failures.append(error as! CocoaError)
    }
    var ended: Bool { continued + failures.count > 0 }
}

/// A fresh app with `delegate`, declaring the probe's activity type (the continuing side of the
/// network tests).
@MainActor
func launchAsProbeApp(_ delegate: any ApplicationDelegate) {
    Application.shared.resetForTesting()
    Application.shared.delegate = delegate
    Application.shared.manifest = AppManifest(appID: "com.example.probe", teamIdentifier: "PROBETEAM",
                                              activityTypes: ["com.example.probe.editing"])
    Application.shared.finishLaunching()
}

/// Every failure is reported (docs/PROTOCOL.md, section 3): a continuation from another device always ends, within a
/// bounded time, in didFailToContinue with the matching code, however the other side fails
/// (handoff-programming-guide, "Continuing an Activity": didFailToContinueUserActivityWithType).
final class NetworkFailureTests: TrustTestCase {
    /// Runs a misbehaving probe device A and, in this process as device B, continues its
    /// activity; returns how it ended and the probe.
    private func continueFromProbe(_ mode: [String], timeout: Duration = .seconds(20),
                                   beforeContinuing: (@Sendable (RunningProcess) -> Void)? = nil) throws -> (FailureRecorder, RunningProcess) {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let a = root.appendingPathComponent("A")
        try authority.issueDevice(named: "A").write(to: a)
        let b = try authority.issueDevice(named: "B")
        let probe = try RunningProcess(product: "DeviceProbe", [a.path] + mode)
        let address = try XCTUnwrap(probe.listeningAddress(), probe.output)
        return try MainActor.assumeIsolated {
            let recorder = FailureRecorder()
            launchAsProbeApp(recorder)
            let node = try ContinuityNode(identity: b, staticPeers: [address])
            try node.start(host: "127.0.0.1")
            defer { node.stop() }
            spin(until: { !Application.shared.nearbyActivities.isEmpty })
            let offered = Application.shared.nearbyActivities[0]
            if let beforeContinuing {
                beforeContinuing(probe)
                spin(until: { Application.shared.nearbyActivities.first?.sequence != offered.sequence })
            }
            Application.shared.continueNearbyActivity(offered, timeout: timeout)
            spin(until: { recorder.ended })
            drainIdle()
            return (recorder, probe)
        }
    }

    func testACorrectPeerContinues() throws {
        let (recorder, probe) = try continueFromProbe(["--ok"])
        // The probe's app says each save its activity's delegate was asked for: the fetch reached the app.
        XCTAssertNotNil(probe.waitForLine(containing: "saving for a fetch"), probe.output)
        MainActor.assumeIsolated {
            XCTAssertEqual(recorder.continued, 1)
            XCTAssertTrue(recorder.failures.isEmpty)
        }
        probe.terminate()
    }

    func testAStalledPeerTimesOut() throws {
        let (recorder, probe) = try continueFromProbe(["--stall"], timeout: .seconds(2))
        // The probe's app says it was asked, and stalls its answer.
        XCTAssertNotNil(probe.waitForLine(containing: "stalling"), probe.output)
        MainActor.assumeIsolated {
            XCTAssertEqual(recorder.failures.map(\.code), [.userActivityRemoteApplicationTimedOut])
            XCTAssertEqual(recorder.continued, 0)
        }
        probe.terminate()
    }

    func testAPeerThatDiesMidFetchEndsInConnectionUnavailable() throws {
        let (recorder, probe) = try continueFromProbe(["--die"])
        XCTAssertEqual(probe.waitForExit(), 3, probe.output)
        MainActor.assumeIsolated {
            XCTAssertEqual(recorder.failures.map(\.code), [.userActivityConnectionUnavailable])
        }
    }

    func testAnOversizedPayloadEndsInUserInfoTooLarge() throws {
        let (recorder, probe) = try continueFromProbe(["--oversize"])
        MainActor.assumeIsolated {
            XCTAssertEqual(recorder.failures.map(\.code), [.userActivityHandoffUserInfoTooLarge])
        }
        probe.terminate()
    }

    /// The activity changed on its device between the offer and the fetch: the stale offer
    /// fails cleanly (org.baton.Error.NotCurrent → handoff failed) and nothing is restored.
    func testAnActivityReplacedBeforeTheFetchFails() throws {
        let (recorder, probe) = try continueFromProbe(["--ok"]) { probe in
            probe.send("replace")
            // The probe's answer to `replace` (its protocol, not a log).
            XCTAssertNotNil(probe.waitForLine(containing: "replaced"), probe.output)
        }
        MainActor.assumeIsolated {
            XCTAssertEqual(recorder.failures.map(\.code), [.userActivityHandoffFailed])
            XCTAssertEqual(recorder.continued, 0)
        }
        probe.terminate()
    }

    /// about-handoff: only an app of the same team continues an activity.
    func testAnotherTeamsActivityFailsWithoutFetching() throws {
        let (recorder, probe) = try continueFromProbe(["--team", "OTHERTEAM"])
        MainActor.assumeIsolated {
            XCTAssertEqual(recorder.failures.map(\.code), [.userActivityHandoffFailed])
        }
        XCTAssertFalse(probe.output.contains("saving for a fetch"), "the payload is never asked for")
        probe.terminate()
    }

    /// A peer whose D-Bus message is over the size limit (a 512 KiB CurrentChanged, far under
    /// GDBus's own 128 MiB) is dropped before the message is used, and the device goes on.
    func testAPeerSendingAnOversizedMessageIsDropped() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let a = root.appendingPathComponent("A")
        try authority.issueDevice(named: "A").write(to: a)
        let b = try authority.issueDevice(named: "B")
        let probe = try RunningProcess(product: "DeviceProbe", [a.path, "--ok"])
        let address = try XCTUnwrap(probe.listeningAddress(), probe.output)
        try MainActor.assumeIsolated {
            let credential = try TLSCredential(identity: b)
            let channel = Outcome { try await SecureChannel.connect(host: address.host, port: address.port, identity: b, credential: credential) }
            spin(until: { channel.done })
            let bus = Outcome { try await PeerBus.open(over: try channel.get()) }
            spin(until: { bus.done })
            let huge = NearbyActivity(device: "B", sequence: 1, activityType: "com.example.probe.editing",
                                      title: String(repeating: "x", count: 512 * 1024), appID: "com.example.probe",
                                      teamIdentifier: "PROBETEAM", webpageURL: nil)
            try bus.get().emitCurrentChanged(DeviceInterface.metadata(huge))
            XCTAssertTrue(probe.waitForRefusal(.oversizedMessage), probe.output)
            // A's list is older than B (and B never sent its own): B shows by its identifier's short form.
            XCTAssertTrue(probe.waitForUnlink(from: "device \(b.identifier.prefix(8))"), probe.output)
            XCTAssertFalse(probe.diagnosticEvents.contains { if case .nearbyOffered = $0 { true } else { false } }, probe.output)
        }
        // The probe answers `ping` (its protocol): it still runs.
        probe.send("ping")
        XCTAssertNotNil(probe.waitForLine(containing: "pong"), probe.output)
        probe.terminate()
    }

    /// An app's long title is cut to 1 KiB at the source: metadata stays small, and no peer
    /// drops the link over it.
    func testALongTitleIsClippedToOneKiB() {
        XCTAssertEqual(DeviceInterface.clipped("short"), "short")
        let long = String(repeating: "é", count: 600)  // 2 bytes each
        let clipped = DeviceInterface.clipped(long)
        XCTAssertEqual(clipped.utf8.count, 1024)
        XCTAssertTrue(long.hasPrefix(clipped))
    }
}
