import Baton
import Foundation

/// What this device offers its peers, and where their activities go: the host of a
/// `ContinuityNode`.
///
/// One node code path, two hosts: the app the node is embedded in
/// (`ApplicationActivityProvider`, the default), or the per-user agent, which offers the
/// activity of the joined app that became active most recently and hands the peers'
/// activities to every joined app.
@MainActor
public protocol ActivityProvider: AnyObject {
    /// The activity this device offers now (metadata only), or nil.
    func advertisement() -> ProvidedActivity?
    /// Set by the node when it starts (nil when it stops); the provider calls it whenever
    /// `advertisement()` may have changed. The node asks again and tells its peers if it did.
    var advertisementDidChange: (@MainActor () -> Void)? { get set }
    /// The payload of `activity`, saved first, for a peer that asked for it. It may take a
    /// while (the agent asks the app); the provider bounds the wait.
    func payload(of activity: ProvidedActivity) async throws(ProvidedActivityError) -> Data
    /// A peer that fetched `activity` continued it: its delegate is told
    /// (`userActivityWasContinued(_:)`). Returns once it has been told (or could not be).
    func continued(_ activity: ProvidedActivity) async
    /// Whether a continuation stream connection can be handed to `activity` now.
    func canOpenStreams(for activity: ProvidedActivity) -> Bool
    /// An accepted continuation stream connection from a peer, for `activity`.
    func acceptStreams(_ channel: any ContinuationStreamChannel, for activity: ProvidedActivity)
    /// The peers' activities, each with its device's name, sorted by device.
    func nearbyActivitiesDidChange(_ activities: [NearbyActivity])
    /// The node started (before it dials).
    func nodeDidStart(_ node: ContinuityNode)
    /// The node stopped: its links are closed and it will not call the provider again until it
    /// starts anew.
    func nodeDidStop(_ node: ContinuityNode)
    /// Where the node records the originating side of each continuation of this device's
    /// activity (the payload served, `Continued` heard): the app's
    /// `Application.continuationHistory`, the agent's own; nil (the default) records nothing.
    var continuationHistory: ContinuationHistory? { get }
}

extension ActivityProvider {
    /// No history: the originating side of continuations is not recorded.
    public var continuationHistory: ContinuationHistory? { nil }
}

/// An activity a provider offers: metadata, and a `generation` that changes whenever the
/// activity object behind it changes (the node then gives it a new sequence number; a save
/// that only changes its title keeps it).
public struct ProvidedActivity: Sendable, Equatable {
    /// Changes whenever the activity object behind the advertisement changes.
    public var generation: UInt64
    /// The activity's `activityType`.
    public var activityType: String
    /// The activity's `title`.
    public var title: String?
    /// The offering app's id (`CFBundleIdentifier`).
    public var appID: String
    /// The offering app's team.
    public var teamIdentifier: String
    /// The activity's `webpageURL`, so a device with no app for it can open the page.
    public var webpageURL: URL?
    /// The activity sets `supportsContinuationStreams` (and has a delegate to hand them to).
    public var supportsContinuationStreams: Bool

    /// An advertisement; each argument is the property of the same name.
    public init(generation: UInt64, activityType: String, title: String?, appID: String, teamIdentifier: String,
                webpageURL: URL?, supportsContinuationStreams: Bool) {
        self.generation = generation
        self.activityType = activityType
        self.title = title
        self.appID = appID
        self.teamIdentifier = teamIdentifier
        self.webpageURL = webpageURL
        self.supportsContinuationStreams = supportsContinuationStreams
    }
}

/// Why a provider cannot give a peer what it asked for (the peer sees the matching
/// `org.baton.Device1` error).
public enum ProvidedActivityError: Error, Sendable, Equatable {
    /// The activity is no longer the one offered.
    case notCurrent
    /// Its payload is over the Handoff limit.
    case tooLarge(String)
    /// Anything else that kept the provider from giving the payload (the agent could not reach
    /// the app, the save failed), in words.
    case failed(String)
}
