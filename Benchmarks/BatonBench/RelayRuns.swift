import Foundation

/// `--relay-runs N`: `--relay` run N times, each in a process of its own (a fresh machine state
/// for each, as separate invocations get), and each figure summed up over the runs: the median
/// of its value, of its baseline and of its ratio, each with its range, and in how many runs the
/// ratio met the aim. The warm figures move a lot from run to run on a shared machine (the
/// embedded p99 alone by more than 2× between runs), so one run's ratio says little about an
/// aim; the median over runs, with its range, is the honest summary.
enum RelayRuns {
    /// One figure as a run printed it (`Figure.line()`).
    struct Reading {
        let name: String, baselineName: String, unit: String, aim: String
        let value: Double, baseline: Double
    }

    static func run(_ runs: Int) -> Never {
        var readings: [[Reading]] = []
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for index in 1...runs {
            let child = Process()
            let output = Pipe()
            child.executableURL = executable
            child.arguments = ["--relay"]
            child.standardOutput = output
            child.standardError = FileHandle.nullDevice
            do {
                try child.run()
            } catch {
                say("run \(index): could not start \(executable.path): \(error)")
                exit(1)
            }
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            child.waitUntilExit()
            let parsed = text.split(separator: "\n").compactMap { parse(String($0)) }
            guard child.terminationStatus == 0, !parsed.isEmpty else {
                say("run \(index) failed (status \(child.terminationStatus)):\n\(text)")
                exit(1)
            }
            say("run \(index) of \(runs): " + parsed.prefix(2).map { "\($0.name) \(String(format: "%.2f", $0.value / $0.baseline))×" }
                .joined(separator: ", "))
            readings.append(parsed)
        }
        say("")
        say("over \(runs) runs of --relay: median (range)")
        for (position, first) in readings[0].enumerated() {
            let same = readings.compactMap { run in run.count > position && run[position].name == first.name ? run[position] : nil }
            let ratios = same.map { $0.value / $0.baseline }
            var line = "\(first.name) \(summary(same.map(\.value))) \(first.unit) | \(first.baselineName) "
                + "\(summary(same.map(\.baseline))) \(first.unit) | \(summary(ratios))×"
            if let limit = aimLimit(first.aim) {
                line += "  \(first.aim): \(ratios.filter { $0 <= limit }.count) of \(ratios.count) runs within"
            }
            say(line)
        }
        exit(0)
    }

    /// "median (lowest–highest)".
    static func summary(_ values: [Double]) -> String {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return "-" }
        let format = sorted[sorted.count - 1] >= 100 ? "%.0f" : "%.2f"
        return String(format: format, sorted[sorted.count / 2]) + " (" + String(format: format, sorted[0]) + "–"
            + String(format: format, sorted[sorted.count - 1]) + ")"
    }

    /// The figure of a line `Figure.line()` printed, or nil for any other line.
    static func parse(_ line: String) -> Reading? {
        let parts = line.components(separatedBy: " | ")
        let (width, baseWidth) = (Figure.nameWidth, Figure.baselineNameWidth)
        guard parts.count == 3, parts[0].count > width, parts[1].count > baseWidth else { return nil }
        let own = parts[0].dropFirst(width).split(separator: " "), base = parts[1].dropFirst(baseWidth).split(separator: " ")
        guard own.count == 2, base.count == 2, let value = Double(own[0]), let baseline = Double(base[0]) else { return nil }
        let aim = parts[2].split(separator: "×", maxSplits: 1).dropFirst().first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        return Reading(name: parts[0].prefix(width).trimmingCharacters(in: .whitespaces),
                       baselineName: parts[1].prefix(baseWidth).trimmingCharacters(in: .whitespaces),
                       unit: String(own[1]), aim: aim, value: value, baseline: baseline)
    }

    /// X in an aim "aim ≤ X×".
    static func aimLimit(_ aim: String) -> Double? {
        guard let range = aim.range(of: "≤ ") else { return nil }
        return Double(aim[range.upperBound...].prefix { $0.isNumber || $0 == "." })
    }
}
