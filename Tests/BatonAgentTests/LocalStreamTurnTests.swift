import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest
@testable import BatonAgent

/// A relayed stream's local connection (`LocalStream`) moves what the socket takes or holds in
/// the same turn of the loop: a write the socket's buffer takes, and a read of bytes that have
/// already arrived, finish without the loop running (GIO's asynchronous calls finish a turn
/// later at the soonest, a wake-up more on each hop of a relayed stream).
final class LocalStreamTurnTests: XCTestCase {
    func testAWriteTheSocketTakesAndAReadOfArrivedBytesFinishWithoutALoopTurn() throws {
        try MainActor.assumeIsolated {
            let (writer, reader) = try Self.pair()
            defer { writer.close(); reader.close() }
            var written = false
            Task.immediate { @MainActor in
                try await writer.write(Data("send 5".utf8))
                written = true
            }
            XCTAssertTrue(written, "the write waited for a turn of the loop")
            var received: Data?
            Task.immediate { @MainActor in received = try await reader.read(maxLength: 1024) }
            XCTAssertEqual(received, Data("send 5".utf8), "the read of bytes already arrived waited for a turn of the loop")
            // With nothing arrived, a read waits for the socket and finishes when bytes come.
            var later: Data?
            Task.immediate { @MainActor in later = try await reader.read(maxLength: 1024) }
            XCTAssertNil(later)
            var ended = false
            Task.immediate { @MainActor in
                try await writer.write(Data("x".utf8))
                ended = true
            }
            XCTAssertTrue(ended)
            MainLoop.run(until: { later != nil }, timeout: .seconds(30))
            XCTAssertEqual(later, Data("x".utf8))
        }
    }

    /// Two `LocalStream`s over the two ends of a Unix stream socket pair.
    @MainActor
    private static func pair() throws -> (LocalStream, LocalStream) {
        let (writer, reader, _) = try LocalStream.socketPair()
        return (writer, reader)
    }
}
