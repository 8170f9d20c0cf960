import Foundation

/// An activity current on another of the user's devices, as that device advertised it:
/// metadata only, never the payload (DESIGN.md section 5, "Pull, not push").
public struct NearbyActivity: Sendable, Hashable {
    /// The advertising device's name, from its verified certificate.
    public var device: String
    /// Increases each time that device's current activity changes; the payload fetched must
    /// be of this sequence.
    public var sequence: UInt64
    public var activityType: String
    public var title: String?
    public var appID: String
    public var teamIdentifier: String
    /// The activity's web page, for continuing it in a browser where no app claims the type.
    public var webpageURL: URL?

    public init(device: String, sequence: UInt64, activityType: String, title: String?, appID: String,
                teamIdentifier: String, webpageURL: URL? = nil) {
        self.device = device
        self.sequence = sequence
        self.activityType = activityType
        self.title = title
        self.appID = appID
        self.teamIdentifier = teamIdentifier
        self.webpageURL = webpageURL
    }
}

/// Where nearby activities come from and how their payloads are fetched: the continuity layer
/// (or a test) provides one, so layers 1–3 know nothing about the network.
@MainActor
public protocol NearbyActivitySource: AnyObject {
    /// Fetches the payload of `activity` from its device (which saves it first).
    func fetchPayload(of activity: NearbyActivity) async throws -> Data
    /// Tells the originating device its activity was continued here.
    func confirmContinued(_ activity: NearbyActivity)
    /// Opens a continuation stream channel to the originating activity on its device.
    func openStreams(for activity: NearbyActivity) async throws -> any ContinuationStreamChannel
}

extension NearbyActivitySource {
    public func openStreams(for activity: NearbyActivity) async throws -> any ContinuationStreamChannel {
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "this source has no continuation streams"])
    }
}

extension Application {
    /// Posted when `nearbyActivities` changes.
    nonisolated public static let nearbyActivitiesDidChangeNotification =
        Notification.Name("BatonApplicationNearbyActivitiesDidChange")

    /// Where a nearby activity was continued.
    public enum NearbyContinuation: Sendable, Equatable {
        /// In this app, through the continuation entry point (its delegate hears how it ends).
        case inApp
        /// In the web browser, at this URL (app-to-web handoff).
        case inBrowser(URL)
    }

    /// Continues `activity` from another device through the continuation entry point: the
    /// payload is pulled from that device, and once the delegate has continued it, that
    /// device's activity delegate gets `userActivityWasContinued(_:)`.
    ///
    /// An activity no app here can continue (see `NearbyActivity.continuesInBrowser`) but
    /// with a `webpageURL` opens in the default web browser instead, and this app's delegate
    /// hears nothing of it (handoff-programming-guide, "Native App-to-Web Browser Handoff").
    /// If no browser opens, the delegate gets `didFailToContinue…` with
    /// `.userActivityHandoffFailed`.
    @discardableResult
    public func continueNearbyActivity(_ activity: NearbyActivity,
                                       timeout: Duration = Application.defaultContinuationTimeout) -> NearbyContinuation {
        if activity.continuesInBrowser, let url = activity.webpageURL {
            do {
                try WebBrowser.open(url)
                nearbySource?.confirmContinued(activity)
            } catch {
                delegate?.application(self, didFailToContinueUserActivityWithType: activity.activityType,
                                      error: Application.handoffError(.userActivityHandoffFailed, "\(error)", underlying: error))
            }
            return .inBrowser(url)
        }
        return continueInApp(activity, timeout: timeout)
    }

    private func continueInApp(_ activity: NearbyActivity, timeout: Duration) -> NearbyContinuation {
        guard let source = nearbySource else {
            continueUserActivity(ofType: activity.activityType, title: activity.title, timeout: timeout) {
                throw CocoaError(.userActivityConnectionUnavailable,
                                 userInfo: [NSLocalizedDescriptionKey: "no continuity node is running in this app"])
            }
            return .inApp
        }
        let origin = ContinuationOrigin(teamIdentifier: activity.teamIdentifier, appID: activity.appID, deviceName: activity.device)
        let fetch = SendableFetch(source: source, activity: activity)
        continueUserActivity(ofType: activity.activityType, title: activity.title, from: origin, timeout: timeout,
                             whenContinued: { [weak source] in source?.confirmContinued(activity) },
                             openingStreams: { [weak source] in
                                 guard let source else { throw CocoaError(.userActivityConnectionUnavailable) }
                                 return try await source.openStreams(for: activity)
                             },
                             fetchingPayload: { try await fetch.run() })
        return .inApp
    }
}

/// The fetch of one nearby activity's payload, runnable from the continuation's task.
private struct SendableFetch: @unchecked Sendable {
    let source: any NearbyActivitySource
    let activity: NearbyActivity
    func run() async throws -> Data { try await source.fetchPayload(of: activity) }
}
