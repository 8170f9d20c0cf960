#if compiler(>=6.3)
@_spi(ExperimentalCustomExecutors) import _Concurrency
#endif
import Foundation

/// The same hops and blocks as `LoopBenchmarks`, with libdispatch running the main queue.
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

    static func mainActorHops() async -> Double {
        var runs: [Double] = []
        for _ in 0..<5 {
            let start = ContinuousClock.now
            for _ in 0..<LoopBenchmarks.hops { await MainActor.run {} }
            runs.append(nanosPerOp(ContinuousClock.now - start, LoopBenchmarks.hops))
        }
        return runs.sorted()[2]
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

    static func dispatchChain() async -> Double {
        var runs: [Double] = []
        for _ in 0..<5 {
            let start = ContinuousClock.now
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                dispatchChainStep(LoopBenchmarks.hops) { done.resume() }
            }
            runs.append(nanosPerOp(ContinuousClock.now - start, LoopBenchmarks.hops))
        }
        return runs.sorted()[2]
    }
}
