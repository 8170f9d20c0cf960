import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest
@testable import BatonAgent

/// A relayed stream's local connection (`LocalStream`) waits for the socket on one read watch
/// for its life, not on a GLib source per read: GLib writes the loop's wake-up eventfd each
/// time a source adds or removes a polled fd, so a source per wait cost two of those writes
/// and a turn of the loop on each hop of a relayed stream. Writes the socket does not take
/// whole wait on a write watch and still arrive whole.
final class LocalStreamWatchTests: XCTestCase {
    /// Two streams echo a byte back and forth, each read waiting for the other's write: each
    /// side makes one read watch, and the loop gains far fewer sources than there are waits.
    func testManyWaitingReadsShareOneReadWatch() throws {
        try MainActor.assumeIsolated { try Self.echoRounds() }
    }

    @MainActor
    private static func echoRounds() throws {
        let (a, b, _) = try LocalStream.socketPair()
        defer { a.close(); b.close() }
        let rounds = 200
        let firstSource = Self.nextSourceID()
        Task { @MainActor in
            for _ in 0..<rounds {
                let byte = try await b.read(maxLength: 16)
                try await b.write(byte)
            }
        }
        let echoed: [Data] = try runToEnd {
            var echoed: [Data] = []
            for round in 0..<rounds {
                try await a.write(Data([UInt8(round % 251)]))
                echoed.append(try await a.read(maxLength: 16))
            }
            return echoed
        }
        let sourcesAttached = Self.nextSourceID() - firstSource - 1
        let expected: [Data] = (0..<rounds).map { (round: Int) -> Data in Data([UInt8(round % 251)]) }
        XCTAssertEqual(echoed, expected)
        XCTAssertEqual(a.readWatchesMade, 1)
        XCTAssertEqual(b.readWatchesMade, 1)
        // 2 × 200 waiting reads; a source per wait would be 400 or more.
        XCTAssertLessThan(Int(sourcesAttached), rounds / 4, "GLib sources attached during \(2 * rounds) waiting reads")
    }

    /// A write several times the socket's buffer, with the reader starting only later, waits on
    /// the write watch and arrives whole and in order; a read waiting when the stream is closed
    /// on the loop fails as a broken stream instead of waiting on.
    func testAWriteTheSocketCannotTakeWholeArrivesAndAClosedStreamFailsItsWaitingRead() throws {
        try MainActor.assumeIsolated {
            let (writer, reader, _) = try LocalStream.socketPair()
            defer { writer.close(); reader.close() }
            let sent = Data((0..<3_000_000).map { UInt8($0 % 251) })
            var wrote = false
            Task { @MainActor in
                try await writer.write(sent)
                try await writer.finishWriting()
                wrote = true
            }
            XCTAssertFalse(wrote, "3 MB went into the socket at once")
            let received: Data = try runToEnd {
                var received = Data()
                while true {
                    let chunk = try await reader.read(maxLength: 100_000)
                    if chunk.isEmpty { return received }
                    received.append(chunk)
                }
            }
            XCTAssertTrue(received == sent, "\(received.count) bytes of \(sent.count), or out of order")

            let (other, waiting, _) = try LocalStream.socketPair()
            defer { other.close() }
            var outcome: Result<Data, any Error>?
            Task.immediate { @MainActor in
                do { outcome = .success(try await waiting.read(maxLength: 16)) } catch { outcome = .failure(error) }
            }
            XCTAssertNil(outcome, "the read did not wait")
            waiting.close()
            XCTAssertTrue(MainLoop.run(until: { outcome != nil }, timeout: .seconds(60)))
            var failure: CocoaError?
            if case .failure(let error) = outcome { failure = error as? CocoaError }
            XCTAssertEqual(failure?.code, .userActivityConnectionUnavailable)
        }
    }

    /// The id the loop's next source gets (GLib numbers sources in order of attaching).
    @MainActor
    private static func nextSourceID() -> UInt32 {
        let probe = g_idle_source_new()!
        defer { g_source_unref(probe) }
        let id = g_source_attach(probe, MainLoop.context.gContext)
        g_source_destroy(probe)
        return id
    }
}
