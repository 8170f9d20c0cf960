import Baton
import BatonTestSupport
import XCTest

// Each accepted form of the delegate methods whose AppKit and UIKit spellings differ, written
// as Apple declares it (types renamed), proven to be the one Baton calls: AppKit's
// `NSApplicationDelegate.application(_:continue:restorationHandler:)`, UIKit's
// `UIApplicationDelegate.application(_:continue:restorationHandler:)` (each with and without
// `any`), Baton's `@MainActor` form, UIKit's optional launch options, and UIKit's
// application-taking life-cycle methods.

private let manifest = AppManifest(appID: "com.example.forms", teamIdentifier: "TEAM1",
                                   activityTypes: ["com.example.forms.view"])

/// A responder that records the activities it restores.
final class RestoringController: ViewController {
    var restored: [String] = []
    override func restoreUserActivityState(_ userActivity: UserActivity) {
        restored.append(userActivity.userInfo?["page"] as? String ?? "?")
    }
}

/// AppKit's form, with `any`, exactly as `NSApplicationDelegate` declares it.
final class AppKitFormDelegate: ApplicationDelegate {
    let controller = RestoringController()
    var calls = 0
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        calls += 1
        restorationHandler([controller])
        return true
    }
}

/// AppKit's form without `any`, as the seed's MapViewer listing writes it.
final class AppKitFormWithoutAnyDelegate: ApplicationDelegate {
    let controller = RestoringController()
    var calls = 0
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([UserActivityRestoring]) -> Void) -> Bool {
        calls += 1
        restorationHandler([controller])
        return true
    }
}

/// UIKit's form, with `any`, exactly as `UIApplicationDelegate` declares it.
final class UIKitFormDelegate: ApplicationDelegate {
    let controller = RestoringController()
    var calls = 0
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]?) -> Void) -> Bool {
        calls += 1
        restorationHandler([controller])
        return true
    }
}

/// UIKit's form without `any`, as the seeds' iOS listings write it.
final class UIKitFormWithoutAnyDelegate: ApplicationDelegate {
    let controller = RestoringController()
    var calls = 0
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([UserActivityRestoring]?) -> Void) -> Bool {
        calls += 1
        restorationHandler([controller])
        return true
    }
}

/// UIKit's form, calling the handler with nil (UIKit allows it: nothing to restore).
final class UIKitNilDelegate: ApplicationDelegate {
    var calls = 0
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]?) -> Void) -> Bool {
        calls += 1
        restorationHandler(nil)
        return true
    }
}

/// Baton's own form, whose handler is `@MainActor`.
final class MainActorFormDelegate: ApplicationDelegate {
    let controller = RestoringController()
    var calls = 0
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
        calls += 1
        restorationHandler([controller])
        return true
    }
}

/// UIKit's launch method, refusing, written with UIKit's default argument.
final class UIKitRefusingLaunchDelegate: ApplicationDelegate {
    var launchMethodCalled = false
    var continued = 0
    var failed = 0
    func application(_ application: Application,
                     willFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]? = nil) -> Bool {
        launchMethodCalled = true
        return false
    }
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]?) -> Void) -> Bool {
        continued += 1
        return true
    }
    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String,
                     error: any Error) { failed += 1 }
}

/// UIKit's `didFinishLaunchingWithOptions`, refusing.
final class UIKitRefusingDidLaunchDelegate: ApplicationDelegate {
    var continued = 0
    func application(_ application: Application,
                     didFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]?) -> Bool {
        false
    }
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        continued += 1
        return true
    }
}

/// UIKit's life-cycle methods, which take the application instead of a notification.
final class UIKitLifeCycleDelegate: ApplicationDelegate {
    var events: [String] = []
    func applicationDidFinishLaunching(_ application: Application) { events.append("didFinishLaunching") }
    func applicationDidBecomeActive(_ application: Application) { events.append("didBecomeActive") }
    func applicationWillResignActive(_ application: Application) { events.append("willResignActive") }
    func applicationWillTerminate(_ application: Application) { events.append("willTerminate") }
}

/// AppKit's life-cycle methods, which take the notification (and so hide UIKit's).
final class AppKitLifeCycleDelegate: ApplicationDelegate {
    var events: [String] = []
    func applicationDidFinishLaunching(_ notification: Notification) { events.append("didFinishLaunching") }
    func applicationDidBecomeActive(_ notification: Notification) { events.append("didBecomeActive") }
}

