import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest
@testable import BatonAgent

/// The framing of a relayed stream's local connection (`LocalStream`, docs/PROTOCOL.md §5) over
/// a real socket pair on the loop: payloads of every size around a frame's (64 KiB) and the
/// read buffer's (256 KiB) come through whole and in order, whatever the reader's `maxLength`;
/// the end frame ends the stream, and a connection that ends without it, or a frame over the
/// limit, fails the read instead.
final class LocalStreamTests: XCTestCase {
    /// Byte i is i % 251, so a byte lost, doubled or moved shows.
    private static func pattern(_ count: Int, from start: Int = 0) -> Data { Data((start..<(start + count)).map { UInt8($0 % 251) }) }

    func testEverySizeAroundTheFrameAndBufferSizesArrivesWholeAndEnds() throws {
        try MainActor.assumeIsolated {
            let piece = LocalStream.piece, buffer = LocalStream.bufferSize
            let sizes = [1, 4, piece - 1, piece, piece + 1, 2 * piece + 3, buffer - 4, buffer, buffer + 5, 1_000_003]
            for size in sizes {
                for maxLength in [7_777, piece, 300_000] where size <= 100_000 || maxLength >= piece {
                    let (writer, reader, _) = try Self.pair()
                    defer { writer.close(); reader.close() }
                    let sent = Self.pattern(size)
                    Task { @MainActor in  // beside the reader: a large write waits for it
                        try await writer.write(sent)
                        try await writer.finishWriting()
                    }
                    let received = try runToEnd {
                        var received = Data()
                        while true {
                            let chunk = try await reader.read(maxLength: maxLength)
                            if chunk.isEmpty { break }
                            XCTAssertLessThanOrEqual(chunk.count, maxLength)
                            received.append(chunk)
                        }
                        let again = try await reader.read(maxLength: maxLength)
                        XCTAssertTrue(again.isEmpty, "a read after the end reads the end again")
                        return received
                    }
                    XCTAssertEqual(received.count, size, "size \(size), maxLength \(maxLength)")
                    XCTAssertTrue(received == sent, "size \(size), maxLength \(maxLength): the bytes differ")
                }
            }
        }
    }

    /// Writes of several sizes, read while they are still being written, come out as one
    /// stream; headers split across socket reads (a byte at a time) are put back together.
    func testWritesInPiecesAndHeadersSplitAcrossReadsAreReassembled() throws {
        try MainActor.assumeIsolated {
            let (writer, reader, fds) = try Self.pair()
            defer { writer.close(); reader.close() }
            var received = Data()
            var finished = false
            var failure: (any Error)?
            Task { @MainActor in
                do {
                    while true {
                        let chunk = try await reader.read(maxLength: 100_000)
                        if chunk.isEmpty { break }
                        received.append(chunk)
                    }
                } catch { failure = error }
                finished = true
            }
            let sizes = [0, 1, LocalStream.piece, 100_000, 3]
            var offset = 0
            try runToEnd {
                for size in sizes {
                    try await writer.write(Self.pattern(size, from: offset))
                    offset += size
                }
            }
            // A frame of 5 bytes whose header comes a byte at a time, each taken by the reader
            // before the next is sent, then the end frame in two parts.
            for bytes in [[0], [0], [0], [5], Array(Self.pattern(5, from: offset)), [0, 0], [0, 0]] as [[UInt8]] {
                XCTAssertEqual(send(fds.writer, bytes, bytes.count, 0), bytes.count)
                spin(until: { finished || Self.queued(fds.reader) == 0 })
            }
            spin(until: { finished })
            XCTAssertNil(failure)
            XCTAssertTrue(received == Self.pattern(offset + 5), "got \(received.count) bytes, expected \(offset + 5)")
        }
    }

    /// A connection that ends without the end frame (the writer died, the relay broke) fails
    /// the read with `userActivityConnectionUnavailable`, after the bytes that did arrive.
    func testAConnectionEndingWithoutTheEndFrameFailsTheRead() throws {
        try MainActor.assumeIsolated {
            let (writer, reader, _) = try Self.pair()
            defer { reader.close() }
            let outcome: (Data, CocoaError?) = try runToEnd {
                try await writer.write(Self.pattern(70_000))  // fits in the socket's buffer
                writer.close()
                var received = Data()
                do {
                    while true {
                        let chunk = try await reader.read(maxLength: 65_536)
                        if chunk.isEmpty { break }
                        received.append(chunk)
                    }
                    return (received, nil)
                } catch {
                    return (received, error as? CocoaError)
                }
            }
            XCTAssertEqual(outcome.0.count, 70_000)
            XCTAssertEqual(outcome.1?.code, .userActivityConnectionUnavailable)
        }
    }

    /// A frame header over 64 KiB fails the read before its bytes are taken.
    func testAFrameOverTheLimitFailsTheRead() throws {
        try MainActor.assumeIsolated {
            let (writer, reader, _) = try Self.pair()
            defer { writer.close(); reader.close() }
            let failure: CocoaError? = try runToEnd {
                try await writer.writeRaw(Data([0, 1, 0, 1]) + Data(count: 16))
                do {
                    _ = try await reader.read(maxLength: 1024)
                    return nil
                } catch {
                    return error as? CocoaError
                }
            }
            XCTAssertEqual(failure?.code, .userActivityHandoffFailed)
        }
    }

    // MARK: Helpers

    /// Bytes waiting in `fd`'s receive queue.
    private static func queued(_ fd: Int32) -> Int32 {
        var count: Int32 = 0
        _ = ioctl(fd, UInt(FIONREAD), &count)
        return count
    }

    /// Two `LocalStream`s over the two ends of a Unix stream socket pair, and their descriptors.
    @MainActor
    private static func pair() throws -> (LocalStream, LocalStream, (writer: Int32, reader: Int32)) {
        try LocalStream.socketPair()
    }
}
