#if canImport(BatonGtk)
import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Round trips (issue 25): a note continued A → B → A → B is one note on each device, not a
/// copy per trip. Each note has an identity (a UUID kept in the notes folder's `.identities`)
/// that its activity carries (`"id"`); continued back to a device where that note is, it
/// updates that note — its file, and its window if open — as continuing a document does in
/// Apple's document-based apps, where the activity carries the document's URL and "the
/// document is opened with the NSDocumentController method
/// openDocumentWithContentsOfURL:display:completionHandler: and receives a
/// restoreUserActivityState: message" (about-handoff.md, "Supporting a User Activity in
/// Document-Based Apps").
///
/// Two devices as in `GtkNotesHandoffTests`: each with its virtual display, session bus and
/// agent (`batond`, linked on loopback), GtkNotes running on both, joined to its agent;
/// `baton continue --device PEER` on one side hands the other side's current note to the
/// running GtkNotes. `--type-when-continued` (a test hook) types an edit into each note
/// continued there, which focuses it: it becomes that device's advertised activity.
final class GtkNotesRoundTripTests: GtkNotesTestCase {
    private func notesFolder(_ device: String) -> URL { root.appendingPathComponent("\(device)-notes") }
    private var noConfig: [String] { ["--config", root.appendingPathComponent("no-config").path] }

    /// The note typed on A, the cursor after "buy "; what B types into it each time it is
    /// continued there, and what A types when it comes back.
    static let note = "Shopping\nbuy oat milk\nand bread"
    static let cursor = 13
    static let typedOnB = "eggs ", typedOnA = "jam "

    /// The line GtkNotes prints once `text` is in the text view, the cursor after `before`.
    private static func restored(_ before: String, _ after: String) -> String {
        let escape = { (text: String) in text.replacingOccurrences(of: "\n", with: "\\u{A}") }
        return "holds \((before + after).unicodeScalars.count) characters, cursor at \(before.unicodeScalars.count): "
            + "\"\(escape(before))|\(escape(after))\""
    }

    /// `baton continue` on the device whose agent is at `socket`, of the activity of `peer`.
    private func continueOn(_ session: GtkNotesSession, agent socket: String, from peer: String) throws {
        let continued = try runProduct("baton", ["continue", "--agent", socket, "--device", peer] + noConfig,
                                       environment: session.environment, timeout: 60)
        XCTAssertEqual(continued.status, 0, continued.stdout + continued.stderr)
        XCTAssertTrue(continued.stdout.contains("from \(peer) in com.example.gtknotes"), continued.stdout)
    }

