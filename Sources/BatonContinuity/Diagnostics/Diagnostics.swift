import BatonLoop
import Foundation

/// Where a node's `DiagnosticEvent`s go: to each observer on the loop, and — when the process
/// was started with `BATON_DIAGNOSTICS_FD` naming an open descriptor — as JSON lines to that
/// descriptor (`DiagnosticsPipe`), so another process (a supervisor, a test) sees them as typed
/// values instead of reading the log.
///
/// Publishing never waits: observers run synchronously on the loop, and the pipe drops lines a
/// reader does not take (counted, see `DiagnosticsPipe.dropped`).
@MainActor
public final class Diagnostics {
    private var observers: [UInt64: @MainActor (DiagnosticEvent) -> Void] = [:]
    private var nextObserver: UInt64 = 0
    private let pipe: DiagnosticsPipe?

    /// Diagnostics that also go to the process's `BATON_DIAGNOSTICS_FD`, if it has one.
    public init() { pipe = DiagnosticsPipe.process }

    /// Calls `body` with each event published from now on, until the returned observation is
    /// cancelled or released.
    public func observe(_ body: @escaping @MainActor (DiagnosticEvent) -> Void) -> DiagnosticsObservation {
        nextObserver += 1
        let id = nextObserver
        observers[id] = body
        return DiagnosticsObservation { [weak self] in self?.observers[id] = nil }
    }

    /// Hands `event` to every observer and to the process's diagnostics pipe.
    public func publish(_ event: DiagnosticEvent) {
        pipe?.write(event)
        for observer in observers.values { observer(event) }
    }
}

/// An observer of `Diagnostics`, ended by `cancel()` or when released.
@MainActor
public final class DiagnosticsObservation {
    private var end: (@MainActor () -> Void)?
    init(end: @escaping @MainActor () -> Void) { self.end = end }
    /// Stops the observer.
    public func cancel() { end?(); end = nil }
    isolated deinit { end?() }
}
