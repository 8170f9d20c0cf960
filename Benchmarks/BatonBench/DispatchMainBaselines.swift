import Foundation

/// The same hops and blocks as `LoopBenchmarks`, with libdispatch running the main queue.
enum DispatchMainBaselines {
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
