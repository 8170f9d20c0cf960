@testable import Baton
import BatonContinuity
import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest
@testable import BatonAgent

/// The events that say an app joined the agent, an agent and an app in this process: the
/// agent's server says it serves its socket (`agentServing`, with the socket's path); the agent
/// publishes `appJoined` before it answers the app's `Join`; the app publishes `joinedAgent`
/// once it has taken that answer (joined, what is nearby taken). So whoever waits for the
/// app's event finds the app joined and the agent's event already published.
final class AgentJoinEventsTests: XCTestCase {
    func testTheAgentSaysAnAppJoinedBeforeTheAppSaysItJoined() throws {
        try MainActor.assumeIsolated {
            Application.shared.resetForTesting()
            defer { Application.shared.resetForTesting() }
            Application.shared.manifest = AppManifest(appID: "com.example.test", teamIdentifier: "TEAM",
                                                      activityTypes: ["com.example.test.edit"])
            Application.shared.finishLaunching()
            let seen = SeenEvents()
            let host = try InProcessAgent(folderPrefix: "baton-join") { seen.events.append($0) }
            defer { host.stop() }
            let path = host.socketPath
            XCTAssertEqual(seen.events.filter { if case .agentServing = $0 { true } else { false } }, [.agentServing(path: path)])

            let connection = AgentConnection.join(socketPath: path, autostart: false)
            defer { connection.leave() }
            let appObservation = connection.diagnostics.observe { event in
                seen.events.append(event)
                if case .joinedAgent = event { seen.joinedWhenPublished = connection.isJoined }
            }
            defer { appObservation.cancel() }
            spin(until: { seen.joinedWhenPublished != nil })

            let joins = seen.events.filter {
                switch $0 {
                case .appJoined, .joinedAgent: true
                default: false
                }
            }
            XCTAssertEqual(joins, [.appJoined(appID: "com.example.test", processID: getpid()),
                                   .joinedAgent(socketPath: path, version: AgentInterface.version)])
            XCTAssertEqual(seen.joinedWhenPublished, true, "published once the app took the agent's answer")
        }
    }
}

/// What the observers saw, in order.
@MainActor
private final class SeenEvents {
    var events: [DiagnosticEvent] = []
    var joinedWhenPublished: Bool?
}
