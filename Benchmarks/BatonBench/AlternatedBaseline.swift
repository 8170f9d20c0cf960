import Foundation

/// The machinery of the rows whose baseline runs under `dispatchMain()` in a child process of
/// this bench, alternated block by block with the GLib loop's side, so that both sides meet the
/// same load (`MainActorHopBenchmarks`, `DispatchChainBenchmarks`, `TaskChainBenchmarks`).
enum AlternatedBaseline {
    /// Runs this bench as `BatonBench flag count`, the baseline's child for one block, and
    /// returns the `fields` numbers it prints; throws when it fails or prints anything else.
    static func childBlock(_ flag: String, count: Int, fields: Int) throws -> [Double] {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = [flag, "\(count)"]
        let output = Pipe()
        child.standardOutput = output
        try child.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        let numbers = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard child.terminationStatus == 0, numbers.count == fields else {
            throw BenchFailure("\(flag) exited \(child.terminationStatus) saying \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
        return numbers
    }

    /// `blocks` blocks of each side, alternating (the loop's first), after one untimed block of
    /// each; stops at the first baseline block that fails, keeping only whole pairs, and says why.
    @MainActor
    static func alternate<Loop, Baseline>(blocks: Int, loop: () -> Loop, baseline: () throws -> Baseline)
        -> (loop: [Loop], baseline: [Baseline], failure: String?) {
        var loops: [Loop] = [], baselines: [Baseline] = []
        _ = loop()
        do { _ = try baseline() } catch { return ([], [], "\(error)") }
        for _ in 0..<blocks {
            let side = loop()
            do { baselines.append(try baseline()) } catch { return (loops, baselines, "\(error)") }
            loops.append(side)
        }
        return (loops, baselines, nil)
    }

    /// The blocks' ratios of one side to the other: "min–max×, median m×", or "none".
    static func ratios(_ values: [Double], to baselines: [Double]) -> String {
        let ratios = zip(values, baselines).map { $0 / $1 }
        guard let low = ratios.min(), let high = ratios.max() else { return "none" }
        return String(format: "%.2f–%.2f×, median %.2f×", low, high, percentile(ratios, 50))
    }
}
