import Baton
import BatonContinuity
import Foundation

/// One thing that happened on the device, as `baton inspect --watch` shows it, and when: the
/// agent's own typed event (`DiagnosticEvent`: a link, an app joining or leaving, an activity
/// offered or withdrawn by a linked device, a continuation and how it ended, …), or a step of
/// a continuation the agent routes (`ContinuationRecord`, as it is after that step), or a
/// joined app's key window, first responder or current activity changed (`AppChange`).
/// Exactly one of `event`, `continuation` and `app` is set.
public struct InspectionEvent: Codable, Sendable, Equatable {
    /// When the agent saw it.
    public var time: Date
    /// What happened, when it is one of the device's events.
    public var event: DiagnosticEvent?
    /// The continuation after its newest step (the last of `steps`), when it is one.
    public var continuation: ContinuationRecord?
    /// A joined app's summary, when it changed.
    public var app: AppChange?
    /// How many events were left out just before this one, because the watching app had not
    /// taken what it was sent (`Agent.maximumUnreadWatch`).
    public var dropped: Int

    /// One of the device's events.
    public init(time: Date, event: DiagnosticEvent, dropped: Int = 0) {
        self.time = time
        self.event = event
        self.continuation = nil
        self.app = nil
        self.dropped = dropped
    }

    /// A step of a continuation: `continuation` as it is after it.
    public init(time: Date, continuation: ContinuationRecord, dropped: Int = 0) {
        self.time = time
        self.event = nil
        self.continuation = continuation
        self.app = nil
        self.dropped = dropped
    }

    /// A joined app's summary changed.
    public init(time: Date, app: AppChange, dropped: Int = 0) {
        self.time = time
        self.event = nil
        self.continuation = nil
        self.app = app
        self.dropped = dropped
    }

    /// A joined app's `InspectionSummary` after a change, as the app sent it.
    public struct AppChange: Codable, Sendable, Equatable {
        /// The app's id, as it joined.
        public var appID: String
        /// Its process id.
        public var processID: Int32
        /// Its summary now.
        public var summary: InspectionSummary

        /// A change with these facts.
        public init(appID: String, processID: Int32, summary: InspectionSummary) {
            self.appID = appID
            self.processID = processID
            self.summary = summary
        }
    }
}
