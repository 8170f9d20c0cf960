@testable import Baton
import BatonTestSupport
import XCTest

/// Lazy, coalesced saves: about-handoff "User Activity Delegate" and "Managing a User Activity
/// with Responders"; handoff-programming-guide Listing 2-3 ("coalesce updates and perform them
/// lazily").
final class UserActivitySaveTests: BatonTestCase {
    func testManySetsInOneLoopTurnMakeOneSaveFromAnIdleSource() {
        MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.editing")
            let first = ActivityController(title: "first"), second = ActivityController(title: "second")
            first.userActivity = activity
            second.userActivity = activity
            let scheduledBefore = ActivityRegistry.shared.savesScheduled
            for _ in 0..<1000 { activity.needsSave = true }
            XCTAssertEqual(first.updates, 0, "nothing is saved until the loop runs")
            XCTAssertEqual(ActivityRegistry.shared.savesScheduled, scheduledBefore + 1)
            spin(until: { !activity.needsSave })
            drainIdle()
            XCTAssertEqual(first.updates, 1, "every responder sharing the activity is asked, once")
            XCTAssertEqual(second.updates, 1)
        }
    }

    func testASaveClearsUserInfoFirstThenResetsNeedsSaveAndTellsTheAppDelegate() {
        MainActor.assumeIsolated {
            let delegate = HandoffDelegate()
            Application.shared.delegate = delegate
            let activity = UserActivity(activityType: "com.example.editing")
            let controller = ActivityController(title: "c")
            controller.userActivity = activity
            controller.state = ["page": 4]
            activity.userInfo = ["stale": true]
            activity.needsSave = true
            spin(until: { !activity.needsSave })
            XCTAssertEqual(controller.userInfoAtUpdate?.count, 0, "userInfo is cleared before updateUserActivityState")
            XCTAssertEqual(activity.userInfo?["page"] as? Int, 4)
            XCTAssertNil(activity.userInfo?["stale"])
            XCTAssertEqual(delegate.updated.count, 1)
            XCTAssertTrue(delegate.updated.first === activity)
        }
    }

    func testAnUnmanagedActivityIsSavedThroughItsDelegate() {
        MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.direct")
            let delegate = RecordingActivityDelegate()
            activity.delegate = delegate
            activity.userInfo = ["kept": "yes"]
            activity.needsSave = true
            activity.needsSave = true
            spin(until: { !activity.needsSave })
            XCTAssertEqual(delegate.willSave, 1)
            XCTAssertEqual(activity.userInfo?["kept"] as? String, "yes", "a delegate save does not clear userInfo")
            activity.needsSave = true
            spin(until: { !activity.needsSave })
            XCTAssertEqual(delegate.willSave, 2, "needsSave may be set again after a save")
        }
    }

    /// about-handoff: the activity is saved "before the activity is continued on another device".
    func testThePayloadIsTakenAfterASave() throws {
        try MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.editing")
            let controller = ActivityController(title: "c")
            controller.userActivity = activity
            controller.state = ["shape-type": "circle"]
            let decoded = try UserActivity(payload: try activity.payload())
            XCTAssertEqual(controller.updates, 1)
            XCTAssertEqual(decoded.userInfo?["shape-type"] as? String, "circle")
        }
    }

    func testInvalidatingDropsAPendingSave() {
        MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.gone")
            let delegate = RecordingActivityDelegate()
            activity.delegate = delegate
            activity.needsSave = true
            activity.invalidate()
            drainIdle()
            XCTAssertEqual(delegate.willSave, 0)
        }
    }
}
