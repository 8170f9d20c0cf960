@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// A device's typed diagnostics (`DiagnosticEvent`): what it did and refused, as values a tool
/// or a test observes — in process (`ContinuityNode.diagnostics`) and from another process
/// (`BATON_DIAGNOSTICS_FD`) — so nothing has to read the wording of its log.
final class DiagnosticsTests: TrustTestCase {
    /// Both ends of a handoff between two processes say, as events, where they listen, that
    /// they linked (and who dialed), and — on the continuing side — that the activity was
    /// continued (seed "Implementing Handoff in Your App": the Shapes example across devices).
    func testAHandoffBetweenProcessesIsSeenAsEvents() throws {
        let (_, folders) = try group(["A", "B"])
        let a = try RunningProcess(product: "baton-shapes", ["--device", folders["A"]!.path, "--listen", "127.0.0.1:0", "--create", "triangle"])
        let address = try XCTUnwrap(a.listeningAddress(), a.output)
        XCTAssertEqual(address.host, "127.0.0.1")
        XCTAssertNotEqual(address.port, 0)
        let b = try RunningProcess(product: "baton-shapes", ["--device", folders["B"]!.path, "--listen", "127.0.0.1:0",
                                                             "--peer", address.description, "--continue-nearby"])
        XCTAssertTrue(b.waitForLink(with: "A"), b.output)
        XCTAssertTrue(b.waitFor(.continued(activityType: "com.example.myapp.create-shape", from: "A")), b.output)
        XCTAssertEqual(b.waitForExit(), 0, b.output)
        XCTAssertEqual(a.waitForExit(), 0, a.output)
        XCTAssertTrue(a.diagnosticEvents.contains { if case .linked(_, dialed: false) = $0 { true } else { false } }, "\(a.diagnosticEvents)")
        XCTAssertTrue(b.diagnosticEvents.contains(.linked(peer: "A", dialed: true)), "\(b.diagnosticEvents)")
        XCTAssertFalse(b.diagnosticEvents.contains { if case .continuationFailed = $0 { true } else { false } })
    }

    /// A continuation whose device is not linked fails with Handoff's
    /// `userActivityConnectionUnavailable` (4609): the failure is published with that code.
    func testAFailedContinuationIsPublishedWithItsHandoffCode() throws {
        let (_, folders) = try group(["B"])
        try MainActor.assumeIsolated {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: folders["B"]!))
            var seen: [DiagnosticEvent] = []
            let observation = node.diagnostics.observe { seen.append($0) }
            let stale = NearbyActivity(device: "A", sequence: 1, activityType: "com.example.myapp.create-shape",
                                       title: nil, appID: "com.example.myapp", teamIdentifier: "T")
            let fetch = Outcome { try await node.fetchPayload(of: stale) }
            spin(until: { fetch.done })
            XCTAssertEqual(seen, [.continuationFailed(activityType: "com.example.myapp.create-shape",
                                                      code: CocoaError.Code.userActivityConnectionUnavailable.rawValue)])
            observation.cancel()
            let again = Outcome { try await node.fetchPayload(of: stale) }
            spin(until: { again.done })
            XCTAssertEqual(seen.count, 1, "a cancelled observation hears nothing more")
        }
    }

    /// Events travel as JSON lines in a stable form: what one process writes, another decodes.
    func testEventsRoundTripAsJSON() throws {
        let events: [DiagnosticEvent] = [
            .listening(host: "::", port: 4000), .linked(peer: "A", dialed: true), .unlinked(peer: "A", reason: .revoked), .revocationsAdopted(sequence: 4, from: nil),
            .refused(from: nil, reason: .tlsVersion), .refused(from: "192.0.2.7", reason: .tooManyConnections),
            .continuationFailed(activityType: "t", code: 4609), .appLeft(appID: "x", reason: .doesNotRead),
            .nearbyOffered(activityType: "t", device: "A"), .nearbyWithdrawn(activityType: "t", device: "A"),
            .discovery(state: "no-avahi-daemon"), .servicePublished(name: "baton-0123abcd", port: 4000),
            .deviceFound(address: "192.0.2.7:4000"), .deviceLost(address: "192.0.2.7:4000"), .stoppedListening(port: 4000),
            .pairingWindowOpen(port: 4001), .pairingCode(code: "123 456", onWindow: false), .pairingRefused(reason: .busy),
            .pairingFailed(reason: .cannotIssue, attemptsLeft: 2), .pairingFailed(reason: .declinedThere, attemptsLeft: nil),
            .paired(device: "B"), .joinedGroup(group: "Ada", device: "B"), .pairingWindowClosed(port: 4001),
            .continuedElsewhere(activityType: "t", by: "B"), .refused(from: "B", reason: .continuedWithoutFetch),
            .discoveryKeyMissing(sequence: 5, at: "B"), .discoveryKeyRetry(sequence: 5, afterSeconds: 2),
            .appRefused(userID: 5555, reason: .otherUser), .appRefused(userID: nil, reason: .tooManyConnections),
            .launchedAppExited(appID: "x", processID: 42, exitStatus: nil), .roundTripsMeasured(links: 2, answered: 1),
            .agentServing(path: "/run/user/1000/baton/agent.socket"), .joinedAgent(socketPath: "/tmp/a.sock", version: 4),
        ]
        for event in events {
            XCTAssertEqual(try JSONDecoder().decode(DiagnosticEvent.self, from: JSONEncoder().encode(event)), event)
        }
    }

    /// The nearby list handed to the provider, compared with the one before by device and type:
    /// an activity that comes is offered once (its updates are no change), one that goes or is
    /// replaced is withdrawn, and the events come in that order (withdrawn first).
    func testNearbyChangesArePublishedOncePerActivity() {
        MainActor.assumeIsolated {
            let diagnostics = Diagnostics()
            var seen: [DiagnosticEvent] = []
            let observation = diagnostics.observe { seen.append($0) }
            defer { observation.cancel() }
            let changes = NearbyChanges(diagnostics: diagnostics)
            func activity(_ device: String, _ type: String, _ sequence: UInt64, _ title: String) -> NearbyActivity {
                NearbyActivity(device: device, sequence: sequence, activityType: type, title: title, appID: "com.example.app", teamIdentifier: "T")
            }
            changes.update([activity("A", "t1", 1, "one")])
            XCTAssertEqual(seen, [.nearbyOffered(activityType: "t1", device: "A")])
            changes.update([activity("A", "t1", 2, "one, edited"), activity("B", "t1", 1, "B's")])
            XCTAssertEqual(seen.dropFirst(), [.nearbyOffered(activityType: "t1", device: "B")], "an update of A's is no change")
            changes.update([activity("A", "t2", 3, "two")])
            XCTAssertEqual(seen.dropFirst(2), [.nearbyWithdrawn(activityType: "t1", device: "A"), .nearbyWithdrawn(activityType: "t1", device: "B"),
                                               .nearbyOffered(activityType: "t2", device: "A")])
            changes.update([])
            XCTAssertEqual(seen.last, .nearbyWithdrawn(activityType: "t2", device: "A"))
            XCTAssertEqual(seen.count, 6)
        }
    }
}
