@testable import Baton
import Foundation
import CGLib
import XCTest

/// Reading an empty file neither leaks nor fails (found by LeakSanitizer in the fuzz targets:
/// swift-foundation's `Data(contentsOf:)` leaks 4 KiB per empty file, so every empty handoff
/// file or roster read leaked).
final class FileContentsTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("baton-file-contents-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try FileManager.default.removeItem(at: directory)
    }

    func testEmptyHandoffFilesDoNotGrowTheHeap() throws {
        let file = directory.appendingPathComponent("empty.handoff")
        XCTAssertTrue(FileManager.default.createFile(atPath: file.path, contents: Data()))
        XCTAssertThrowsError(try ActivityFile.read(from: file))  // warm up: caches made once are not growth
        let before = baton_heap_bytes_in_use()
        for _ in 0..<2000 { XCTAssertThrowsError(try ActivityFile.read(from: file)) }
        let grown = Int(baton_heap_bytes_in_use()) - Int(before)
        // A 4 KiB leak per read would be 8 MB; what a read allocates is freed again.
        XCTAssertLessThan(grown, 1 << 20, "the heap grew by \(grown) bytes over 2000 reads of an empty file")
    }

    func testContentsAndRefusals() throws {
        let empty = directory.appendingPathComponent("empty"), full = directory.appendingPathComponent("full")
        XCTAssertTrue(FileManager.default.createFile(atPath: empty.path, contents: Data()))
        XCTAssertTrue(FileManager.default.createFile(atPath: full.path, contents: Data(repeating: 7, count: 5000)))
        XCTAssertEqual(try FileContents.read(empty.path, limit: 10), Data())
        XCTAssertEqual(try FileContents.read(full.path, limit: 5000), Data(repeating: 7, count: 5000))
        XCTAssertThrowsError(try FileContents.read(full.path, limit: 4999)) { XCTAssertEqual($0 as? FileContents.Failure, .tooLarge(size: 5000)) }
        XCTAssertThrowsError(try FileContents.read(directory.appendingPathComponent("missing").path, limit: 10)) {
            XCTAssertEqual($0 as? FileContents.Failure, .missing)
        }
        XCTAssertThrowsError(try FileContents.read(directory.path, limit: 10)) {
            XCTAssertEqual($0 as? FileContents.Failure, .notARegularFile(isFolder: true))
        }
    }
}
