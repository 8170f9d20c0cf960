import BatonTestSupport
import Foundation
import XCTest

/// The seed samples as real processes: one saves its current activity, another continues it
/// through the continuation entry point.
final class HandoffExampleTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try FileManager.default.removeItem(at: directory) }

    /// implementing-handoff-in-your-app: the create-shape activity, updateUserActivityState and
    /// restoreUserActivityState as in the seed's listings.
    func testShapesContinuesACreateShapeActivityInAnotherProcess() throws {
        let file = directory.appendingPathComponent("shape.handoff").path
        let save = try runProduct("baton-shapes", ["--save", file, "--shape", "hexagon"])
        XCTAssertEqual(save.status, 0, save.stdout + save.stderr)
        XCTAssertTrue(save.stdout.contains("updateUserActivityState: shape-type = hexagon"), save.stdout)
        let resume = try runProduct("baton-shapes", ["--continue", file])
        XCTAssertEqual(resume.status, 0, resume.stdout + resume.stderr)
        XCTAssertEqual(resume.stdout.split(separator: "\n"), [
            "willContinueUserActivityWithType com.example.myapp.create-shape: receiving…",
            "continue com.example.myapp.create-shape \"Creating shape\"",
            "restoreUserActivityState: created a hexagon (shapes on the canvas: hexagon)",
        ])
    }

    /// about-handoff, "Supporting a User Activity in Document-Based Apps": no continue method,
    /// so the runtime opens the document at the URL and restores it.
    func testNotesReopensTheDocumentInAnotherProcess() throws {
        let note = directory.appendingPathComponent("list.note")
        try "one\ntwo\nthree\n".write(to: note, atomically: true, encoding: .utf8)
        let file = directory.appendingPathComponent("note.handoff").path
        let save = try runProduct("baton-notes", ["--save", file, note.path, "--line", "3"])
        XCTAssertEqual(save.status, 0, save.stdout + save.stderr)
        XCTAssertTrue(save.stdout.contains("its activity: com.example.notes.editing"), save.stdout)
        let resume = try runProduct("baton-notes", ["--continue", file])
        XCTAssertEqual(resume.status, 0, resume.stdout + resume.stderr)
        XCTAssertTrue(resume.stdout.contains("restoreUserActivityState: opened list.note at line 3: \"three\""), resume.stdout)
    }

    func testAnUnreadableHandoffFileFailsThroughTheDelegate() throws {
        let file = directory.appendingPathComponent("junk.handoff")
        try Data("junk".utf8).write(to: file)
        let resume = try runProduct("baton-shapes", ["--continue", file.path])
        XCTAssertEqual(resume.status, 1)
        XCTAssertTrue(resume.stdout.contains("error: could not continue"), resume.stdout)
        XCTAssertTrue(resume.stdout.contains("is not a handoff file"), resume.stdout)
    }
}
