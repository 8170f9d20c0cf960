#if compiler(>=6.3)
@_spi(ExperimentalCustomExecutors) import _Concurrency
#endif
import CGLib
import Foundation
import Glibc

/// The same task chain as `LoopBenchmarks`, with libdispatch running the main queue (the
/// `MainActor.run` row's and the `DispatchQueue.main` chain's baselines run in child processes:
/// `MainActorHopBenchmarks`, `DispatchChainBenchmarks`).
///
/// Once `MainLoop` has run, the main actor's executor is Baton's GLib source, which
/// `dispatchMain()` never iterates: the first baseline gives the main actor back to
/// libdispatch's main queue (Swift's platform executors) before it measures.
enum DispatchMainBaselines {
    /// Makes libdispatch's main queue the main actor's executor again, as without Baton.
    /// Call it before `dispatchMain()` runs anything of the main actor's.
    static func restorePlatformExecutors() {
        #if compiler(>=6.3)
        _createExecutors(factory: PlatformExecutorFactory.self)
        #endif
    }

    static func mainActorTasks() async -> Double {
        var runs: [Double] = []
        for _ in 0..<5 {
            let start = ContinuousClock.now
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                Task { @MainActor in mainActorTaskChain(LoopBenchmarks.hops) { done.resume() } }
            }
            runs.append(nanosPerOp(ContinuousClock.now - start, LoopBenchmarks.hops))
        }
        return runs.sorted()[2]
    }

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
