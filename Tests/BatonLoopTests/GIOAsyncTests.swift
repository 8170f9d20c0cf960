import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest

/// GIO async calls awaited from the main actor, resumed through the GLib loop.
final class GIOAsyncTests: XCTestCase {
    func testLoadsAFileAsynchronously() throws {
        try MainActor.assumeIsolated {
            let path = NSTemporaryDirectory() + "baton-gio-\(UUID().uuidString)"
            try Data("hello, loop".utf8).write(to: URL(fileURLWithPath: path))
            defer { try? FileManager.default.removeItem(atPath: path) }
            let boxesBefore = LoopDiagnostics.liveCallbackBoxes
            var outcome: Result<Data, Error>?
            Task { @MainActor in
                outcome = await result { try await GIOCalls.contents(ofFile: path) }
            }
            XCTAssertTrue(MainLoop.run(until: { outcome != nil }, timeout: .seconds(10)))
            XCTAssertEqual(try outcome?.get(), Data("hello, loop".utf8))
            XCTAssertLessThanOrEqual(LoopDiagnostics.liveCallbackBoxes, boxesBefore, "no box of this test is left (an earlier test's may go meanwhile)")
        }
    }

    func testGErrorBecomesATypedErrorNamingTheProblem() {
        MainActor.assumeIsolated {
            var outcome: Result<Data, Error>?
            Task { @MainActor in
                outcome = await result { try await GIOCalls.contents(ofFile: "/nonexistent/baton/file") }
            }
            XCTAssertTrue(MainLoop.run(until: { outcome != nil }, timeout: .seconds(10)))
            guard case .failure(let error as GLibError)? = outcome else {
                return XCTFail("expected a GLibError, got \(String(describing: outcome))")
            }
            XCTAssertEqual(error.domain, "g-io-error-quark")
            XCTAssertEqual(error.code, Int32(G_IO_ERROR_NOT_FOUND.rawValue))
            XCTAssertTrue(error.message.contains("/nonexistent/baton/file"), error.message)
        }
    }

    func testReadCompletesWhenDataArrives() throws {
        try MainActor.assumeIsolated {
            var fds: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&fds), 0)
            defer { close(fds[0]); close(fds[1]) }
            var outcome: Result<Data, Error>?
            Task { @MainActor in
                outcome = await result { try await GIOCalls.read(fromDescriptor: fds[0], maxLength: 64) }
            }
            MainLoop.after(.milliseconds(5)) {
                var bytes: [UInt8] = Array("ping".utf8)
                _ = write(fds[1], &bytes, bytes.count)
            }
            XCTAssertTrue(MainLoop.run(until: { outcome != nil }, timeout: .seconds(10)))
            XCTAssertEqual(try outcome?.get(), Data("ping".utf8))
        }
    }

    func testTaskCancellationCancelsTheGCancellable() {
        MainActor.assumeIsolated {
            var fds: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&fds), 0)
            defer { close(fds[0]); close(fds[1]) }
            let boxesBefore = LoopDiagnostics.liveCallbackBoxes
            var outcome: Result<Data, Error>?
            let task = Task { @MainActor in
                outcome = await result { try await GIOCalls.read(fromDescriptor: fds[0], maxLength: 64) }
            }
            MainLoop.after(.milliseconds(5)) { task.cancel() }  // nothing is ever written
            XCTAssertTrue(MainLoop.run(until: { outcome != nil }, timeout: .seconds(10)))
            guard case .failure(let error)? = outcome else { return XCTFail("read should fail") }
            XCTAssertTrue(error is CancellationError, "got \(error)")
            XCTAssertLessThanOrEqual(LoopDiagnostics.liveCallbackBoxes, boxesBefore, "no box of this test is left (an earlier test's may go meanwhile)")
        }
    }
}
