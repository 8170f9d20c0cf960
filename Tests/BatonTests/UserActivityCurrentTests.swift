@testable import Baton
import XCTest

/// handoff-programming-guide and about-handoff, "User Activity Object": only one activity is
/// current; becomeCurrent replaces the previous one, resignCurrent is reversible, invalidate
/// is final.
final class UserActivityCurrentTests: BatonTestCase {
    func testOnlyOneActivityIsCurrentAtATime() {
        MainActor.assumeIsolated {
            let a = UserActivity(activityType: "com.example.a"), b = UserActivity(activityType: "com.example.b")
            a.becomeCurrent()
            XCTAssertTrue(a.isCurrent)
            b.becomeCurrent()
            XCTAssertTrue(b.isCurrent)
            XCTAssertFalse(a.isCurrent)
            XCTAssertTrue(Application.shared.currentUserActivity === b)
        }
    }

    func testResignCurrentIsReversibleAndInvalidateIsFinal() {
        MainActor.assumeIsolated {
            let a = UserActivity(activityType: "com.example.a")
            a.becomeCurrent()
            a.resignCurrent()
            XCTAssertFalse(a.isCurrent)
            a.becomeCurrent()
            XCTAssertTrue(a.isCurrent)
            a.invalidate()
            XCTAssertFalse(a.isValid)
            XCTAssertFalse(a.isCurrent)
            a.becomeCurrent()
            XCTAssertFalse(a.isCurrent, "becomeCurrent after invalidate does nothing")
        }
    }

