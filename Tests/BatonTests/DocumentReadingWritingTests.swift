@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// A document read and written as data, as AppKit's guide advises.
@MainActor
final class TextDocument: Document {
    var text = ""
    var reads: [String] = []
    override func read(from data: Data, ofType typeName: String) throws {
        reads.append(typeName)
        text = String(decoding: data, as: UTF8.self)
    }
    override func data(ofType typeName: String) throws -> Data { Data(text.utf8) }
}

private func temporaryFile(_ name: String, contents: String?) throws -> URL {
    let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(UUID().uuidString)-\(name)")
    if let contents { try contents.write(to: url, atomically: true, encoding: .utf8) }
    return url
}

/// NSDocument's reading and writing
/// (https://developer.apple.com/documentation/appkit/nsdocument/read(from:oftype:)-6g6ai,
/// .../read(from:oftype:)-1vttv, .../data(oftype:), .../write(to:oftype:),
/// .../save(to:oftype:for:completionhandler:), .../displayname).
final class DocumentReadingWritingTests: BatonTestCase {
    /// The default URL read passes the file's bytes to read(from:ofType:) taking Data.
    func testTheURLReadPassesTheFilesDataOn() throws {
        try MainActor.assumeIsolated {
            let url = try temporaryFile("note.txt", contents: "hello")
            defer { try? FileManager.default.removeItem(at: url) }
            let document = try TextDocument(contentsOf: url, ofType: "Text")
            XCTAssertEqual(document.text, "hello")
            XCTAssertEqual(document.reads, ["Text"])
            XCTAssertEqual(document.fileURL, url)
        }
    }

    /// A missing file, or a folder, is a CocoaError; a plain Document (which overrides nothing)
    /// still opens a readable file.
    func testReadErrorsAndThePlainDocument() throws {
        try MainActor.assumeIsolated {
            let missing = try temporaryFile("missing.txt", contents: nil)
            XCTAssertThrowsError(try TextDocument(contentsOf: missing, ofType: "Text")) {
                XCTAssertEqual(($0 as? CocoaError)?.code, .fileReadNoSuchFile)
            }
            XCTAssertThrowsError(try TextDocument(contentsOf: URL(fileURLWithPath: NSTemporaryDirectory()), ofType: "Text")) {
                XCTAssertEqual(($0 as? CocoaError)?.code, .fileReadUnknown)
            }
            let url = try temporaryFile("plain.txt", contents: "x")
            defer { try? FileManager.default.removeItem(at: url) }
            XCTAssertNoThrow(try Document(contentsOf: url, ofType: "Text"))
        }
    }

    /// write(to:ofType:) writes data(ofType:); the default data(ofType:) throws.
    func testWriteWritesTheData() throws {
        try MainActor.assumeIsolated {
            let document = TextDocument()
            document.text = "written"
            let url = try temporaryFile("out.txt", contents: nil)
            defer { try? FileManager.default.removeItem(at: url) }
            try document.write(to: url, ofType: "Text")
            XCTAssertEqual(try String(contentsOf: url, encoding: .utf8), "written")
            XCTAssertNil(document.fileURL, "write(to:ofType:) does not change the document's file")
            XCTAssertThrowsError(try Document().data(ofType: "Text")) {
                XCTAssertEqual(($0 as? CocoaError)?.code, .featureUnsupported)
            }
            XCTAssertThrowsError(try Document().write(to: url, ofType: "Text"))
            XCTAssertEqual(try String(contentsOf: url, encoding: .utf8), "written", "a failed write leaves the file")
        }
    }

    /// save(to:ofType:for:completionHandler:): a save-as makes the URL the document's; a
    /// save-to does not; a failure reaches the handler and changes nothing.
    func testSaveOperations() throws {
        try MainActor.assumeIsolated {
            let document = TextDocument()
            document.text = "saved"
            let copy = try temporaryFile("copy.txt", contents: nil)
            let own = try temporaryFile("own.txt", contents: nil)
            defer { for url in [copy, own] { try? FileManager.default.removeItem(at: url) } }
            var results: [String] = []
            document.save(to: copy, ofType: "Text", for: .saveToOperation) { results.append($0 == nil ? "ok" : "failed") }
            XCTAssertNil(document.fileURL)
            document.save(to: own, ofType: "Text", for: .saveAsOperation) { results.append($0 == nil ? "ok" : "failed") }
            XCTAssertEqual(document.fileURL, own)
            XCTAssertEqual(document.fileType, "Text")
            XCTAssertEqual(try String(contentsOf: own, encoding: .utf8), "saved")
            let elsewhere = URL(fileURLWithPath: "/nonexistent-folder-\(UUID().uuidString)/x.txt")
            document.save(to: elsewhere, ofType: "Other", for: .saveAsOperation) { results.append($0 == nil ? "ok" : "failed") }
            XCTAssertEqual(results, ["ok", "ok", "failed"])
            XCTAssertEqual(document.fileURL, own, "a failed save changes nothing")
            XCTAssertEqual(document.fileType, "Text")
        }
    }

    /// displayName: the file's name without extension, "Untitled" without a file, or the set
    /// name; setting nil goes back to the default.
    func testDisplayName() {
        MainActor.assumeIsolated {
            let document = Document()
            XCTAssertEqual(document.displayName, "Untitled")
            document.fileURL = URL(fileURLWithPath: "/tmp/Report.note")
            XCTAssertEqual(document.displayName, "Report")
            document.displayName = "Mine"
            XCTAssertEqual(document.displayName, "Mine")
            document.displayName = nil
            XCTAssertEqual(document.displayName, "Report")
        }
    }
}
