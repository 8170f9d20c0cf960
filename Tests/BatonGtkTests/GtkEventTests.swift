#if canImport(BatonGtk)
import BatonTestSupport
import Foundation
import XCTest

/// GTK input as AppKit events, through real clicks and key presses (XTest) under a virtual
/// display: "Handling Mouse Events" (a mouse-down goes to the view under the pointer, which
/// becomes first responder when it accepts; NSView hitTest(_:)), "Handling Key Events" (keys go
/// to the first responder; `interpretKeyEvents(_:)` turns them into `insertText(_:)` and the
/// standard key bindings' commands, "Text System Defaults and Key Bindings"), while GTK's own text
/// view keeps the keys it types.
final class GtkEventTests: XCTestCase {
    func testRealInputReachesACustomViewsEventMethodsAndTheTextViewKeepsItsKeys() throws {
        let lines = try runGtkProbe("events")
        XCTAssertTrue(lines.contains("CHECK clicked canvas: first=canvas"), "the click made the canvas first responder")
        XCTAssertEqual(lines.filter { $0.hasPrefix("EVENT ") }, [
            // 10 pixels in from the top left of a flipped view: the window's base coordinates
            // converted back through the view's frame from GTK's layout.
            "EVENT mouseDown at 10,10 clicks=1",
            "EVENT mouseUp at 10,10",
            "EVENT insertText a",
            "EVENT moveLeft",
            // A key equivalent nobody performs is sent on as a key-down ("Handling Key Events":
            // performKeyEquivalent(_:) returning false, then keyDown(with:)).
            "EVENT keyDown command-k",
            // "Handling Mouse Dragging Operations": after a mouse-down, the dragged and up
            // events go to the view the mouse went down in.
            "EVENT mouseDown at 20,20 clicks=1",
            "EVENT mouseDragged",
            "EVENT mouseUp at 150,60",
            // A wheel notch up: AppKit's deltaY is positive scrolling up (scrollWheel(with:)).
            "EVENT scrollWheel up",
        ], "and the key typed in the text view never reached the canvas")
        XCTAssertTrue(lines.contains("CHECK text view chars=1"), "GTK's text view typed its key")
        XCTAssertTrue(lines.contains("CHECK window shortcut activations=1"), "a GTK shortcut matching a Control key keeps it")
    }
}
#endif
