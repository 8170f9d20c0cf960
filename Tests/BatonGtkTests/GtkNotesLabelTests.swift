#if canImport(BatonGtk)
import BatonTestSupport
import Foundation
import XCTest

/// GtkNotes' label strip, a custom view (`DrawingAreaView`) driven by real clicks, a drag and
/// key presses (XTest) under a virtual display, through Baton's responder chain:
/// "Handling Mouse Events" (the mouse-down goes to the view under the pointer, which becomes
/// first responder; the dragged and up events to that view, "Handling Mouse Dragging
/// Operations"), "Handling Key Events" (`interpretKeyEvents(_:)` turns Left into
/// `moveLeft(_:)`, "Text System Defaults and Key Bindings"), and undo through the window's
/// undo manager ("Undo Architecture": Edit ▸ Undo, Control+Z, sent along the chain).
final class GtkNotesLabelTests: GtkNotesTestCase {
    /// The labels the app said, in order (`label of NAME: LABEL`).
    private func labels(_ output: String) -> [String] {
        output.split(separator: "\n").filter { $0.contains("label of ") }.compactMap { $0.split(separator: " ").last.map(String.init) }
    }

    func testClicksADragAndKeysPickTheLabelAndUndoPutsItBack() throws {
        let session = try session("A")
        let notes = root.appendingPathComponent("notes")
        let app = try start("baton-gtknotes", ["--notes", notes.path, "--type", "hello"], environment: session.environment)
        XCTAssertNotNil(app.waitForLine(containing: "editing "), app.output)
        // "label strip in X window XID at X,Y": where the strip is, for XTest.
        let place = try XCTUnwrap(app.output.split(separator: "\n").first { $0.contains("label strip in X window ") }, app.output)
        let words = place.split(separator: " ")
        let window = try XCTUnwrap(UInt(words[words.count - 3]), String(place))
        let corner = words[words.count - 1].split(separator: ",").compactMap { Int($0) }
        XCTAssertEqual(corner.count, 2, String(place))
        let input = try XTestInput(display: session.display.name)
        // Swatch `index` (none, red, orange, green, blue, purple; 32 pixels each): its middle.
        func swatch(_ index: Int) -> (Int, Int) { (corner[0] + 32 * index + 16, corner[1] + 12) }

        // A click on green.
        input.movePointer(to: swatch(3).0, swatch(3).1, in: window)
        input.button(1, down: true)
        input.button(1, down: false)
        XCTAssertNotNil(app.waitForLine(containing: "label of ", occurrence: 1), app.output)
        XCTAssertEqual(labels(app.output), ["green"])

        // A drag from red across orange to blue: one pick, settled on the mouse-up.
        input.movePointer(to: swatch(1).0, swatch(1).1, in: window)
        input.button(1, down: true)
        input.movePointer(to: swatch(2).0, swatch(2).1, in: window)
        input.movePointer(to: swatch(4).0, swatch(4).1, in: window)
        input.button(1, down: false)
        XCTAssertNotNil(app.waitForLine(containing: "label of ", occurrence: 2), app.output)
        XCTAssertEqual(labels(app.output), ["green", "blue"], "the drag settled once, where the mouse went up")

        // Left: the strip is first responder (the click made it), moveLeft(_:) picks green.
        input.press(0xff51)
        XCTAssertNotNil(app.waitForLine(containing: "label of ", occurrence: 3), app.output)
        XCTAssertEqual(labels(app.output), ["green", "blue", "green"])

        // Control+Z twice: the key left by the strip reaches Edit ▸ Undo, whose action goes
        // along the chain to the note's undo manager: the key's pick, then the drag's.
        input.press(0x7a, holding: [0xffe3])
        XCTAssertNotNil(app.waitForLine(containing: "undid Label", occurrence: 1), app.output)
        input.press(0x7a, holding: [0xffe3])
        XCTAssertNotNil(app.waitForLine(containing: "undid Label", occurrence: 2), app.output)
        XCTAssertEqual(labels(app.output), ["green", "blue", "green", "blue", "green"], app.output)
        XCTAssertTrue(app.output.contains("holds \"hello\""), "the text was not undone: \(app.output)")
    }
}
#endif
