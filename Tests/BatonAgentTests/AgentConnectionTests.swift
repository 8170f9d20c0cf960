@testable import Baton
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest
@testable import BatonAgent

/// An app joined to an agent that is not there: it keeps running, and a continuation fails
/// with `userActivityConnectionUnavailable`, through the app delegate as any failure does.
final class AgentConnectionTests: XCTestCase {
    func testWithoutTheAgentAContinuationFailsWithConnectionUnavailable() throws {
        MainActor.assumeIsolated {
            Application.shared.resetForTesting()
            defer { Application.shared.resetForTesting() }
            let delegate = FailureRecorder()
            Application.shared.manifest = AppManifest(appID: "com.example.test", teamIdentifier: "TEAM", activityTypes: ["com.example.test.edit"])
            Application.shared.delegate = delegate
            Application.shared.finishLaunching()
            let connection = AgentConnection.join(socketPath: "/nonexistent/baton/agent.socket")
            defer { connection.leave() }
            XCTAssertTrue(Application.shared.nearbySource === connection)
            let entry = NearbyActivity(device: "A", sequence: 1, activityType: "com.example.test.edit", title: nil,
                                       appID: "com.example.test", teamIdentifier: "TEAM")
            Application.shared.continueNearbyActivity(entry)
            spin(until: { delegate.failure != nil })
            XCTAssertEqual(delegate.failure?.code, .userActivityConnectionUnavailable)
            XCTAssertFalse(connection.isJoined)
            connection.leave()
            XCTAssertNil(Application.shared.nearbySource)
        }
    }
}

/// Records how a continuation failed.
private final class FailureRecorder: ApplicationDelegate {
    var failure: CocoaError?
    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
        failure = error as? CocoaError
    }
}