    /// about-handoff, "Managing a User Activity with Responders": managed activities become
    /// current from the main window and its responder chain.
    func testTheMainWindowsActivityBecomesCurrentWithoutAnyCallFromTheApp() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let inbox = UserActivity(activityType: "com.example.inbox")
            let compose = UserActivity(activityType: "com.example.compose")
            let (inboxWindow, _) = showActivityWindow("inbox", activity: inbox)
            XCTAssertTrue(inbox.isCurrent)
            let (composeWindow, _) = showActivityWindow("compose", activity: compose)
            XCTAssertTrue(compose.isCurrent)
            inboxWindow.makeKeyAndOrderFront(nil)
            XCTAssertTrue(inbox.isCurrent)
            Panel(title: "inspector").makeKeyAndOrderFront(nil)
            XCTAssertTrue(inbox.isCurrent, "a key panel does not change the main window")
            inboxWindow.close()
            XCTAssertTrue(compose.isCurrent, "the next main window's activity takes over")
            _ = composeWindow
        }
    }

    func testChangingTheFirstResponderChangesTheCurrentActivity() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let list = ActivityController(title: "list"), detail = ActivityController(title: "detail")
            let listActivity = UserActivity(activityType: "com.example.list")
            let detailActivity = UserActivity(activityType: "com.example.detail")
            list.userActivity = listActivity
            detail.userActivity = detailActivity
            let root = View(identifier: "split")
            root.addSubview(list.view)
            root.addSubview(detail.view)
            let window = Window(title: "split")
            window.contentView = root
            window.makeKeyAndOrderFront(nil)
            window.makeFirstResponder(list.view)
            XCTAssertTrue(listActivity.isCurrent)
            window.makeFirstResponder(detail.view)
            XCTAssertTrue(detailActivity.isCurrent)
            window.makeFirstResponder(nil)
            XCTAssertFalse(detailActivity.isCurrent, "no activity up the chain: the managed one resigns")
            XCTAssertNil(Application.shared.currentUserActivity)
        }
    }

    /// An app that is not active advertises nothing; on reactivation the main window's activity
    /// is current again (about-handoff, "Managing a User Activity with Responders": activities
    /// become current from the main window, and only the frontmost one is available).
    func testDeactivationAdvertisesNothingAndReactivationRestoresTheMainWindowsActivity() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let doc = UserActivity(activityType: "com.example.doc")
            _ = showActivityWindow("doc", activity: doc)
            XCTAssertTrue(Application.shared.advertisedUserActivity === doc)
            Application.shared.deactivate()
            XCTAssertNil(Application.shared.advertisedUserActivity)
            UserActivity(activityType: "com.example.other").becomeCurrent()
            Application.shared.activate()
            XCTAssertTrue(doc.isCurrent)
            XCTAssertTrue(Application.shared.advertisedUserActivity === doc)
        }
    }

    func testIneligibleOrExpiredActivitiesAreNotAdvertised() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let a = UserActivity(activityType: "com.example.a")
            a.becomeCurrent()
            XCTAssertTrue(Application.shared.advertisedUserActivity === a)
            a.isEligibleForHandoff = false
            XCTAssertNil(Application.shared.advertisedUserActivity)
            a.isEligibleForHandoff = true
            a.expirationDate = Date(timeIntervalSinceNow: -1)
            XCTAssertNil(Application.shared.advertisedUserActivity)
            XCTAssertTrue(a.isCurrent, "still current, just not offered")
        }
    }

    /// about-handoff: "When an NSUserActivity object managed by the app framework has no more
    /// associated responders or documents, it is automatically invalidated."
    func testTheLastResponderLettingGoInvalidatesAManagedActivity() {
        MainActor.assumeIsolated {
            let shared = UserActivity(activityType: "com.example.shared")
            let first = ActivityController(title: "1"), second = ActivityController(title: "2")
            first.userActivity = shared
            second.userActivity = shared
            first.userActivity = nil
            XCTAssertTrue(shared.isValid, "another responder still holds it")
            second.userActivity = nil
            XCTAssertFalse(shared.isValid)
        }
    }

    /// about-handoff, "Managing a User Activity with Responders": a managed activity with no
    /// more associated responders or documents is invalidated. Closing a window (model-only, no
    /// toolkit behind it) lets its views, their controllers and the window go of their
    /// activities, as AppKit's closed window releases them, even while the app still references
    /// the window: an activity only that window held is invalidated, one a view in another
    /// window shares stays valid.
    func testClosingAWindowInvalidatesTheActivitiesOnlyItsRespondersHeld() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let onlyHere = UserActivity(activityType: "com.example.only-here")
            let ofController = UserActivity(activityType: "com.example.controller")
            let ofWindow = UserActivity(activityType: "com.example.window")
            let shared = UserActivity(activityType: "com.example.shared")
            let controller = ActivityController(title: "closing")
            let inner = View(identifier: "inner"), sharing = View(identifier: "sharing")
            controller.view.addSubview(inner)
            inner.addSubview(sharing)
            let window = Window(title: "closing", contentViewController: controller)
            controller.userActivity = ofController
            inner.userActivity = onlyHere
            sharing.userActivity = shared
            window.userActivity = ofWindow
            let other = View(identifier: "elsewhere")
            let otherWindow = Window(title: "other")
            otherWindow.contentView = other
            other.userActivity = shared
            window.makeKeyAndOrderFront(nil)
            window.close()
            XCTAssertFalse(onlyHere.isValid)
            XCTAssertFalse(ofController.isValid)
            XCTAssertFalse(ofWindow.isValid)
            XCTAssertTrue(shared.isValid, "a view of another window still holds it")
            XCTAssertNil(inner.userActivity)
            XCTAssertNil(controller.userActivity)
            withExtendedLifetime((window, otherWindow)) {}
        }
    }

    func testAnUnmanagedActivityIsNotInvalidatedByTheRuntime() {
        MainActor.assumeIsolated {
            let manual = UserActivity(activityType: "com.example.manual")
            manual.becomeCurrent()
            Application.shared.activate()
            _ = showActivityWindow("plain", activity: nil)
            XCTAssertTrue(manual.isValid)
            XCTAssertTrue(manual.isCurrent, "a chain with no activity leaves an app-made current activity alone")
        }
    }
}
