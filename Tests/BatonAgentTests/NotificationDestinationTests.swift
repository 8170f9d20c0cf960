@testable import Baton
import BatonContinuity
import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest
@testable import BatonAgent

/// The desktop notifications name where an activity would go from the same rule continuing
/// follows (`Agent.destination(for:)`), not a copy of it: a joined app that is not installed
/// is named, the browser takes an activity with a web page no app here takes, and an activity
/// no app here takes and with no page gets no notification.
final class NotificationDestinationTests: XCTestCase {
    func testTheNotificationsNameWhereContinuingWouldGo() throws {
        try MainActor.assumeIsolated {
            Application.shared.resetForTesting()
            defer { Application.shared.resetForTesting() }
            Application.shared.manifest = AppManifest(appID: "com.example.reader", teamIdentifier: "TEAM",
                                                      activityTypes: ["com.example.read"])
            Application.shared.finishLaunching()
            let host = try InProcessAgent(folderPrefix: "baton-dest")
            defer { host.stop() }
            let agent = host.agent, path = host.socketPath
            let empty = host.root.appendingPathComponent("no-apps").path  // nothing installed
            let catalog = InstalledAppCatalog(environment: ["XDG_DATA_HOME": empty, "XDG_DATA_DIRS": empty], report: { _ in })
            let destination = ContinueNotifier.destination(using: catalog, agent: agent)
            func nearby(_ type: String, team: String = "TEAM", page: URL? = nil) -> NearbyActivity {
                NearbyActivity(device: "B", sequence: 1, activityType: type, title: "t", appID: "com.example.reader",
                               teamIdentifier: team, webpageURL: page)
            }
            let page = URL(string: "https://example.com/a")!
            XCTAssertNil(destination(nearby("com.example.read")), "before the app joins, nothing here takes it")
            XCTAssertEqual(destination(nearby("com.example.read", page: page)), "the web browser")

            let connection = AgentConnection.join(socketPath: path, autostart: false)
            defer { connection.leave() }
            spin(until: { connection.isJoined })
            XCTAssertEqual(destination(nearby("com.example.read")), "com.example.reader", "the joined app, not installed, by its id")
            XCTAssertEqual(destination(nearby("com.example.read", page: page)), "com.example.reader", "the app before the browser")
            XCTAssertEqual(agent.destination(for: nearby("com.example.read")), agent.offer(for: nearby("com.example.read")))
            XCTAssertNil(destination(nearby("com.example.read", team: "OTHER")), "another team's activity")
            XCTAssertEqual(destination(nearby("com.example.read", team: "OTHER", page: page)), "the web browser")
        }
    }
}