@MainActor
private func pageActivity(_ page: String) -> UserActivity {
    let activity = UserActivity(activityType: "com.example.forms.view")
    activity.userInfo = ["page": page]
    return activity
}

final class DelegateSignatureTests: PortingTestCase {
    func testAppKitFormIsCalledAndRestores() throws {
        try MainActor.assumeIsolated {
            let delegate = AppKitFormDelegate()
            launch(manifest, delegate)
            try handOff(pageActivity("appkit"))
            XCTAssertEqual(delegate.calls, 1)
            XCTAssertEqual(delegate.controller.restored, ["appkit"])
        }
    }

    func testAppKitFormWithoutAnyIsCalledAndRestores() throws {
        try MainActor.assumeIsolated {
            let delegate = AppKitFormWithoutAnyDelegate()
            launch(manifest, delegate)
            try handOff(pageActivity("appkit-bare"))
            XCTAssertEqual(delegate.calls, 1)
            XCTAssertEqual(delegate.controller.restored, ["appkit-bare"])
        }
    }

    func testUIKitFormIsCalledAndRestores() throws {
        try MainActor.assumeIsolated {
            let delegate = UIKitFormDelegate()
            launch(manifest, delegate)
            try handOff(pageActivity("uikit"))
            XCTAssertEqual(delegate.calls, 1)
            XCTAssertEqual(delegate.controller.restored, ["uikit"])
        }
    }

    func testUIKitFormWithoutAnyIsCalledAndRestores() throws {
        try MainActor.assumeIsolated {
            let delegate = UIKitFormWithoutAnyDelegate()
            launch(manifest, delegate)
            try handOff(pageActivity("uikit-bare"))
            XCTAssertEqual(delegate.calls, 1)
            XCTAssertEqual(delegate.controller.restored, ["uikit-bare"])
        }
    }

    func testUIKitFormMayPassNilToTheHandler() throws {
        try MainActor.assumeIsolated {
            let delegate = UIKitNilDelegate()
            launch(manifest, delegate)
            try handOff(pageActivity("nil"))
            XCTAssertEqual(delegate.calls, 1)
        }
    }

    func testBatonsMainActorFormIsCalledAndRestores() throws {
        try MainActor.assumeIsolated {
            let delegate = MainActorFormDelegate()
            launch(manifest, delegate)
            try handOff(pageActivity("main-actor"))
            XCTAssertEqual(delegate.calls, 1)
            XCTAssertEqual(delegate.controller.restored, ["main-actor"])
        }
    }

    /// handoff-programming-guide, "Continuing an Activity", last note: no continuation message
    /// once `application(_:willFinishLaunchingWithOptions:)` returned NO. UIKit's signature,
    /// optional options and all.
    func testAUIKitLaunchRefusalStopsTheContinuation() throws {
        try MainActor.assumeIsolated {
            let delegate = UIKitRefusingLaunchDelegate()
            launch(manifest, delegate)
            XCTAssertTrue(delegate.launchMethodCalled, "the UIKit-form launch method is called")
            try handOff(pageActivity("refused"))
            XCTAssertEqual(delegate.continued, 0)
            XCTAssertEqual(delegate.failed, 0)
        }
    }

    func testAUIKitDidFinishLaunchingRefusalStopsTheContinuation() throws {
        try MainActor.assumeIsolated {
            let delegate = UIKitRefusingDidLaunchDelegate()
            launch(manifest, delegate)
            try handOff(pageActivity("refused"))
            XCTAssertEqual(delegate.continued, 0)
        }
    }

    func testUIKitLifeCycleMethodsTakingTheApplicationAreCalled() throws {
        MainActor.assumeIsolated {
            let delegate = UIKitLifeCycleDelegate()
            launch(manifest, delegate)
            Application.shared.deactivate()
            XCTAssertEqual(delegate.events, ["didFinishLaunching", "didBecomeActive", "willResignActive"])
        }
    }

    func testAppKitLifeCycleMethodsTakingTheNotificationAreCalled() throws {
        MainActor.assumeIsolated {
            let delegate = AppKitLifeCycleDelegate()
            launch(manifest, delegate)
            XCTAssertEqual(delegate.events, ["didFinishLaunching", "didBecomeActive"])
        }
    }
}
