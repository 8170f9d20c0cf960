import Baton
import BatonTestSupport
import XCTest

/// Calls `UserActivity`'s deprecated `init()` the way ported code does, through a protocol, so
/// that this test target builds without a deprecation warning of its own.
@MainActor
protocol DefaultInitializable { init() }
extension UserActivity: DefaultInitializable {}
@MainActor
func makeWithDeprecatedInit<T: DefaultInitializable>(_ type: T.Type) -> T { T() }

/// A Sendable flag for the deletion handlers, which are `@Sendable` as in Foundation.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}

/// Foundation's `NSUserActivity` members that Baton's `UserActivity` adds for ported code.
final class UserActivityMembersTests: PortingTestCase {
    /// `init()`: "the first activity type from the NSUserActivityTypes array in the app's Info.plist".
    func testInitTakesTheManifestsFirstActivityType() {
        MainActor.assumeIsolated {
            Application.shared.manifest = AppManifest(appID: "com.example.a", teamIdentifier: "T",
                                                      activityTypes: ["com.example.a.first", "com.example.a.second"])
            XCTAssertEqual(makeWithDeprecatedInit(UserActivity.self).activityType, "com.example.a.first")
        }
    }

    func testIsEligibleForPredictionDefaultsToFalseAndIsKept() {
        MainActor.assumeIsolated {
            let activity = UserActivity(activityType: "com.example.a")
            XCTAssertFalse(activity.isEligibleForPrediction)
            activity.isEligibleForPrediction = true
            XCTAssertTrue(activity.isEligibleForPrediction)
            let identifier: UserActivityPersistentIdentifier = "Cupertino"
            activity.persistentIdentifier = identifier
            XCTAssertEqual(activity.persistentIdentifier, "Cupertino")
        }
    }

    /// Nothing is persisted yet, so there is nothing to delete; the handler is still called,
    /// later (from the main loop), as Foundation calls it.
    func testDeleteSavedUserActivitiesCallsItsHandlerLaterOnTheMainLoop() {
        MainActor.assumeIsolated {
            let called = Flag()
            UserActivity.deleteSavedUserActivities(withPersistentIdentifiers: ["Cupertino"]) { called.set() }
            XCTAssertFalse(called.isSet, "the handler is not called before the method returns")
            spin(until: { called.isSet })
        }
    }

    func testDeleteAllSavedUserActivitiesCallsItsHandlerLaterOnTheMainLoop() {
        MainActor.assumeIsolated {
            let called = Flag()
            UserActivity.deleteAllSavedUserActivities { called.set() }
            XCTAssertFalse(called.isSet, "the handler is not called before the method returns")
            spin(until: { called.isSet })
        }
    }

    func testTheAsyncFormsReturn() {
        MainActor.assumeIsolated {
            var done = false
            Task { @MainActor in
                await UserActivity.deleteSavedUserActivities(withPersistentIdentifiers: ["x"])
                await UserActivity.deleteAllSavedUserActivities()
                done = true
            }
            spin(until: { done })
        }
    }
}
