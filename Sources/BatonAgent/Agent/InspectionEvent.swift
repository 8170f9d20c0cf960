import BatonContinuity
import Foundation

/// One thing that happened on the device, as `baton inspect --watch` shows it: the agent's own
/// typed event (`DiagnosticEvent`: a link, an app joining or leaving, an activity offered or
/// withdrawn by a linked device, a continuation and how it ended, …) and when it happened.
public struct InspectionEvent: Codable, Sendable, Equatable {
    /// When the agent saw it.
    public var time: Date
    /// What happened.
    public var event: DiagnosticEvent
    /// How many events were left out just before this one, because the watching app had not
    /// taken what it was sent (`Agent.maximumUnreadWatch`).
    public var dropped: Int

    /// An event with these facts.
    public init(time: Date, event: DiagnosticEvent, dropped: Int = 0) {
        self.time = time
        self.event = event
        self.dropped = dropped
    }
}
