#if canImport(BatonGtk)
import BatonTestSupport
import Foundation
import XCTest

/// BatonGtk's application part with real processes on a virtual display and a private session
/// bus: `GtkApplicationMain` runs Baton's application in a `GtkApplication` — launch messages,
/// Baton's loop machinery under `g_application_run`, one instance per app ID (later launches
/// hand their files and activations to the primary instance), and Baton's `terminate(_:)`
/// (with the delegate's refusal and deferred answer) ending the run.
final class GtkApplicationTests: XCTestCase {
    private var root: URL!
    private var session: GtkNotesSession?
    private var processes: [RunningProcess] = []

    override func setUpWithError() throws {
        try GtkNotesSession.requireTools()
        root = URL(fileURLWithPath: "/tmp").appendingPathComponent("baton-gtkapp-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        session = try GtkNotesSession("A", under: root)
    }

    override func tearDownWithError() throws {
        for process in processes { process.terminate() }
        for process in processes { process.waitForExit(timeout: 10) }
        processes = []
        session?.stop()
        session = nil
        if let root { try? FileManager.default.removeItem(at: root) }
    }

    private var environment: [String: String] { session?.environment ?? [:] }

    private func start(_ product: String, _ arguments: [String]) throws -> RunningProcess {
        let process = try RunningProcess(product: product, arguments, environment: environment)
        processes.append(process)
        return process
    }

    /// The primary instance launches and runs Baton's loop machinery; a second launch (no
    /// files) and a third (a file) are handed to it and end at once without launching; a
    /// fourth opens `quit`, and the primary terminates by Baton's rules — the first request
    /// refused, the second deferred then agreed — and `GtkApplicationMain` returns 0.
    func testLaterLaunchesAreHandedToThePrimaryAndTerminateEndsTheRun() throws {
        let primary = try start("GtkApplicationProbe", [])
        XCTAssertNotNil(primary.waitForLine(containing: "didFinishLaunching primary=true id=org.baton.GtkApplicationProbe"),
                        primary.output)
        XCTAssertLessThan(try XCTUnwrap(primary.output.range(of: "willFinishLaunching")).lowerBound,
                          try XCTUnwrap(primary.output.range(of: "didFinishLaunching")).lowerBound)
        // GApplication iterates Baton's loop, and the loop knows it (`MainLoop.runHosted`): the
        // main actor's executor is the GLib source, and a job from another thread gets to it.
        for line in ["main queue ran", "main-actor task ran", "idle ran", "timer ran", "loop iterated=true executor=glibSource",
                     "main-actor task from another thread ran, loop iterated=true"] {
            XCTAssertNotNil(primary.waitForLine(containing: line), "\(line): \(primary.output)")
        }

        let note = root.appendingPathComponent("notes.txt")
        try Data("a note".utf8).write(to: note)
        for arguments in [[], [note.path]] {
            let later = try runProduct("GtkApplicationProbe", arguments, environment: environment, timeout: 30)
            XCTAssertEqual(later.status, 0, later.stdout + later.stderr)
            XCTAssertFalse(later.stdout.contains("FinishLaunching"), "a handed-on launch launches nothing: \(later.stdout)")
            XCTAssertTrue(later.stdout.contains("GtkApplicationMain returned 0"), later.stdout)
        }
        XCTAssertNotNil(primary.waitForLine(containing: "open notes.txt after 1 later activation(s)"), primary.output)

        let quit = try runProduct("GtkApplicationProbe", [root.appendingPathComponent("quit").path], environment: environment, timeout: 30)
        XCTAssertEqual(quit.status, 0, quit.stdout + quit.stderr)
        XCTAssertEqual(primary.waitForExit(timeout: 30), 0, primary.output)
        let order = ["applicationShouldTerminate: cancel", "still running after the refused terminate",
                     "applicationShouldTerminate: later", "willTerminate", "GtkApplicationMain returned 0"]
        let positions = order.compactMap { primary.output.range(of: $0)?.lowerBound }
        XCTAssertEqual(positions.count, order.count, primary.output)
        XCTAssertEqual(positions, positions.sorted(), primary.output)
        XCTAssertEqual(primary.output.components(separatedBy: "willTerminate").count - 1, 1, primary.output)
    }

    /// Other code quits the GApplication itself (`g_application_quit`, which cannot be refused):
    /// the delegate is not asked, but gets `applicationWillTerminate` once, and
    /// `GtkApplicationMain` returns 0.
    func testQuittingTheGApplicationSendsWillTerminateWithoutAsking() throws {
        let primary = try start("GtkApplicationProbe", [])
        XCTAssertNotNil(primary.waitForLine(containing: "didFinishLaunching primary=true"), primary.output)
        let quit = try runProduct("GtkApplicationProbe", [root.appendingPathComponent("gquit").path], environment: environment, timeout: 30)
        XCTAssertEqual(quit.status, 0, quit.stdout + quit.stderr)
        XCTAssertEqual(primary.waitForExit(timeout: 30), 0, primary.output)
        XCTAssertFalse(primary.output.contains("applicationShouldTerminate"), primary.output)
        XCTAssertEqual(primary.output.components(separatedBy: "willTerminate").count - 1, 1, primary.output)
        XCTAssertTrue(primary.output.contains("GtkApplicationMain returned 0"), primary.output)
    }

    /// GtkNotes: a second launch with a file hands it to the running GtkNotes, which opens it
    /// in a window; the window's Quit action (what Ctrl+Q activates), called over the session
    /// bus as a desktop shell would, travels the responder chain to Baton's `terminate(_:)`:
    /// the notes are saved and the process ends with status 0.
    func testGtkNotesTakesASecondLaunchsFileAndQuitsThroughItsAction() throws {
        let notes = root.appendingPathComponent("notes")
        let running = try start("baton-gtknotes", ["--notes", notes.path])
        XCTAssertNotNil(running.waitForLine(containing: "GtkNotes launched: primary instance"), running.output)
        let file = root.appendingPathComponent("Groceries.txt")
        try Data("Groceries\neggs".utf8).write(to: file)
        let second = try runProduct("baton-gtknotes", ["--notes", notes.path, file.path], environment: environment, timeout: 30)
        XCTAssertEqual(second.status, 0, second.stdout + second.stderr)
        XCTAssertFalse(second.stdout.contains("GtkNotes launched"), second.stdout)
        XCTAssertNotNil(running.waitForLine(containing: "opened \(file.path)"), running.output)

        // GtkApplication exports each GtkApplicationWindow's actions at …/window/<id>; the list is window 1.
        let call = try runProcess(URL(fileURLWithPath: "/usr/bin/gdbus"),
                                  ["call", "--session", "--dest", "com.example.gtknotes", "--object-path", "/com/example/gtknotes/window/1",
                                   "--method", "org.gtk.Actions.Activate", "quit", "[]", "{}"],
                                  environment: environment, timeout: 30)
        XCTAssertEqual(call.status, 0, call.stderr)
        XCTAssertEqual(running.waitForExit(timeout: 30), 0, running.output)
        XCTAssertTrue(running.output.contains("applicationWillTerminate: notes saved"), running.output)
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "Groceries\neggs")
    }
}
#endif
