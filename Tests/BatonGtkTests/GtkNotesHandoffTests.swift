#if canImport(BatonGtk)
import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// GtkNotes handed off between two devices as a person would: each device has its own
/// virtual display, session bus and agent (`batond`, linked on loopback); GtkNotes runs on A
/// with a note typed and the cursor placed; on B it is installed (`baton app install`) but not
/// running, and `baton continue` makes B's agent start it from its desktop entry — by its
/// `Exec=` line, or, installed `--dbus-activatable`, by D-Bus activation through B's session
/// bus. B's window must show the note with the cursor where it was on A — in the text view's
/// own state and in GTK's picture of the window — and A's window must say that the note was
/// continued.
final class GtkNotesHandoffTests: GtkNotesTestCase {
    /// The text typed on A (three lines) and where its cursor is left: after "buy ".
    static let note = "Shopping\nbuy oat milk\nand bread"
    static let cursor = 13

    /// Devices A and B with their displays and buses, the group, A's agent, and GtkNotes on A
    /// with the note typed and the cursor placed; returns what the B side needs.
    private func deviceAEditing() throws -> (a: GtkNotesSession, b: GtkNotesSession, folderB: String, address: String,
                                              notesA: RunningProcess) {
        let a = try session("A"), b = try session("B")
        let folders = try deviceFolders("A", "B")
        let socketA = root.appendingPathComponent("a.sock").path
        let agentA = try start("batond", ["--device", folders[0], "--listen", "127.0.0.1:0", "--socket", socketA], environment: a.environment)
        let address = try XCTUnwrap(agentA.listeningAddress(), agentA.output).description
        let notesA = try start("baton-gtknotes", ["--agent", socketA, "--notes", root.appendingPathComponent("A-notes").path,
                                                  "--type", Self.note, "--cursor", "\(Self.cursor)", "--label", "blue",
                                                  "--screenshot", typedPicture.path, "--screenshot-banner", bannerPicture.path],
                               environment: a.environment)
        XCTAssertTrue(notesA.waitForJoinedAgent(at: socketA), notesA.output)
        XCTAssertNotNil(notesA.waitForLine(containing: "cursor at \(Self.cursor)"), notesA.output)
        return (a, b, folders[1], address, notesA)
    }

    /// B's agent, once linked with A.
    private func agentB(_ folder: String, peer: String, _ b: GtkNotesSession) throws -> RunningProcess {
        let agent = try start("batond", ["--device", folder, "--listen", "127.0.0.1:0", "--socket", socketB, "--peer", peer], environment: b.environment)
        XCTAssertTrue(agent.waitForLink(with: "A"), agent.output)
        return agent
    }

    private var socketB: String { root.appendingPathComponent("b.sock").path }
    /// A's pictures of its note window: as typed, and once it shows that the note was continued.
    private var typedPicture: URL { root.appendingPathComponent("a-typed.png") }
    private var bannerPicture: URL { root.appendingPathComponent("a-banner.png") }
    private var noConfig: [String] { ["--config", root.appendingPathComponent("no-config").path] }
    /// What B prints once the note is in its text view, the cursor after "buy ".
    private static let restoredLine = "holds 31 characters, cursor at 13: \"Shopping\\u{A}buy |oat milk\\u{A}and bread\""

    /// Devices A (editing, see `deviceAEditing`) and B, where GtkNotes is installed — with
    /// `--dbus-activatable` when `dbusActivatable` — but not running, B's agent linked with A
    /// and seeing A's note nearby, and `baton continue` run on B. GtkNotes on B saves its
    /// picture to `picture` and quits.
    private func continueOnInstalledB(dbusActivatable: Bool)
        throws -> (b: GtkNotesSession, agentB: RunningProcess, notesA: RunningProcess, install: String, picture: URL) {
        let (_, b, folderB, address, notesA) = try deviceAEditing()
        let socketB = self.socketB, noConfig = self.noConfig

        // Device B: GtkNotes installed with its desktop entry, not running; B's agent.
        let picture = root.appendingPathComponent("continued.png")
        let exec = "\(productURL("baton-gtknotes").path) --agent \(socketB) --notes \(root.appendingPathComponent("B-notes").path)"
            + " --screenshot \(picture.path) --quit-after-screenshot"
        let install = try runProduct("baton", ["app", "install", Self.manifest.path, "--name", "GTK Notes", "--exec", exec]
                                        + (dbusActivatable ? ["--dbus-activatable"] : []),
                                     environment: b.environment, timeout: 30)
        XCTAssertEqual(install.status, 0, install.stderr)
        let agentB = try agentB(folderB, peer: address, b)
        let watch = try start("baton", ["nearby", "--watch", "--agent", socketB] + noConfig, environment: b.environment)
        XCTAssertNotNil(watch.waitForLine(containing: "com.example.gtknotes.editing"), watch.output)
        watch.terminate()

        let continued = try runProduct("baton", ["continue", "--agent", socketB] + noConfig, environment: b.environment, timeout: 60)
        XCTAssertEqual(continued.status, 0, continued.stderr)
        XCTAssertTrue(continued.stdout.contains("from A in com.example.gtknotes"), continued.stdout)
        return (b, agentB, notesA, install.stdout, picture)
    }

