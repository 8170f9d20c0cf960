import BatonLoop
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The read end of a pipe, read to its end on a thread of its own: what was written so far, and
/// a condition to wait on for more. Each pipe of a child has its own reader, so a child filling
/// one pipe never blocks because the test reads another. Each read wakes the app's loop, so a
/// test that spins it (`spin(until:)`) on a child's output sees the output when it comes.
package final class OutputReader: @unchecked Sendable {
    package let condition = NSCondition()
    private var bytes: [UInt8] = []
    package private(set) var ended = false

    /// Starts reading `descriptor`, which the reader owns and closes at the end.
    package init(_ descriptor: Int32) {
        Thread.detachNewThread { [self] in
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                condition.lock()
                if count > 0 { bytes += chunk[..<count] } else { ended = true }
                condition.broadcast()
                condition.unlock()
                // A test spinning the loop until some output comes sees it when it comes.
                MainLoop.context.wakeUp()
                if count <= 0 { break }
            }
            close(descriptor)
        }
    }

    /// Everything read so far, as UTF-8.
    package var text: String {
        condition.lock(); defer { condition.unlock() }
        return textLocked
    }

    /// The text, for a caller holding `condition`.
    package var textLocked: String { String(decoding: bytes, as: UTF8.self) }

    /// Waits until the pipe has ended (every writer closed it) or `deadline` passes.
    @discardableResult
    package func waitForEnd(until deadline: Date) -> Bool {
        condition.lock(); defer { condition.unlock() }
        while !ended {
            if !condition.wait(until: deadline) { return ended }
        }
        return true
    }
}

/// A pipe whose descriptors are closed on exec: only the child given one end holds it.
package func makePipe() throws -> (read: Int32, write: Int32) {
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }  // (Swift does not import pipe2)
    return (descriptors[0], descriptors[1])
}
