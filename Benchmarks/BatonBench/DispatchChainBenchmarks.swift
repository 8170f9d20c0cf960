import Baton
import CGLib
import Foundation

/// The `DispatchQueue.main.async` chain rows: blocks each queuing the next, run by the GLib
/// loop, beside the same chain under `dispatchMain()` and beside its floor.
///
/// The floor is the same block under `dispatchMain()` plus the two writes to libdispatch's
/// main-queue eventfd that libdispatch makes for each block a run loop drains (one when the
/// block is queued onto the queue the drain emptied, one at the end of the drain that leaves it
/// queued): the GLib loop cannot avoid them, and `dispatchMain()` never makes them.
///
/// Measured the way the `MainActor.run` row is: `blocks` blocks of `chainPerBlock` blocks on
/// the GLib loop, each followed by the same chain under `dispatchMain()` in a child process of
/// this bench (`--dispatch-main-chain`), so that both sides meet the same load. The writes,
/// most of the floor, are timed in this process in slices between slices of the loop's chain,
/// so that they meet the very load the chain meets. Measured once each at different moments of
/// a run, the ratio to the floor moved from 1.09× to 1.46× between runs.
@MainActor
enum DispatchChainBenchmarks {
    /// Blocks of each side, alternating.
    static let blocks = 9
    /// Slices of the loop's chain in a block, each followed by as many eventfd writes.
    static let slices = 10
    /// Main-queue blocks in a chain (about 50–150 ms on the GLib loop on this machine).
    nonisolated static let chainPerBlock = 100_000

    /// Each side's ns per main-queue block, block by block.
    struct Result {
        var loop: [Double] = []
        var baseline: [Double] = []
        var eventfdWrite: [Double] = []
        /// Why the baseline's blocks were not all measured, if they were not.
        var failure: String?

        /// Each block's floor: the baseline's block plus two eventfd writes, timed beside the
        /// loop's chain.
        var floor: [Double] { zip(baseline, eventfdWrite).map { $0 + 2 * $1 } }

        /// The rows, each side its median block: beside `dispatchMain()`, the two writes, and
        /// beside the floor (the row with the aim).
        var figures: [Figure] {
            let loopMedian = percentile(loop, 50), baselineMedian = percentile(baseline, 50)
            let floorMedian = percentile(floor, 50), writes = 2 * percentile(eventfdWrite, 50)
            return [
                Figure(name: "DispatchQueue.main.async, GLib loop", value: loopMedian, baselineName: "same under dispatchMain()",
                       baseline: baselineMedian, unit: "ns/op",
                       aim: "≤ 2× unreachable: the floor is " + String(format: "%.2f×", floorMedian / baselineMedian) + " (rows below)"),
                Figure(name: "  libdispatch's two eventfd writes per block", value: writes,
                       baselineName: "same under dispatchMain()", baseline: baselineMedian, unit: "ns/op",
                       aim: "what the GLib loop cannot avoid"),
                Figure(name: "DispatchQueue.main.async, GLib loop", value: loopMedian,
                       baselineName: "floor: dispatchMain() + 2 writes", baseline: floorMedian, unit: "ns/op",
                       aim: "aim ≤ 1.3× of the floor"),
            ]
        }

        /// The blocks' ratios to their floors, in one line.
        var note: String {
            "(DispatchQueue.main.async chain: \(loop.count) alternated blocks of \(chainPerBlock), ratios to the floor "
                + AlternatedBaseline.ratios(loop, to: floor) + (failure.map { "; baseline failed: \($0)" } ?? "") + ")"
        }
    }

    /// Measures both sides, alternating, after one untimed block of each.
    static func measure() -> Result {
        let (loop, baseline, failure) = AlternatedBaseline.alternate(blocks: blocks, loop: loopBlock) {
            try AlternatedBaseline.childBlock("--dispatch-main-chain", count: chainPerBlock, fields: 1)[0]
        }
        return Result(loop: loop.map(\.0), baseline: baseline, eventfdWrite: loop.map(\.1), failure: failure)
    }

    /// One block of the loop's side: `slices` slices of the chain, each followed by as many
    /// writes to libdispatch's main-queue eventfd; ns per main-queue block, and ns per write.
    private static func loopBlock() -> (Double, Double) {
        let perSlice = chainPerBlock / slices
        var chain = 0.0, write = 0.0
        for _ in 0..<slices {
            chain += LoopBenchmarks.dispatchChain(count: perSlice)
            write += DispatchMainBaselines.eventfdWrite(writes: perSlice)
        }
        return (chain / Double(slices), write / Double(slices))
    }

    /// `BatonBench --dispatch-main-chain N`: the baseline's child. Runs `dispatchMain()`
    /// (nothing of Baton's loop has run in this process) with an untimed chain of a quarter of
    /// `N` blocks and a timed one of `N`; prints ns per block and exits.
    static func runChild(_ arguments: [String]) -> Never {
        let count = arguments.first.flatMap { Int($0) } ?? chainPerBlock
        dispatchChainStep(count / 4) {
            let start = ContinuousClock.now
            dispatchChainStep(count) {
                say("\(nanosPerOp(ContinuousClock.now - start, count))")
                exit(0)
            }
        }
        dispatchMain()
    }
}
