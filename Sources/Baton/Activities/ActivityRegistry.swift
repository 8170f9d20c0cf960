import Foundation

/// What makes an activity current, when activities are saved, and when they end: the one
/// place these rules live.
///
/// - One activity is current at a time. `becomeCurrent()` replaces the previous one;
///   `resignCurrent()` can be undone; an invalid activity never becomes current.
/// - Runtime-managed activities (held by a responder's or document's `userActivity`) become
///   current from the main window: the first activity found from the main window's first
///   responder up its chain (to the window controller) is made current whenever the main
///   window, a first responder, an activity or activation changes (about-handoff, "Managing a
///   User Activity with Responders"). If that chain has none, a managed current activity
///   resigns.
/// - `needsSave` queues the activity; one GLib idle source saves everything queued in that
///   loop turn. A save of a managed activity clears `userInfo` and sends
///   `updateUserActivityState(_:)` to every responder and document sharing it, then tells the
///   app delegate (`application(_:didUpdate:)`); an unmanaged activity's delegate gets
///   `userActivityWillSave(_:)`. Then `needsSave` is false.
/// - A managed activity that no responder or document holds any more is invalidated.
/// - While the app is inactive nothing is advertised (`advertisedActivity` is nil).
@MainActor
final class ActivityRegistry {
    static let shared = ActivityRegistry()

    /// The current activity: the one source of truth for `isCurrent`.
    private(set) var current: UserActivity?
    private var pendingSaves: [UserActivity] = []
    private var saveSource: LoopSource?
    /// Idle sources created for saves, for tests and the benchmark to count.
    private(set) var savesScheduled = 0

    func makeCurrent(_ activity: UserActivity) {
        guard activity.isValid, current !== activity else { return }
        current = activity
        announce()
    }

    func resignCurrent(_ activity: UserActivity) {
        guard current === activity else { return }
        current = nil
        announce()
    }

    func invalidate(_ activity: UserActivity) {
        guard activity.isValid else { return }
        activity.isValid = false
        pendingSaves.removeAll { $0 === activity }
        if current === activity {
            current = nil
            announce()
        }
    }

    /// The current activity if it may be offered to other devices now: the app is active,
    /// the activity is eligible for handoff and not expired (`advertising(of:)` decides).
    var advertisedActivity: UserActivity? {
        guard let current, advertising(of: current) == .advertised else { return nil }
        return current
    }

    /// Whether `activity` is offered to other devices now, or the first reason it is not: the
    /// one rule `advertisedActivity` and inspection both use. Apple: only the current
    /// activity of the active app is advertised, not once `expirationDate` has passed nor
    /// while `isEligibleForHandoff` is false; an invalidated activity never comes back.
    func advertising(of activity: UserActivity, at now: Date = Date()) -> ActivityAdvertising {
        guard activity.isValid else { return .invalidated }
        guard current === activity else { return .notCurrent }
        guard Application.shared.isActive else { return .appInactive }
        guard activity.isEligibleForHandoff else { return .notEligibleForHandoff }
        if let expiry = activity.expirationDate, expiry <= now { return .expired }
        return .advertised
    }

    // MARK: Managed activities

    /// A responder's or document's `userActivity` changed from `old` to `new`.
    func owner(_ owner: any UserActivityOwner, changedActivityFrom old: UserActivity?, to new: UserActivity?) {
        guard old !== new else { return }
        new?.addOwner(owner)
        old?.removeOwner(owner)
        refreshFromMainWindow()
    }

    /// Makes the main window's activity current (see the type's rules).
    func refreshFromMainWindow() {
        let app = Application.shared
        guard app.isActive else { return announce() }
        let found = app.mainWindow.flatMap(activityInChain(of:))
        if let found {
            makeCurrent(found)
        } else if let current, current.isManaged {
            resignCurrent(current)
        }
    }

    private func activityInChain(of window: Window) -> UserActivity? {
        for responder in ResponderChain.from(window.firstResponder ?? window) {
            if responder === Application.shared { break }
            if let activity = responder.userActivity, activity.isValid { return activity }
        }
        return nil
    }

    // MARK: Saves

    func scheduleSave(of activity: UserActivity) {
        guard activity.isValid else { return }
        if !pendingSaves.contains(where: { $0 === activity }) { pendingSaves.append(activity) }
        guard saveSource == nil else { return }
        savesScheduled += 1
        saveSource = MainLoop.idle { [unowned self] in
            saveSource = nil
            let due = pendingSaves
            pendingSaves = []
            for activity in due where activity.needsSave { save(activity) }
        }
    }

    /// Saves `activity` now (before it leaves the app, or from the idle source).
    func save(_ activity: UserActivity) {
        guard activity.isValid else { return }
        pendingSaves.removeAll { $0 === activity }
        if activity.isManaged {
            let owners = activity.liveOwners()
            guard !owners.isEmpty else { return activity.invalidate() }
            activity.userInfo = [:]
            for owner in owners { owner.updateUserActivityState(activity) }
            activity.markSaved()
            let app = Application.shared
            app.delegate?.application(app, didUpdate: activity)
        } else {
            activity.delegate?.userActivityWillSave(activity)
            activity.markSaved()
        }
        NotificationCenter.default.post(name: UserActivity.didSaveNotification, object: activity)
    }

    private var lastAnnounced: (current: ObjectIdentifier?, advertised: ObjectIdentifier?) = (nil, nil)

    /// Posts `Application.currentUserActivityDidChangeNotification` when the current or the
    /// advertised activity changed.
    private func announce() {
        let now = (current.map(ObjectIdentifier.init), advertisedActivity.map(ObjectIdentifier.init))
        guard now != lastAnnounced else { return }
        lastAnnounced = now
        NotificationCenter.default.post(name: Application.currentUserActivityDidChangeNotification, object: Application.shared)
    }

    /// Back to a fresh state, for tests.
    func reset() {
        current = nil
        pendingSaves = []
        saveSource?.cancel()
        saveSource = nil
        lastAnnounced = (nil, nil)
    }
}

extension UserActivity {
    /// Posted after each save of an activity (its title or other metadata may have changed);
    /// the object is the activity.
    nonisolated public static let didSaveNotification = Notification.Name("BatonUserActivityDidSave")
}

extension Application {
    /// The app's current user activity, whether or not it is advertised now.
    public var currentUserActivity: UserActivity? { ActivityRegistry.shared.current }

    /// The activity other devices may be offered now: the current one, if the app is active
    /// and the activity is valid, eligible for handoff and not expired; otherwise nil.
    public var advertisedUserActivity: UserActivity? { ActivityRegistry.shared.advertisedActivity }

    /// Posted when `currentUserActivity` or `advertisedUserActivity` changes.
    nonisolated public static let currentUserActivityDidChangeNotification =
        Notification.Name("BatonApplicationCurrentUserActivityDidChange")
}
