import Foundation

/// One figure beside its baseline from the same run.
struct Figure {
    let name: String
    let value: Double
    let baselineName: String
    let baseline: Double
    let unit: String
    let aim: String

    var ratio: Double { value / baseline }

    /// The columns `line()` pads the names to (`RelayRuns` reads the lines back).
    static let nameWidth = 46, baselineNameWidth = 34

    func line() -> String {
        let v = String(format: "%10.3f", value), b = String(format: "%10.3f", baseline)
        return "\(name.padding(toLength: Self.nameWidth, withPad: " ", startingAt: 0)) \(v) \(unit.padding(toLength: 6, withPad: " ", startingAt: 0))"
            + " | \(baselineName.padding(toLength: Self.baselineNameWidth, withPad: " ", startingAt: 0)) \(b) \(unit.padding(toLength: 6, withPad: " ", startingAt: 0))"
            + " | \(String(format: "%6.2f", ratio))×  \(aim)"
    }
}

/// Prints a line at once (the process may end with exit(0) from another thread).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

/// The median of `runs` measurements of `body`, each returning a figure.
func median(runs: Int = 5, _ body: () -> Double) -> Double {
    let values = (0..<runs).map { _ in body() }.sorted()
    return values[values.count / 2]
}

/// Nanoseconds per operation for `count` operations taking `duration`.
func nanosPerOp(_ duration: Duration, _ count: Int) -> Double {
    let (s, atto) = duration.components
    return (Double(s) * 1e9 + Double(atto) / 1e9) / Double(count)
}

/// CPU time (user + system) this process has used, in milliseconds.
func cpuMilliseconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func ms(_ t: timeval) -> Double { Double(t.tv_sec) * 1000 + Double(t.tv_usec) / 1000 }
    return ms(usage.ru_utime) + ms(usage.ru_stime)
}

/// How many times each thread of process `pid` has been scheduled in (the third field of
/// `/proc/PID/task/TID/schedstat`), by thread ID: each is a wake-up, a thread hop's cost.
func threadRuns(of pid: Int32) -> [String: Double] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    var runs: [String: Double] = [:]
    for task in tasks {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/schedstat", encoding: .utf8)) ?? ""
        let fields = text.split(separator: " ")
        let name = ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if fields.count >= 3, let count = Double(fields[2].trimmingCharacters(in: .whitespacesAndNewlines)) { runs[task + " " + name] = count }
    }
    return runs
}

/// Wake-ups of the threads of `pid` since `before` (from `threadRuns(of:)`), per operation of `count`.
func wakeups(of pid: Int32, since before: [String: Double], per count: Int) -> Double {
    let now = threadRuns(of: pid)
    if ProcessInfo.processInfo.environment["BATON_BENCH_THREADS"] != nil {
        var byName: [String: Double] = [:]
        for (key, value) in now { byName[String(key.split(separator: " ", maxSplits: 1).last ?? ""), default: 0] += (value - (before[key] ?? 0)) / Double(count) }
        say("  pid \(pid): " + byName.sorted { $0.value > $1.value }.map { "\($0.key) \(String(format: "%.1f", $0.value))" }.joined(separator: ", "))
    }
    return now.reduce(0) { $0 + $1.value - (before[$1.key] ?? 0) } / Double(count)
}

/// "(… wake-ups per warm continuation: process N, …)".
func wakeupNote(_ path: String, _ wakeups: [(String, Double)]) -> String {
    "(\(path) thread wake-ups per warm continuation: " + wakeups.map { "\($0.0) \(String(format: "%.1f", $0.1))" }.joined(separator: ", ")
        + ", in all \(String(format: "%.1f", wakeups.reduce(0) { $0 + $1.1 })))"
}
