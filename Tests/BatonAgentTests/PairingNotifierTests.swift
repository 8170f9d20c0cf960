import BatonLoop
import BatonTestSupport
import Foundation
import XCTest
@testable import BatonAgent

/// The agent's pairing requests as desktop notifications (`PairingNotifier`), against the test's
/// stand-in notification server on a private session bus.
final class PairingNotifierTests: AgentTestCase {
    /// A request answered elsewhere (on the terminal that opened the window) while the server
    /// has shown it but its `Notify` reply is still on the way: the question ends with no answer
    /// from the desktop, and the notification is still withdrawn once its id is known — none is
    /// left on the desktop asking about a pairing that is over.
    func testARequestAnsweredElsewhereBeforeTheServerRepliedIsStillWithdrawn() throws {
        let address = "unix:path=\(root.path)/bus"
        let bus = try start("/usr/bin/dbus-daemon", ["--session", "--nofork", "--print-address", "--address=\(address)"])
        // dbus-daemon's own output: the address, once it listens.
        XCTAssertNotNil(bus.waitForLine(containing: "unix:path="), bus.output)
        try MainActor.assumeIsolated {
            let server = try NotificationServerStandIn(address: address)
            defer { server.close() }
            server.holdNotifyReplies = true
            let notifier = PairingNotifier(busAddress: address)
            notifier.start()
            defer { notifier.stop() }
            spin(until: { notifier.hasServer })
            XCTAssertTrue(notifier.hasServer, "the notifier did not see the stand-in")
            let code = PairingCode(exporter: Data(count: 32), authorityKey: Data([1]), newcomerKey: Data([2]),
                                   authorityNonce: Data([3]), newcomerNonce: Data([4]))
            let answer = Answer<Bool?>()
            let question = Task { @MainActor in answer.value = .some(await notifier.ask(code: code, newcomerTypes: false, from: nil, group: "Ada")) }
            spin(until: { !server.notifications.isEmpty })
            let shown = try XCTUnwrap(server.notifications.first, "the request was not shown")
            question.cancel()  // answered on the terminal
            server.releaseNotifyReplies()
            spin(until: { answer.value != nil && server.closed.contains(shown.id) })
            XCTAssertEqual(answer.value, .some(nil), "no answer from the desktop")
            XCTAssertEqual(server.closed, [shown.id], "the request shown is withdrawn")
        }
    }
}
