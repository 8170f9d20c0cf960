import Baton
import Foundation

/// The node's default host: the app it is embedded in. It offers
/// `Application.shared.advertisedUserActivity`, saves it for a peer's fetch, tells its
/// delegate when it was continued, hands it continuation streams, and keeps
/// `Application.shared.nearbyActivities` up to date; the node becomes the app's
/// `nearbySource` while it runs.
@MainActor
public final class ApplicationActivityProvider: ActivityProvider {
    public var advertisementDidChange: (@MainActor () -> Void)?
    private var observers: [NSObjectProtocol] = []
    private var generation: UInt64 = 0
    private weak var offered: UserActivity?
    /// The activities offered last, by generation (weak, at most `rememberedActivities`): a
    /// stream granted to one still reaches it after another became current.
    private var recent: [(generation: UInt64, activity: WeakActivity)] = []
    private static let rememberedActivities = 8

    /// A provider for `Application.shared`; the node it is given to makes it start observing.
    public init() {}

    /// The app's own (`Application.continuationHistory`): the originating side of each
    /// continuation of its activities is recorded there.
    public var continuationHistory: ContinuationHistory? { Application.shared.continuationHistory }

    public func advertisement() -> ProvidedActivity? {
        let app = Application.shared
        guard let activity = app.advertisedUserActivity, let manifest = app.manifest else { return nil }
        if activity !== offered {
            generation += 1
            offered = activity
            recent.append((generation, WeakActivity(activity)))
            if recent.count > Self.rememberedActivities { recent.removeFirst() }
        }
        return ProvidedActivity(generation: generation, activityType: activity.activityType, title: activity.title,
                                appID: manifest.appID, teamIdentifier: manifest.teamIdentifier, webpageURL: activity.webpageURL,
                                supportsContinuationStreams: activity.supportsContinuationStreams && activity.delegate != nil)
    }

    private func activity(_ provided: ProvidedActivity) -> UserActivity? {
        recent.last { $0.generation == provided.generation }?.activity.value
    }

    public func payload(of provided: ProvidedActivity) async throws(ProvidedActivityError) -> Data {
        guard let activity = activity(provided), activity.isValid else { throw .notCurrent }
        do {
            return try activity.payload()
        } catch let error as CocoaError where error.code == .userActivityHandoffUserInfoTooLarge {
            throw .tooLarge(error.localizedDescription)
        } catch {
            throw .failed("\(error)")
        }
    }

    public func continued(_ provided: ProvidedActivity) async {
        guard let activity = activity(provided) else { return }
        activity.delegate?.userActivityWasContinued(activity)
    }

    public func canOpenStreams(for provided: ProvidedActivity) -> Bool {
        guard let activity = activity(provided) else { return false }
        return activity.supportsContinuationStreams && activity.delegate != nil
    }

    public func acceptStreams(_ channel: any ContinuationStreamChannel, for provided: ProvidedActivity) {
        guard let activity = activity(provided), let delegate = activity.delegate else { return channel.close() }
        let (input, output) = UserActivity.streams(over: channel)
        delegate.userActivity(activity, didReceive: input, outputStream: output)
    }

    public func nearbyActivitiesDidChange(_ activities: [NearbyActivity]) {
        Application.shared.updateNearbyActivities(activities)
    }

    public func nodeDidStart(_ node: ContinuityNode) {
        Application.shared.nearbySource = node
        if Application.shared.associatedDomainVerifier == nil {
            Application.shared.associatedDomainVerifier = try? AssociatedDomains()
        }
        for name in [Application.currentUserActivityDidChangeNotification, UserActivity.didSaveNotification] {
            observers.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] _ in
                MainActor.assumeIsolated { self?.advertisementDidChange?() }
            })
        }
    }

    public func nodeDidStop(_ node: ContinuityNode) {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        observers = []
        if Application.shared.nearbySource === node { Application.shared.nearbySource = nil }
    }
}

/// A weak reference to an activity.
@MainActor
private final class WeakActivity {
    weak var value: UserActivity?
    init(_ value: UserActivity) { self.value = value }
}
