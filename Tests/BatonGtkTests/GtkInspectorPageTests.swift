#if canImport(BatonGtk)
import BatonTestSupport
import Foundation
import XCTest

/// Baton's page in GTK's own Inspector (the `gtk-inspector-page` extension point), in a real
/// GTK app under a virtual display: the Inspector lists it, it shows the key window's responder
/// chain and the current activity, follows a change of first responder while shown, follows
/// nothing while hidden and is current again when shown, and shows both the key and the main
/// window's chain when a panel is key. Its picture, as GTK drew it, is a real picture (text on
/// a background), not a blank window.
final class GtkInspectorPageTests: XCTestCase {
    func testTheInspectorShowsBatonsPageAndItFollowsTheFirstResponderWhileShown() throws {
        let picture = FileManager.default.temporaryDirectory.appendingPathComponent("gtk-inspector-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: picture) }
        let lines = try runGtkProbe("inspector", environment: ["GTK_PROBE_PICTURE": picture.path])
        let checks = lines.filter { $0.hasPrefix("CHECK ") && !$0.hasPrefix("CHECK boxes") && !$0.hasPrefix("CHECK gtk ") }
        XCTAssertEqual(Array(checks.prefix(2)), [
            "CHECK page title=Baton name=baton",
            // Made with the Inspector, but not on screen until picked: nothing followed yet.
            "CHECK page mapped before shown=false",
        ], lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("CHECK inactive chain=→ NoteView 'one'  userActivity note.one"),
                      "with the focus in the Inspector, the page shows the front window's chain\n" + lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains(
            "CHECK shown chain=→ NoteView 'one'  userActivity note.one (current) | ↑ View 'A-content' | ↑ GtkBackedWindow 'A' | ↑ Application"),
            lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains(
            "CHECK shown activity=type         note.one | title        Shopping list | held by      NoteView 'one'"),
            lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("CHECK followed chain=→ NoteView 'two'  userActivity note.two (current)"),
                      "the shown page followed the new first responder\n" + lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("CHECK hidden chain=→ NoteView 'two'  userActivity note.two (current)"),
                      "the hidden page followed nothing\n" + lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("CHECK shown again chain=→ NoteView 'one'  userActivity note.one (current)"),
                      "shown again, the page is current at once\n" + lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.hasPrefix("CHECK headings=")
            && $0.contains("Responder chain of the key window GtkBackedPanel 'Find'")
            && $0.contains("Responder chain of the main window GtkBackedWindow 'A'") },
            lines.joined(separator: "\n"))
        // Sent to no target, the menu's actions pass the key panel's chain and reach the main
        // window's first responder, whose validator disabled save ("Enabling Menu Items").
        XCTAssertTrue(lines.contains("CHECK actions=save  disabled  → NoteView 'one' | mark  enabled   → NoteView 'one'"),
                      lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains("CHECK nearby=desk: note.one 'Groceries' from org.example.notes, this app has no manifest"),
                      "the shown page followed the activities other devices offer\n" + lines.joined(separator: "\n"))
        XCTAssertTrue(lines.contains { $0.hasPrefix("CHECK continuation=1. note.one 'Groceries' from desk: failed, code 4608 | ")
            && $0.contains("T  asked | ") && $0.contains("T  willContinue | ")
            && $0.contains("T  didFail, code 4608: this app has no manifest") },
            "the shown page followed the continuation step by step\n" + lines.joined(separator: "\n"))

        XCTAssertTrue(lines.contains { $0.hasPrefix("CHECK picture saved=true") }, lines.joined(separator: "\n"))
        let pixels = try WindowPixels(png: picture)
        XCTAssertGreaterThan(pixels.distinctColours, 8, "the Inspector's picture has text and widgets")
        XCTAssertGreaterThan(pixels.darkPixels, 500, "the Inspector's picture has text")
    }

    /// With `GTK_DEBUG=interactive`, GTK opens the Inspector while it starts (in `gtk_init`),
    /// listing the extension's pages then: BatonGtk registers its page before GTK starts, so
    /// the page is there too.
    /// (Not `runGtkProbe`, which expects as many callback boxes at the end as before the
    /// scenario: here the page and its boxes were made before it, with the Inspector, and are
    /// released with it.)
    func testThePageIsInTheInspectorGtkOpensAsItStarts() throws {
        let display = try VirtualDisplay()
        defer { display.stop() }
        let result = try runProduct("GtkProbe", ["inspector"], environment: display.environment.merging(["GTK_DEBUG": "interactive"]) { $1 },
                                    timeout: 120)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let context = "output:\n\(result.stdout)\nerrors:\n\(result.stderr)"
        XCTAssertEqual(result.status, 0, context)
        XCTAssertEqual(lines.last, "DONE", context)
        XCTAssertEqual(lines.filter { $0.hasPrefix("TIMEOUT") || $0.hasPrefix("FAIL") }, [], context)
        XCTAssertTrue(lines.contains("CHECK page title=Baton name=baton"), context)
        XCTAssertTrue(lines.contains("CHECK shown again chain=→ NoteView 'one'  userActivity note.one (current)"), context)
        // The page's box and its two signal handlers' (map, unmap) went with the Inspector.
        XCTAssertTrue(lines.contains { line in
            let counts = line.split(separator: " ").compactMap { $0.split(separator: "=").last.flatMap { Int($0) } }
            return line.hasPrefix("CHECK boxes") && counts.count == 2 && counts[1] == counts[0] - 3
        }, context)
        XCTAssertTrue(lines.contains("CHECK gtk toplevels=0 baton windows=0"), context)
        XCTAssertFalse(result.stderr.contains("CRITICAL"), context)
    }

    /// An app under `GtkApplicationMain` registers the page before its `GtkApplication` starts
    /// GTK: with `GTK_DEBUG=interactive` the Inspector GTK opens then has the Baton page.
    func testAGtkApplicationMainAppHasThePageInTheInspectorGtkOpensAsItStarts() throws {
        try GtkNotesSession.requireTools()
        let root = URL(fileURLWithPath: "/tmp").appendingPathComponent("baton-gtkinspector-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: root) }
        let session = try GtkNotesSession("A", under: root)
        defer { session.stop() }
        let app = try RunningProcess(product: "GtkApplicationProbe", [],
                                     environment: session.environment.merging(["GTK_DEBUG": "interactive"]) { $1 })
        defer {
            app.terminate()
            _ = app.waitForExit(timeout: 10)
        }
        let pages = app.waitForLine(containing: "inspector pages:")
        XCTAssertTrue(pages?.contains("Baton") == true, app.output)
        let quit = try runProduct("GtkApplicationProbe", [root.appendingPathComponent("gquit").path], environment: session.environment,
                                  timeout: 30)
        XCTAssertEqual(quit.status, 0, quit.stdout + quit.stderr)
        XCTAssertEqual(app.waitForExit(timeout: 30), 0, app.output)
    }
}
#endif
