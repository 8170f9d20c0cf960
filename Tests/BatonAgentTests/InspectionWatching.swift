import BatonAgent
import DeviceTestSupport
import Foundation

/// What `baton inspect --watch --json` (a running process) printed, read as the typed values
/// its JSON lines hold — `{"inspection": …}` first, then one `{"event": …}` a line
/// (`InspectionEvent`) — so tests match on values, never on how a line happens to be spelled.
extension RunningProcess {
    /// The picture the watch printed first, once printed; nil if the output ends or `timeout`
    /// passes first.
    func watchedInspection(timeout: TimeInterval = 30) -> AgentInspection? {
        guard let line = waitForLine(containing: "{\"inspection\":", timeout: timeout) else { return nil }
        return (try? InspectionJSON.decoder().decode([String: AgentInspection].self, from: Data(line.utf8)))?["inspection"]
    }

    /// The first event of the watch that `matches`, once printed; nil if the output ends or
    /// `timeout` passes first. Each event line is decoded in turn, as it comes.
    func waitForInspectionEvent(timeout: TimeInterval = 30, where matches: (InspectionEvent) -> Bool) -> InspectionEvent? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        var next = 1
        while let line = waitForLine(containing: "{\"event\":", occurrence: next, timeout: max(0, deadline.timeIntervalSinceNow)) {
            if let event = (try? InspectionJSON.decoder().decode([String: InspectionEvent].self, from: Data(line.utf8)))?["event"],
               matches(event) { return event }
            next += 1
        }
        return nil
    }

    /// The first step of a continuation the watch printed whose newest step `matches`, with
    /// the continuation as it is after it.
    func waitForContinuationStep(timeout: TimeInterval = 30,
                                 where matches: (ContinuationStep.Kind) -> Bool) -> ContinuationRecord? {
        waitForInspectionEvent(timeout: timeout) { event in
            event.continuation?.steps.last.map { matches($0.kind) } ?? false
        }?.continuation
    }
}