    /// The notes (`.txt` files) in a device's folder, with their text.
    private func notes(on device: String) throws -> [String: String] {
        let folder = notesFolder(device)
        var notes: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".txt") {
            notes[name] = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }
        return notes
    }

    /// A device's `.identities`: note name → identity.
    private func identities(on device: String) throws -> [String: String] {
        let data = try Data(contentsOf: notesFolder(device).appendingPathComponent(".identities"))
        return try JSONDecoder().decode([String: String].self, from: data)
    }

    /// Two devices, A and B: displays, buses, the group, agents linked on loopback.
    private func twoDevices() throws -> (a: GtkNotesSession, b: GtkNotesSession, socketA: String, socketB: String) {
        let a = try session("A"), b = try session("B")
        let folders = try deviceFolders("A", "B")
        let socketA = root.appendingPathComponent("a.sock").path, socketB = root.appendingPathComponent("b.sock").path
        let agentA = try start("batond", ["--device", folders[0], "--listen", "127.0.0.1:0", "--socket", socketA], environment: a.environment)
        let address = try XCTUnwrap(agentA.listeningAddress(), agentA.output).description
        let agentB = try start("batond", ["--device", folders[1], "--listen", "127.0.0.1:0", "--socket", socketB, "--peer", address],
                               environment: b.environment)
        XCTAssertTrue(agentB.waitForLink(with: "A"), agentB.output)
        return (a, b, socketA, socketB)
    }

    /// GtkNotes on A, joined to A's agent, with the note typed and the cursor placed.
    private func notesOnA(_ a: GtkNotesSession, agent socket: String) throws -> RunningProcess {
        let notes = try start("baton-gtknotes", ["--agent", socket, "--notes", notesFolder("A").path, "--type", Self.note,
                                                 "--cursor", "\(Self.cursor)", "--type-when-continued", Self.typedOnA],
                              environment: a.environment)
        XCTAssertNotNil(notes.waitForLine(containing: "cursor at \(Self.cursor)"), notes.output)
        return notes
    }

    /// GtkNotes on B, joined to B's agent, once it sees A's note nearby.
    private func notesOnB(_ b: GtkNotesSession, agent socket: String) throws -> RunningProcess {
        let notes = try start("baton-gtknotes", ["--agent", socket, "--notes", notesFolder("B").path,
                                                 "--type-when-continued", Self.typedOnB], environment: b.environment)
        XCTAssertNotNil(notes.waitForLine(containing: "com.example.gtknotes.editing on A"), notes.output)
        return notes
    }

    /// A → B, B → A, A → B: on each device one note, in one file, holding the text it had
    /// last there, with the edits of both devices; its window was reused each time it came
    /// back; both devices know it by the same identity.
    func testANoteContinuedBackAndForthThreeTimesIsOneNoteOnEachDeviceWithTheEditsOfBoth() throws {
        let (a, b, socketA, socketB) = try twoDevices()
        let notesA = try notesOnA(a, agent: socketA)
        let notesB = try notesOnB(b, agent: socketB)

        // 1. A → B: a new note on B, which B edits.
        try continueOn(b, agent: socketB, from: "A")
        var line = try XCTUnwrap(notesB.waitForLine(containing: "restored ", timeout: 60), notesB.output)
        XCTAssertTrue(line.contains(Self.restored("Shopping\nbuy ", "oat milk\nand bread")), line)
        XCTAssertNotNil(notesB.waitForLine(containing: "in a new window"), notesB.output)
        XCTAssertNotNil(notesB.waitForLine(containing: "typed into "), notesB.output)
        XCTAssertNotNil(notesA.waitForLine(containing: "userActivityWasContinued: "), notesA.output)

        // 2. B → A: the note A has, in its window still open, with B's edit, which A edits.
        XCTAssertNotNil(notesA.waitForLine(containing: "com.example.gtknotes.editing on B", timeout: 60), notesA.output)
        try continueOn(a, agent: socketA, from: "B")
        line = try XCTUnwrap(notesA.waitForLine(containing: "restored ", timeout: 60), notesA.output)
        XCTAssertTrue(line.contains(Self.restored("Shopping\nbuy eggs ", "oat milk\nand bread")), line)
        XCTAssertNotNil(notesA.waitForLine(containing: "in its open window"), notesA.output)
        XCTAssertNotNil(notesA.waitForLine(containing: "typed into "), notesA.output)
        XCTAssertNotNil(notesB.waitForLine(containing: "userActivityWasContinued: "), notesB.output)

        // 3. A → B: the note B has, in its window still open, with both edits; B edits it again.
        try continueOn(b, agent: socketB, from: "A")
        line = try XCTUnwrap(notesB.waitForLine(containing: "restored ", occurrence: 2, timeout: 60), notesB.output)
        XCTAssertTrue(line.contains(Self.restored("Shopping\nbuy eggs jam ", "oat milk\nand bread")), line)
        XCTAssertNotNil(notesB.waitForLine(containing: "in its open window"), notesB.output)
        XCTAssertNotNil(notesB.waitForLine(containing: "typed into ", occurrence: 2), notesB.output)
        XCTAssertNotNil(notesA.waitForLine(containing: "userActivityWasContinued: ", occurrence: 2), notesA.output)

        // The sessions end (SIGTERM): each GtkNotes saves its note and ends.
        for notes in [notesA, notesB] {
            notes.terminate()
            XCTAssertEqual(notes.waitForExit(timeout: 30), 0, notes.output)
            XCTAssertTrue(notes.output.contains("applicationWillTerminate: notes saved"), notes.output)
        }
        let onA = try notes(on: "A"), onB = try notes(on: "B")
        XCTAssertEqual(onA.count, 1, "one note on A: \(onA)")
        XCTAssertEqual(onB.count, 1, "one note on B: \(onB)")
        XCTAssertEqual(onA.values.first, "Shopping\nbuy eggs jam oat milk\nand bread")
        XCTAssertEqual(onB.values.first, "Shopping\nbuy eggs jam eggs oat milk\nand bread")
        XCTAssertEqual(onA.keys.first, onB.keys.first, "B kept the note under A's name")
        let identitiesA = try identities(on: "A"), identitiesB = try identities(on: "B")
        XCTAssertEqual(identitiesA.count, 1, "\(identitiesA)")
        XCTAssertEqual(identitiesA, identitiesB, "one identity for the note on both devices")
        XCTAssertNotNil(UUID(uuidString: identitiesA.values.first ?? ""), "\(identitiesA)")
        for notes in [notesA, notesB] {
            XCTAssertFalse(notes.output.contains("ignored a note identity"), notes.output)
        }
    }

    /// A → B, then A's GtkNotes quits and starts again (the note in its file, no window open),
    /// then B → A: the note continued back updates A's note — the same file, opened in a window
    /// of its own — instead of making a second one.
    func testANoteContinuedBackToADeviceWhereItsWindowIsClosedUpdatesThatNote() throws {
        let (a, b, socketA, socketB) = try twoDevices()
        let first = try notesOnA(a, agent: socketA)
        let notesB = try notesOnB(b, agent: socketB)
        try continueOn(b, agent: socketB, from: "A")
        XCTAssertNotNil(notesB.waitForLine(containing: "typed into ", timeout: 60), notesB.output)
        XCTAssertNotNil(first.waitForLine(containing: "userActivityWasContinued: "), first.output)
        first.terminate()
        XCTAssertEqual(first.waitForExit(timeout: 30), 0, first.output)
        let name = try XCTUnwrap(try notes(on: "A").keys.first)

        let notesA = try start("baton-gtknotes", ["--agent", socketA, "--notes", notesFolder("A").path], environment: a.environment)
        XCTAssertNotNil(notesA.waitForLine(containing: "com.example.gtknotes.editing on B", timeout: 60), notesA.output)
        try continueOn(a, agent: socketA, from: "B")
        let line = try XCTUnwrap(notesA.waitForLine(containing: "restored ", timeout: 60), notesA.output)
        XCTAssertTrue(line.contains(Self.restored("Shopping\nbuy eggs ", "oat milk\nand bread")), line)
        XCTAssertTrue(notesA.output.contains("as \(name) "), notesA.output)
        XCTAssertTrue(notesA.output.contains("in a new window"), notesA.output)
        notesA.terminate()
        XCTAssertEqual(notesA.waitForExit(timeout: 30), 0, notesA.output)
        XCTAssertEqual(try notes(on: "A"), [name: "Shopping\nbuy eggs oat milk\nand bread"])
    }

    /// `.identities` is read with a size limit and checked: a malformed file, or one too large,
    /// is reported once, GtkNotes carries on as if it were empty, and the identity of the note
    /// saved then replaces it. GtkNotes on a display of its own, without agent or bus.
    func testAMalformedOrOversizedIdentitiesFileIsReportedOnceAndReplaced() throws {
        let display = try session("A")
        var alone = display.environment
        alone["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=\(root.appendingPathComponent("no-bus").path)"
        let folder = notesFolder("A"), file = folder.appendingPathComponent(".identities")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

        let oversized = Data("{\"a.txt\": \"".utf8) + Data(repeating: 0x41, count: 600 * 1024) + Data("\"}".utf8)
        let cases: [(contents: Data, report: String)] = [
            (Data("{\"Shopping.txt\": [1, 2], \"x\"".utf8), "are malformed"),
            (oversized, "too large"),
            (Data("{\"../../x.txt\": \"\(UUID().uuidString)\", \"a.txt\": \"not a UUID\"}".utf8), "2 of the notes' identities"),
        ]
        for (index, (contents, report)) in cases.enumerated() {
            try contents.write(to: file)
            let picture = root.appendingPathComponent("shot-\(index).png")
            let run = try runProduct("baton-gtknotes", ["--notes", folder.path, "--type", "Note \(index)",
                                                        "--screenshot", picture.path, "--quit-after-screenshot"],
                                     environment: alone, timeout: 60)
            XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
            XCTAssertEqual(run.stdout.components(separatedBy: report).count - 1, 1, "reported once: \(run.stdout)")
            XCTAssertTrue(run.stdout.contains("applicationWillTerminate: notes saved"), run.stdout)
            let identities = try JSONDecoder().decode([String: String].self, from: Data(contentsOf: file))
            let all = try notes(on: "A")
            let saved = all.filter { $0.value == "Note \(index)" }
            XCTAssertEqual(saved.count, 1, "\(all)")
            XCTAssertEqual(identities.count, 1, "only the note saved now has an identity: \(identities)")
            XCTAssertNotNil(identities[saved.keys.first ?? "-"].flatMap(UUID.init(uuidString:)), "\(identities)")
        }
    }
}
#endif