    /// GtkNotes on B, once it restored the note: its output `started` (the agent's, or the
    /// bus's for an app the bus started) shows the note at the cursor, its picture saved, its
    /// termination, and the note saved on B.
    private func assertRestoredOnB(output started: RunningProcess, picture: URL) throws {
        let restored = try XCTUnwrap(started.waitForLine(containing: "restored ", timeout: 60), started.output)
        XCTAssertTrue(restored.contains(Self.restoredLine), restored)
        XCTAssertTrue(restored.hasSuffix(", label blue"), "the label strip's pick travelled in the activity: \(restored)")
        XCTAssertNotNil(started.waitForLine(containing: "screenshot saved to \(picture.path)", timeout: 60), started.output)
        XCTAssertNotNil(started.waitForLine(containing: "applicationWillTerminate", timeout: 30), started.output)
        let savedOnB = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("B-notes").path)
            .filter { $0.hasSuffix(".txt") }  // beside them, .identities
        XCTAssertEqual(savedOnB.count, 1, "\(savedOnB)")
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("B-notes").appendingPathComponent(savedOnB.first ?? "-"),
                                  encoding: .utf8), Self.note)
    }

    /// The picture B's GtkNotes saved shows the note, not an empty editor: the empty editor is
    /// drawn the same way on B's display (no agent, no bus: an instance of its own) and
    /// compared.
    private func assertPictureShowsTheNote(_ picture: URL, on b: GtkNotesSession) throws {
        let empty = root.appendingPathComponent("empty.png")
        var alone = b.environment
        alone["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(root.appendingPathComponent("no-bus").path)"
        let reference = try runProduct("baton-gtknotes", ["--notes", root.appendingPathComponent("empty-notes").path, "--type", "",
                                                          "--screenshot", empty.path, "--quit-after-screenshot"],
                                       environment: alone, timeout: 60)
        XCTAssertEqual(reference.status, 0, reference.stdout + reference.stderr)
        let shot = try WindowPixels(png: picture), blank = try WindowPixels(png: empty)
        XCTAssertGreaterThan(shot.width, 200)
        XCTAssertGreaterThan(shot.height, 150)
        XCTAssertGreaterThan(shot.distinctColours, 8, "the picture is not blank")
        XCTAssertEqual(shot.width, blank.width)
        XCTAssertEqual(shot.height, blank.height)
        let differing = shot.differingPixels(from: blank)
        XCTAssertGreaterThan(differing, shot.width * shot.height / 200, "the note's text is drawn: \(differing) pixels differ")
        XCTAssertGreaterThan(shot.darkPixels, blank.darkPixels + 200, "dark text: \(shot.darkPixels) vs \(blank.darkPixels)")
    }

    /// The GtkNotes processes that joined B's agent so far (its typed diagnostics).
    private func joins(_ agentB: RunningProcess) -> Int {
        agentB.diagnosticEvents.filter { if case .appJoined("com.example.gtknotes", _) = $0 { true } else { false } }.count
    }

    /// Where B's agent writes the output of a GtkNotes it starts by its `Exec=` line
    /// (`LaunchedAppLog`): the agent's own output never holds it.
    private func launchedLog(on b: GtkNotesSession) throws -> String {
        try XCTUnwrap(b.environment["XDG_STATE_HOME"]) + "/baton/apps/com.example.gtknotes.log"
    }

    /// GtkNotes installed on B, not running: `baton continue` makes B's agent start it from its
    /// desktop entry; B's window shows the note at the cursor (widget state and picture).
    func testANoteEditedOnAContinuesOnBAtTheCursorAndAShowsItWasContinued() throws {
        let (b, _, notesA, _, picture) = try continueOnInstalledB(dbusActivatable: false)

        // B: started by its agent, its output in its log (docs/EXAMPLES.md), the note in the
        // text view at the cursor.
        let launched = try start("/usr/bin/tail", ["-n", "+1", "-F", try launchedLog(on: b)])
        try assertRestoredOnB(output: launched, picture: picture)
        XCTAssertEqual(launched.output.components(separatedBy: "launched to continue com.example.gtknotes.editing").count - 1, 1,
                       "one GtkNotes started on B: \(launched.output)")

        // A: the window says the note was continued.
        XCTAssertNotNil(notesA.waitForLine(containing: "userActivityWasContinued: "), notesA.output)
        XCTAssertTrue(notesA.output.contains("banner shown: true"), notesA.output)
        // …and GTK drew it: A's window now differs from its picture as typed, above the text.
        XCTAssertNotNil(notesA.waitForLine(containing: "screenshot saved to \(bannerPicture.path)"), notesA.output)
        let typed = try WindowPixels(png: typedPicture), banner = try WindowPixels(png: bannerPicture)
        XCTAssertEqual(typed.width, banner.width)
        XCTAssertGreaterThan(banner.differingPixels(from: typed), typed.width * typed.height / 200, "the banner is drawn")
        // A's session ends (SIGTERM): GtkNotes terminates as Quit would, its note saved.
        notesA.terminate()
        XCTAssertEqual(notesA.waitForExit(timeout: 30), 0, notesA.output)
        XCTAssertTrue(notesA.output.contains("applicationWillTerminate: notes saved"), notesA.output)
        let savedOnA = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("A-notes").path)
            .filter { $0.hasSuffix(".txt") }
        XCTAssertEqual(savedOnA.count, 1, "\(savedOnA)")
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("A-notes").appendingPathComponent(savedOnA.first ?? "-"),
                                  encoding: .utf8), Self.note)

        try assertPictureShowsTheNote(picture, on: b)
    }

    /// GtkNotes already running on B, joined to B's agent, and launched a second time by the
    /// person (handed to the first by GApplication, no second join): `baton continue` hands the
    /// note to the running instance, and no GtkNotes is started from the desktop entry.
    func testTheRunningGtkNotesOnBReceivesTheNoteAndASecondLaunchJoinsNothing() throws {
        let (_, b, folderB, address, notesA) = try deviceAEditing()
        let agentB = try agentB(folderB, peer: address, b)
        let notesFolder = root.appendingPathComponent("B-notes").path
        let notesB = try start("baton-gtknotes", ["--agent", socketB, "--notes", notesFolder], environment: b.environment)
        XCTAssertNotNil(notesB.waitForLine(containing: "nearby now: com.example.gtknotes.editing on A"), notesB.output)
        let again = try runProduct("baton-gtknotes", ["--agent", socketB, "--notes", notesFolder], environment: b.environment, timeout: 30)
        XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
        XCTAssertFalse(again.stdout.contains("joined the agent"), again.stdout)

        let continued = try runProduct("baton", ["continue", "--agent", socketB] + noConfig, environment: b.environment, timeout: 60)
        XCTAssertEqual(continued.status, 0, continued.stderr)
        let restored = try XCTUnwrap(notesB.waitForLine(containing: "restored ", timeout: 60), notesB.output)
        XCTAssertTrue(restored.contains(Self.restoredLine), restored)
        XCTAssertNotNil(notesA.waitForLine(containing: "userActivityWasContinued: "), notesA.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: try launchedLog(on: b)), "B's agent launched no GtkNotes: \(agentB.output)")
        XCTAssertEqual(joins(agentB), 1, "one GtkNotes joined B's agent: \(agentB.output)")
    }

    /// GtkNotes installed on B with `--dbus-activatable`, not running: `baton continue` makes
    /// B's agent activate it on B's session bus (`org.freedesktop.Application.Activate` on
    /// `com.example.gtknotes`), and the bus starts it from the service file `baton app install`
    /// wrote in B's `XDG_DATA_HOME` — with `--gapplication-service`, so GApplication registers
    /// and takes the bus's call. One GtkNotes starts, joins B's agent and shows the note at
    /// the cursor; A's window says it was continued.
    func testGtkNotesInstalledDBusActivatableOnBIsStartedByBsBusAndShowsTheNoteAtTheCursor() throws {
        let (b, agentB, notesA, install, picture) = try continueOnInstalledB(dbusActivatable: true)
        let service = URL(fileURLWithPath: try XCTUnwrap(b.environment["XDG_DATA_HOME"]))
            .appendingPathComponent("dbus-1/services/com.example.gtknotes.service")
        XCTAssertTrue(install.contains(service.path), install)

        // Started by B's bus (its output is the bus's, not the agent's), as a D-Bus service.
        let launched = try XCTUnwrap(b.bus.waitForLine(containing: "GtkNotes launched: ", timeout: 60), b.bus.output)
        XCTAssertTrue(launched.contains("GtkNotes launched: D-Bus activated"), launched)
        XCTAssertTrue(b.bus.output.contains("Activating service name='com.example.gtknotes'"), b.bus.output)
        try assertRestoredOnB(output: b.bus, picture: picture)
        XCTAssertEqual(b.bus.output.components(separatedBy: "GtkNotes launched: ").count - 1, 1, "one GtkNotes on B: \(b.bus.output)")
        let execOutput = (try? String(contentsOfFile: try launchedLog(on: b), encoding: .utf8)) ?? ""
        XCTAssertFalse(execOutput.contains("GtkNotes launched"), "not started by an Exec launch: \(execOutput)")
        XCTAssertEqual(joins(agentB), 1, "one GtkNotes joined B's agent: \(agentB.output)")
        try assertPictureShowsTheNote(picture, on: b)

        XCTAssertNotNil(notesA.waitForLine(containing: "userActivityWasContinued: "), notesA.output)
        XCTAssertTrue(notesA.output.contains("banner shown: true"), notesA.output)
    }

    static var manifest: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/GtkNotes/Manifest/Info.plist")
    }
}
#endif
