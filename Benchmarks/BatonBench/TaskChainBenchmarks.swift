import Baton
import Foundation

/// The `Task { @MainActor }` chain row: main-actor tasks each starting the next, run by the GLib
/// loop (the main actor's executor is a GLib source), beside the same chain under
/// `dispatchMain()`.
///
/// Measured the way the `MainActor.run` and `DispatchQueue.main` chain rows are: `blocks`
/// blocks of `tasksPerBlock` tasks on the GLib loop, each followed by the same chain under
/// `dispatchMain()` in a child process of this bench (`--dispatch-main-tasks`), so that both
/// sides meet the same load. Measured once each at different moments of a run (the baseline
/// minutes after the loop's side, in this process), the ratio moved from 0.54× to 1.91×.
@MainActor
enum TaskChainBenchmarks {
    /// Blocks of each side, alternating.
    static let blocks = 9
    /// Main-actor tasks in a chain (about 30–100 ms of either side on this machine).
    nonisolated static let tasksPerBlock = 100_000

    /// Each side's ns per task, block by block.
    struct Result {
        var loop: [Double] = []
        var baseline: [Double] = []
        /// Why the baseline's blocks were not all measured, if they were not.
        var failure: String?

        /// The row, each side its median block.
        var figure: Figure {
            Figure(name: "Task { @MainActor } chain, GLib loop", value: percentile(loop, 50),
                   baselineName: "same under dispatchMain(), alternated", baseline: percentile(baseline, 50),
                   unit: "ns/op", aim: "aim ≤ 1.3×")
        }

        /// The blocks' ratios, in one line.
        var note: String {
            "(Task { @MainActor } chain: \(loop.count) alternated blocks of \(tasksPerBlock), ratios "
                + AlternatedBaseline.ratios(loop, to: baseline) + (failure.map { "; baseline failed: \($0)" } ?? "") + ")"
        }
    }

    /// Measures both sides, alternating, after one untimed block of each.
    static func measure() -> Result {
        let (loop, baseline, failure) = AlternatedBaseline.alternate(blocks: blocks) {
            LoopBenchmarks.mainActorTasks(count: tasksPerBlock)
        } baseline: {
            try AlternatedBaseline.childBlock("--dispatch-main-tasks", count: tasksPerBlock, fields: 1)[0]
        }
        return Result(loop: loop, baseline: baseline, failure: failure)
    }

    /// `BatonBench --dispatch-main-tasks N`: the baseline's child. Runs `dispatchMain()` with
    /// libdispatch's main queue as the main actor's executor (nothing of Baton's loop has run in
    /// this process), an untimed chain of a quarter of `N` main-actor tasks then a timed one of
    /// `N`; prints ns per task and exits.
    static func runChild(_ arguments: [String]) -> Never {
        let count = arguments.first.flatMap { Int($0) } ?? tasksPerBlock
        mainActorTaskChain(max(count / 4, 1)) {
            let start = ContinuousClock.now
            mainActorTaskChain(count) {
                say("\(nanosPerOp(ContinuousClock.now - start, count))")
                exit(0)
            }
        }
        dispatchMain()
    }
}
