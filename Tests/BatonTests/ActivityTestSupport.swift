@testable import Baton
import BatonTestSupport
import XCTest

/// A view controller that shares an activity and records its saves.
final class ActivityController: ViewController {
    var updates = 0
    var userInfoAtUpdate: [AnyHashable: Any]?
    var restored: [UserActivity] = []
    var state: [AnyHashable: Any] = [:]
    override func loadView() { view = FocusView(identifier: title) }
    override func updateUserActivityState(_ activity: UserActivity) {
        updates += 1
        userInfoAtUpdate = activity.userInfo
        activity.addUserInfoEntries(from: state)
    }
    override func restoreUserActivityState(_ activity: UserActivity) { restored.append(activity) }
}

final class FocusView: View {
    override var acceptsFirstResponder: Bool { true }
}

final class RecordingActivityDelegate: UserActivityDelegate {
    var willSave = 0
    var continued = 0
    func userActivityWillSave(_ userActivity: UserActivity) {
        willSave += 1
        userActivity.addUserInfoEntries(from: ["saved": willSave])
    }
    func userActivityWasContinued(_ userActivity: UserActivity) { continued += 1 }
}

/// Records the Handoff messages the app delegate receives.
final class HandoffDelegate: ApplicationDelegate {
    var events: [String] = []
    var continued: UserActivity?
    var failure: CocoaError?
    var refuseLaunch = false
    var refuseDidFinishLaunching = false
    var handles = true
    var restorers: [any UserActivityRestoring] = []
    var deferRestoration = false
    var pendingRestoration: (@MainActor ([any UserActivityRestoring]) -> Void)?
    var updated: [UserActivity] = []

    func application(_ application: Application, willFinishLaunchingWithOptions options: [Application.LaunchOptionsKey: Any]?) -> Bool {
        !refuseLaunch
    }
    func application(_ application: Application, didFinishLaunchingWithOptions options: [Application.LaunchOptionsKey: Any]?) -> Bool {
        !refuseDidFinishLaunching
    }
    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        events.append("will \(userActivityType)")
        return true
    }
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
        events.append("continue \(userActivity.activityType)")
        continued = userActivity
        if deferRestoration { pendingRestoration = restorationHandler } else { restorationHandler(restorers) }
        return handles
    }
    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
        events.append("fail \(userActivityType)")
        failure = error as? CocoaError
    }
    func application(_ application: Application, didUpdate userActivity: UserActivity) { updated.append(userActivity) }

    var finished: Bool { events.contains { $0.hasPrefix("continue") || $0.hasPrefix("fail") } }
}

/// A window showing a controller whose activity is `activity`, made key and main.
@MainActor
func showActivityWindow(_ title: String, activity: UserActivity?) -> (Window, ActivityController) {
    let controller = ActivityController(title: title)
    controller.userActivity = activity
    let window = Window(title: title, contentViewController: controller)
    window.makeKeyAndOrderFront(nil)
    window.makeFirstResponder(controller.view)
    return (window, controller)
}
