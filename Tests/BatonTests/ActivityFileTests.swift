@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// Handoff files are untrusted input: their size is checked before a byte is read.
final class ActivityFileTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try FileManager.default.removeItem(at: directory) }

    /// A sparse file of `size` bytes: it takes no disk, but reading it would take `size` of memory.
    private func sparseFile(_ name: String, size: Int) throws -> URL {
        let url = directory.appendingPathComponent(name)
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        defer { close(descriptor) }
        XCTAssertEqual(ftruncate(descriptor, off_t(size)), 0)
        return url
    }

    func testATwoGigabyteHandoffFileIsRefusedFromItsSize() throws {
        let file = try sparseFile("huge.handoff", size: 2 << 30)
        XCTAssertThrowsError(try ActivityFile.read(from: file)) {
            XCTAssertEqual($0 as? ActivityFileError, .tooLarge(path: file.path, size: 2 << 30, limit: ActivityFile.sizeLimit))
            XCTAssertTrue("\($0)".contains(file.path) && "\($0)".contains("\(ActivityFile.sizeLimit) bytes"), "\($0)")
        }
        // The same through an app: it fails at once, naming the file and the limit.
        let resume = try runProduct("baton-shapes", ["--continue", file.path], timeout: 30)
        XCTAssertEqual(resume.status, 1)
        XCTAssertTrue(resume.stdout.contains("\(file.path) is \(2 << 30) bytes; a handoff file is at most \(ActivityFile.sizeLimit) bytes"), resume.stdout)
    }

    func testAFileJustOverTheLimitIsRefusedAndOneAtTheLimitIsRead() throws {
        let over = try sparseFile("over.handoff", size: ActivityFile.sizeLimit + 1)
        XCTAssertThrowsError(try ActivityFile.read(from: over)) {
            XCTAssertEqual($0 as? ActivityFileError, .tooLarge(path: over.path, size: ActivityFile.sizeLimit + 1, limit: ActivityFile.sizeLimit))
        }
        let atLimit = try sparseFile("zeros.handoff", size: ActivityFile.sizeLimit)
        XCTAssertThrowsError(try ActivityFile.read(from: atLimit)) {
            guard case .notAHandoffFile(atLimit.path, _)? = $0 as? ActivityFileError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try ActivityFile.read(from: directory)) {
            XCTAssertEqual($0 as? ActivityFileError, .unreadable(path: directory.path, reason: "it is not a regular file"))
        }
        XCTAssertThrowsError(try ActivityFile.read(from: directory.appendingPathComponent("missing"))) {
            guard case .unreadable(_, "No such file or directory")? = $0 as? ActivityFileError else { return XCTFail("\($0)") }
        }
    }
}

/// What another device sends is printed with its control and bidirectional characters visible.
final class PrintableTextTests: XCTestCase {
    func testControlAndBidirectionalCharactersAreEscaped() {
        XCTAssertEqual(PrintableText.escaped("plain text, café ☎ 東京"), "plain text, café ☎ 東京")
        XCTAssertEqual(PrintableText.escaped("a\u{1B}[31mb"), "a\\u{1B}[31mb")
        XCTAssertEqual(PrintableText.escaped("x\u{202E}y\u{2066}z\u{200F}\u{061C}"), "x\\u{202E}y\\u{2066}z\\u{200F}\\u{61C}")
        XCTAssertEqual(PrintableText.escaped("line\nnext\u{85}\u{2028}\u{7F}\u{0}"), "line\\u{A}next\\u{85}\\u{2028}\\u{7F}\\u{0}")
        XCTAssertEqual(PrintableText.escaped("zero\u{200B}width\u{FEFF}"), "zero\\u{200B}width\\u{FEFF}")
        for value in [0x00, 0x1B, 0x7F, 0x9B, 0x200E, 0x200F, 0x061C] + Array(0x202A...0x202E) + Array(0x2066...0x2069) {
            XCTAssertFalse(PrintableText.showsAsItself(Unicode.Scalar(UInt32(value))!), String(value, radix: 16))
        }
        XCTAssertTrue(PrintableText.isPrintable("Ada's phone (2)"))
    }

    /// Issue 25: an example prints what comes from a file through `PrintableText.escaped`, so a
    /// handoff file whose activity type carries an escape sequence cannot act on the terminal.
    func testAnExamplePrintsAHandoffFilesTextEscaped() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("baton-escape-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("hostile.handoff")
        try MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.\u{1B}[2J\u{1B}]0;owned\u{7}")
            activity.title = "title\u{202E}gnp.exe"
            try ActivityFile.write(activity, to: file)
        }
        let result = try runProduct("baton-shapes", ["--continue", file.path], timeout: 30)
        let output = result.stdout + result.stderr
        XCTAssertFalse(output.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x202E }, output)
        XCTAssertTrue(result.stdout.contains("com.example.\\u{1B}[2J"), result.stdout)
    }

}
