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

    func line() -> String {
        let v = String(format: "%10.3f", value), b = String(format: "%10.3f", baseline)
        return "\(name.padding(toLength: 46, withPad: " ", startingAt: 0)) \(v) \(unit.padding(toLength: 6, withPad: " ", startingAt: 0))"
            + " | \(baselineName.padding(toLength: 34, withPad: " ", startingAt: 0)) \(b) \(unit.padding(toLength: 6, withPad: " ", startingAt: 0))"
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
