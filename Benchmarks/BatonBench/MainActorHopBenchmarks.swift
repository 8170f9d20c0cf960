import Baton
import Foundation

/// The cross-thread `MainActor.run` row: a task off the main actor hopping onto it and back,
/// with the GLib loop running the main actor, beside the same under `dispatchMain()`.
///
/// Why it varied: a round trip's cost is almost all thread wake-ups (the main thread's poll,
/// then a pool thread's futex), and what a wake-up costs on a shared 2-core machine depends on
/// what else runs at that moment. The baseline used to be measured once, at the very end of the
/// run (`dispatchMain()` never returns), minutes after the GLib loop's figure, so the two met
/// different loads and their ratio moved from run to run. Now they alternate in `blocks`
/// blocks of `hopsPerBlock` round trips, the baseline's in a child process of this bench
/// (`--dispatch-main-hops`, which restores libdispatch's main queue as the main actor's
/// executor and runs `dispatchMain()`), so that both meet the same load; the row gives each
/// side's median over its blocks, and the note the range of the blocks' ratios.
@MainActor
enum MainActorHopBenchmarks {
    /// Blocks of each side, alternating.
    static let blocks = 7
    /// Round trips in a block (about 20–50 ms of either side on this machine).
    nonisolated static let hopsPerBlock = 40_000

    /// Each side's ns per round trip, block by block, and its thread wake-ups per round trip
    /// (the median block's).
    struct Result {
        var loop: [Double] = []
        var baseline: [Double] = []
        var loopWakeups: [Double] = []
        var baselineWakeups: [Double] = []
        /// Why the baseline's blocks were not all measured, if they were not.
        var failure: String?

        /// The row, each side its median block.
        var figure: Figure {
            Figure(name: "MainActor.run round trip, GLib loop", value: percentile(loop, 50), baselineName: "same under dispatchMain(), alternated",
                   baseline: percentile(baseline, 50), unit: "ns/op", aim: "")
        }

        /// The blocks' ratios and the wake-ups, in one line.
        var note: String {
            "(MainActor.run round trip: \(loop.count) alternated blocks of \(hopsPerBlock), ratios "
                + AlternatedBaseline.ratios(loop, to: baseline) + ";"
                + " thread wake-ups per round trip: GLib loop \(String(format: "%.2f", percentile(loopWakeups, 50))),"
                + " dispatchMain() \(String(format: "%.2f", percentile(baselineWakeups, 50)))"
                + (failure.map { "; baseline failed: \($0)" } ?? "") + ")"
        }
    }

    /// Measures both sides, alternating, after one untimed block of each (the pool's threads
    /// and the child's start-up are not what is measured).
    static func measure() -> Result {
        var result = Result()
        _ = LoopBenchmarks.mainActorHops(count: hopsPerBlock)
        for _ in 0..<blocks {
            result.loop.append(LoopBenchmarks.mainActorHops(count: hopsPerBlock))
            result.loopWakeups.append(LoopBenchmarks.hopWakeups)
            do {
                let block = try AlternatedBaseline.childBlock("--dispatch-main-hops", count: hopsPerBlock, fields: 2)
                result.baseline.append(block[0])
                result.baselineWakeups.append(block[1])
            } catch {
                result.failure = "\(error)"
                break
            }
        }
        return result
    }

    /// `BatonBench --dispatch-main-hops N`: the baseline's child. Runs `dispatchMain()` with
    /// libdispatch's main queue as the main actor's executor (nothing of Baton's loop has run
    /// in it), makes a quarter of `N` untimed round trips then `N` timed ones from a detached
    /// task, prints "ns-per-round-trip wake-ups-per-round-trip" and exits.
    static func runChild(_ arguments: [String]) -> Never {
        let count = arguments.first.flatMap { Int($0) } ?? hopsPerBlock
        Task.detached {
            for _ in 0..<(count / 4) { await MainActor.run {} }
            let before = threadRuns(of: getpid())
            let start = ContinuousClock.now
            for _ in 0..<count { await MainActor.run {} }
            let time = nanosPerOp(ContinuousClock.now - start, count)
            let wakeups = wakeups(of: getpid(), since: before, per: count)
            say("\(time) \(wakeups)")
            exit(0)
        }
        dispatchMain()
    }
}
