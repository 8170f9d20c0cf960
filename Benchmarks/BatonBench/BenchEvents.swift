import BatonContinuity
import BatonLoop
import Foundation

/// A child's typed events (`DiagnosticEvent`s as JSON lines on its standard output: the child
/// runs with `BATON_DIAGNOSTICS_FD` naming its output), read from the first on.
@MainActor
final class BenchEvents {
    let child: BenchChild
    /// Lines of `child` already looked at.
    private var next = 0
    init(_ child: BenchChild) { self.child = child }

    /// Passes over every line the child has printed so far: the next `wait` looks only at
    /// events published after this.
    func skipSeen() { next = child.lines.count }

    /// Runs the loop until the child publishes an event that `matches` (after those
    /// already taken); returns it and when it was seen. Throws past `timeout` or if the child ends.
    func wait(timeout: Duration = .seconds(30), _ matches: (DiagnosticEvent) -> Bool) throws
        -> (DiagnosticEvent, ContinuousClock.Instant) {
        let decoder = JSONDecoder()
        var found: DiagnosticEvent?
        var seenAt = ContinuousClock.now
        func scan() -> Bool {
            while found == nil, next < child.lines.count {
                defer { next += 1 }
                if let event = try? decoder.decode(DiagnosticEvent.self, from: Data(child.lines[next].utf8)), matches(event) {
                    found = event
                    seenAt = .now
                }
            }
            return found != nil || !child.process.isRunning
        }
        if !scan() { MainLoop.run(until: scan, timeout: timeout) }
        guard let found else {
            throw BenchFailure("\(child.name) published no such event within \(timeout)\(child.process.isRunning ? "" : " (it ended)")\(child.logTail())")
        }
        return (found, seenAt)
    }
}
