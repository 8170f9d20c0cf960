import BatonTestSupport
import Foundation
import XCTest

/// baton-screens feeds its key presses through `Application.sendEvent(_:)`: each is a key-down
/// delivered to the key window's first responder that travels up the responder chain ("Event
/// Handling Basics", "Handling Key Events"), where the fields take the editing keys through
/// `interpretKeyEvents(_:)` and the app, the chain's last responder, the rest.
final class ScreensKeyEventsTests: XCTestCase {
    func testKeysTravelTheChainFromTheFirstResponderToTheApp() throws {
        let run = try MainActor.assumeIsolated { try runProduct("baton-screens", ["--keys", "t\tc\u{7F}"]) }
        XCTAssertEqual(run.status, 0, run.stderr)
        let out = run.stdout
        XCTAssertTrue(out.contains("[t] keyDown: Window 'Inbox' → Application → ScreensApp"), out)
        XCTAssertTrue(out.contains("insertTab → Field 'message list' passed first responder to Field 'search field'"), out)
        XCTAssertTrue(out.contains("[c] keyDown: Field 'search field' → View 'inbox' → MailboxController 'mailbox' → Window 'Inbox' → Application → ScreensApp"), out)
        XCTAssertTrue(out.contains("copy → Field 'search field' copied \"from:ada\""), out)
        XCTAssertTrue(out.contains("deleteBackward → Field 'search field' now reads \"from:ad\""), out)
        XCTAssertTrue(out.contains("[q] keyDown:"), out)
    }
}
