import Foundation
import Logging

/// An activity current on another of the user's devices, as that device advertised it:
/// metadata only, never the payload: the payload is pulled from that device when the user
/// continues, and saved there first (docs/PROTOCOL.md). Apple's Handoff advertises the same
/// way (about-handoff, "Handoff Interactions").
public struct NearbyActivity: Sendable, Hashable, Codable {
    /// The advertising device's name, as the source of nearby activities shows it (the
    /// continuity layer takes it from the group's signed list, not from a certificate).
    public var device: String
    /// Increases each time that device's current activity changes; the payload fetched must
    /// be of this sequence.
    public var sequence: UInt64
    /// The activity's `activityType`: only an app that declares it continues the activity.
    public var activityType: String
    /// The activity's `title`, for showing the entry (as Apple's Dock and app switcher do).
    public var title: String?
    /// The originating app's id (`CFBundleIdentifier`).
    public var appID: String
    /// The originating app's team: only an app of the same team continues the activity.
    public var teamIdentifier: String
    /// The activity's web page, for continuing it in a browser where no app claims the type.
    public var webpageURL: URL?

    /// An entry as a source of nearby activities reports it; each argument is the property
    /// of the same name.
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
    /// Tells the originating device its activity was continued here. Returns once that device
    /// has acknowledged (its activity's delegate has been told `userActivityWasContinued(_:)`);
    /// throws if it could not be told. `Application` bounds the wait
    /// (`continuedAcknowledgementTimeout`).
    func confirmContinued(_ activity: NearbyActivity) async throws
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

    /// How long continuing a nearby activity waits for its device to acknowledge that it was
    /// continued (the `Continued` call's reply) before it finishes anyway; the missing
    /// acknowledgement is logged. 5 seconds by default.
    public static var continuedAcknowledgementTimeout: Duration = .seconds(5)

    /// Continues `activity` from another device through the continuation entry point: the
    /// payload is pulled from that device, and once the delegate has continued it, that
    /// device's activity delegate gets `userActivityWasContinued(_:)`.
    ///
    /// An activity no app here can continue (see `NearbyActivity.continuesInBrowser`) but
    /// with a `webpageURL` opens in the default web browser instead, and this app's delegate
    /// hears nothing of it (handoff-programming-guide, "Native App-to-Web Browser Handoff").
    /// If no browser opens, the delegate gets `didFailToContinue…` with
    /// `.userActivityHandoffFailed`.
    ///
    /// `completionHandler` runs once the continuation has finished: after the delegate heard
    /// how it ended (or the browser opened) and, if it was continued, after the originating
    /// device acknowledged — or `continuedAcknowledgementTimeout` passed. An app that quits
    /// once it has continued an activity quits from there, so the other device is always told.
    @discardableResult
    public func continueNearbyActivity(_ activity: NearbyActivity,
                                       timeout: Duration = Application.defaultContinuationTimeout,
                                       completionHandler: (@MainActor () -> Void)? = nil) -> NearbyContinuation {
        if activity.continuesInBrowser, let url = activity.webpageURL {
            do {
                try WebBrowser.open(url)
            } catch {
                continuationDelegate?.application(self, didFailToContinueUserActivityWithType: activity.activityType,
                                      error: Application.handoffError(.userActivityHandoffFailed, "\(error)", underlying: error))
                completionHandler?()
                return .inBrowser(url)
            }
            let source = nearbySource
            Task { @MainActor in
                if let source { await Application.confirmContinued(activity, through: source) }
                completionHandler?()
            }
            return .inBrowser(url)
        }
        return continueInApp(activity, timeout: timeout, completionHandler: completionHandler)
    }

    private func continueInApp(_ activity: NearbyActivity, timeout: Duration,
                               completionHandler: (@MainActor () -> Void)?) -> NearbyContinuation {
        guard let source = nearbySource else {
            continueUserActivity(ofType: activity.activityType, title: activity.title, timeout: timeout,
                                 completionHandler: completionHandler) {
                throw CocoaError(.userActivityConnectionUnavailable,
                                 userInfo: [NSLocalizedDescriptionKey: "no continuity node is running in this app"])
            }
            return .inApp
        }
        let origin = ContinuationOrigin(teamIdentifier: activity.teamIdentifier, appID: activity.appID, deviceName: activity.device)
        continueUserActivity(ofType: activity.activityType, title: activity.title, from: origin, timeout: timeout,
                             whenContinued: { [weak source] in
                                 if let source { await Application.confirmContinued(activity, through: source) }
                             },
                             openingStreams: { [weak source] in
                                 guard let source else { throw CocoaError(.userActivityConnectionUnavailable) }
                                 return try await source.openStreams(for: activity)
                             },
                             completionHandler: completionHandler,
                             fetchingPayload: { [source] in try await source.fetchPayload(of: activity) })
        return .inApp
    }

    /// Tells `activity`'s device it was continued here and waits for its acknowledgement, at
    /// most `continuedAcknowledgementTimeout`. A failure or a timeout is logged; either way
    /// this returns, and the call is cancelled after the timeout.
    static func confirmContinued(_ activity: NearbyActivity, through source: any NearbyActivitySource) async {
        let bound = continuedAcknowledgementTimeout
        let log = Logger(label: "baton")
        await withLoopContinuation { (resume: CheckedContinuation<Void, Never>) in
            let wait = AcknowledgementWait(resume)
            let call = Task { @MainActor in
                do {
                    try await source.confirmContinued(activity)
                } catch {
                    // The reason in words (a CocoaError's description), not the error's dump.
                    let reason = (error as NSError).userInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)"
                    if !wait.isFinished { log.notice("could not tell \(activity.device) its activity was continued: \(reason)") }
                }
                wait.finish()
            }
            wait.timer = MainLoop.after(bound) {
                log.notice("\(activity.device) did not acknowledge within \(bound) that its activity was continued; going on")
                wait.finish()
                call.cancel()
            }
        }
    }
}

/// The wait for one `Continued` acknowledgement: it ends once, by the reply or the timeout.
@MainActor
private final class AcknowledgementWait {
    private var resume: CheckedContinuation<Void, Never>?
    var timer: LoopSource?

    init(_ resume: CheckedContinuation<Void, Never>) { self.resume = resume }

    var isFinished: Bool { resume == nil }

    func finish() {
        guard let resume else { return }
        self.resume = nil
        timer?.cancel()
        timer = nil
        resume.resume()
    }
}
