#if canImport(BatonGtk)
import BatonTestSupport
import Foundation
import XCTest

/// GtkNotes' menu bar, seen as a desktop shell sees it — GtkApplication's menu model and
/// actions on the session bus: File, Edit and Window menus, each item an action enabled by
/// the responder chain's validation ("Enabling Menu Items"); Edit ▸ Undo and Redo follow the
/// note window's undo manager (enabled while it can undo or redo, as AppKit's NSWindow
/// validates undo: and redo:).
final class GtkNotesMenuTests: GtkNotesTestCase {
    private func gdbus(_ environment: [String: String], _ path: String, _ method: String, _ arguments: [String] = []) throws -> String {
        let call = try runProcess(URL(fileURLWithPath: "/usr/bin/gdbus"),
                                  ["call", "--session", "--dest", "com.example.gtknotes", "--object-path", path, "--method", method] + arguments,
                                  environment: environment, timeout: 30)
        XCTAssertEqual(call.status, 0, call.stderr)
        return call.stdout
    }

    /// Whether the app action `name` is enabled, from `org.gtk.Actions.DescribeAll`'s answer.
    private func enabled(_ name: String, in description: String) -> Bool? {
        if description.contains("'\(name)': (true") { return true }
        if description.contains("'\(name)': (false") { return false }
        return nil
    }

    func testTheMenuBarHasFileEditWindowAndUndoRedoFollowTheUndoManager() throws {
        let session = try session("A")
        let environment = session.environment
        let notes = root.appendingPathComponent("notes")
        let running = try start("baton-gtknotes", ["--notes", notes.path, "--type", "hello"], environment: environment)
        XCTAssertNotNil(running.waitForLine(containing: "editing "), running.output)

        let menus = try gdbus(environment, "/com/example/gtknotes/menus/menubar", "org.gtk.Menus.Start", ["[0, 1, 2, 3, 4, 5, 6, 7]"])
        for label in ["File", "Edit", "Window", "New Note", "Close Window", "Quit", "Undo", "Redo", "Notes"] {
            XCTAssertTrue(menus.contains("'label': <'\(label)'>"), "\(label) in \(menus)")
        }
        XCTAssertTrue(menus.contains("'accel': <'<Primary>z'>") || menus.contains("<'app.menu-1-0'>"), menus)

        // Typed "hello": one undo group, nothing to redo.
        var actions = try gdbus(environment, "/com/example/gtknotes", "org.gtk.Actions.DescribeAll")
        XCTAssertEqual(enabled("menu-1-0", in: actions), true, "Undo: \(actions)")
        XCTAssertEqual(enabled("menu-1-1", in: actions), false, "Redo: \(actions)")
        XCTAssertEqual(enabled("menu-0-0", in: actions), true, "New Note: the delegate handles it")

        _ = try gdbus(environment, "/com/example/gtknotes", "org.gtk.Actions.Activate", ["menu-1-0", "[]", "{}"])
        XCTAssertNotNil(running.waitForLine(containing: "undid Typing: "), running.output)
        XCTAssertTrue(running.output.contains("holds \"\""), running.output)
        actions = try gdbus(environment, "/com/example/gtknotes", "org.gtk.Actions.DescribeAll")
        XCTAssertEqual(enabled("menu-1-0", in: actions), false, "Undo: \(actions)")
        XCTAssertEqual(enabled("menu-1-1", in: actions), true, "Redo: \(actions)")

        _ = try gdbus(environment, "/com/example/gtknotes", "org.gtk.Actions.Activate", ["menu-1-1", "[]", "{}"])
        XCTAssertNotNil(running.waitForLine(containing: "redid Typing: "), running.output)
        XCTAssertTrue(running.output.contains("holds \"hello\""), running.output)
    }
}
#endif
