@testable import BatonLoop
import CGLib
import Dispatch
import Foundation
import Synchronization
import BatonTestSupport
import XCTest

/// How many iterations of the loop an `FDWatch` costs: a dispatch does not wake the context
/// again (the fd stays in the poll set, as a source that may recurse), and a loop iterated
/// inside its callback neither runs the callback again nor spins on the ready fd.
final class FDWatchIterationTests: XCTestCase {
    /// Messages written one at a time from another thread, each after the last was read, make
    /// one fd ready in the loop's polls each: the socket's. A source GLib takes out of the poll
    /// around its dispatch (`g_unix_fd_source_new`, a GIO pollable source) wakes the context
    /// twice in it, so each message also made the context's wake-up eventfd ready: a poll (an
    /// iteration, unless the next message came first) and an eventfd read with nothing to do.
    /// Ready fds are counted rather than iterations, which the writer's timing can merge.
    func testAMessageMakesOneFDReady() throws {
        try MainActor.assumeIsolated {
            let messages = 300
            let (reader, writer) = try socketPair()
            defer { close(reader); close(writer) }
            var read = 0
            let readOne = DispatchSemaphore(value: 0)
            let watch = FDWatch(readable: reader) {
                var byte: UInt8 = 0
                guard Glibc.read(reader, &byte, 1) == 1 else { return .stop }
                read += 1
                readOne.signal()
                return .again
            }
            defer { watch.cancel() }
            let polls = ReadyFDCounter(on: MainLoop.context)
            defer { polls.remove() }
            let writerFD = writer
            Thread {
                var byte: UInt8 = 1
                for _ in 0..<messages {
                    _ = Glibc.write(writerFD, &byte, 1)
                    readOne.wait()
                }
            }.start()
            XCTAssertTrue(MainLoop.run(until: { read == messages }, timeout: .seconds(60)))
            let ready = polls.ready
            XCTAssertLessThan(Double(ready), 1.5 * Double(messages), "\(ready) fds ready in polls for \(messages) messages")
        }
    }

    /// A callback that iterates the loop while its fd is still readable: the nested loop does
    /// not run the callback again, and waits in its poll rather than finding the fd readable
    /// at every iteration; the watch sees the fd again once the callback returns.
    func testALoopInsideTheCallbackNeitherRerunsNorSpins() throws {
        try MainActor.assumeIsolated {
            let (reader, writer) = try socketPair()
            defer { close(reader); close(writer) }
            var calls = 0
            var depth = 0
            var deepest = 0
            var nestedIterations = 0
            var drained = false
            let watch = FDWatch(readable: reader) {
                calls += 1
                depth += 1
                defer { depth -= 1 }
                deepest = max(deepest, depth)
                if calls == 1 {
                    // The byte stays unread: the fd is readable all through this nested loop.
                    let probe = LoopIterationCounter(on: MainLoop.context)
                    _ = MainLoop.run(until: { false }, timeout: .milliseconds(300))
                    nestedIterations = probe.iterations
                    probe.remove()
                    return .again
                }
                var byte: UInt8 = 0
                _ = Glibc.read(reader, &byte, 1)
                drained = true
                return .stop
            }
            defer { watch.cancel() }
            var byte: UInt8 = 1
            XCTAssertEqual(Glibc.write(writer, &byte, 1), 1)
            XCTAssertTrue(MainLoop.run(until: { drained }, timeout: .seconds(30)), "the watch did not see its fd again")
            XCTAssertEqual(deepest, 1, "the callback ran inside itself")
            XCTAssertEqual(calls, 2)
            XCTAssertLessThan(nestedIterations, 20, "the loop inside the callback spun on the readable fd")
        }
    }
}

/// A connected pair of Unix stream sockets.
private func socketPair() throws -> (Int32, Int32) {
    var fds: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else {
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    return (fds[0], fds[1])
}
