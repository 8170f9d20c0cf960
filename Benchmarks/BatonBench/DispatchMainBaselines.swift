import CGLib
import Foundation
import Glibc

/// What the `DispatchQueue.main` chain's floor needs measured in this process (the rows'
/// `dispatchMain()` baselines themselves run in child processes: `AlternatedBaseline`).
enum DispatchMainBaselines {
    /// Nanoseconds per write to libdispatch's main-queue eventfd (the system call libdispatch
    /// makes to tell a run loop that the main queue has work), `writes` of them, then one read
    /// that resets it. Call it on the main thread before `dispatchMain()`, which closes that fd.
    static func eventfdWrite(writes: Int = 100_000) -> Double {
        let fd = _dispatch_get_main_queue_handle_4CF()
        precondition(fd >= 0, "libdispatch's main-queue eventfd")
        var one: UInt64 = 1
        let start = ContinuousClock.now
        for _ in 0..<writes { _ = write(fd, &one, MemoryLayout<UInt64>.size) }
        let time = nanosPerOp(ContinuousClock.now - start, writes)
        var counter: UInt64 = 0
        _ = read(fd, &counter, MemoryLayout<UInt64>.size)
        return time
    }
}
