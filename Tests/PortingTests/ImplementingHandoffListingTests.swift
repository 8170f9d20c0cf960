import Baton
import BatonTestSupport
import XCTest

// The Swift listings of "Implementing Handoff in Your App", ported verbatim with type renames
// only (NSUserActivity → UserActivity, UIApplication → Application, UIUserActivityRestoring →
// UserActivityRestoring, UINavigationController → NavigationController, a stand-in in
// MapKitStandIns.swift). One change that is not a rename: Apple's "Create User Activity
// Objects" listing writes `activity?.` on the non-optional result of `init(activityType:)`,
// which does not compile in Swift (with Apple's SDK either); the `?` is dropped there.

/// The guide's shapes view controller: the originating side's `updateUserActivityState(_:)` and
/// the continuing side's `restoreUserActivityState(_:)`.
final class MyShapesViewController: ViewController {
    var shapeType = "circle"
    var createdShapes: [String] = []

    func currentShapeType() -> String { shapeType }
    func createShape(type: String) { createdShapes.append(type) }

    /// "Create User Activity Objects": verbatim but for the `?` (see the file's comment).
    func makeCreateShapeActivity() -> UserActivity {
        let activity = UserActivity(activityType: "com.example.myapp.create-shape")
        activity.isEligibleForHandoff = true
        activity.requiredUserInfoKeys = ["shape-type"]
        activity.title = NSLocalizedString("Creating shape", comment: "Creating shape activity")
        return activity
    }

    // "Update Activities While the User is Active": verbatim.
    override func updateUserActivityState(_ activity: UserActivity) {
        if activity.activityType == "com.example.myapp.create-shape" {
            let updateDict:  [AnyHashable : Any] = [
                "shape-type" : currentShapeType(),
                "activity-version" : 1
            ]
            activity.addUserInfoEntries(from: updateDict)
        }
    }

    // "Continue the Activity in Your App": verbatim.
    override func restoreUserActivityState(_ userActivity: UserActivity) {    super.restoreUserActivityState(userActivity)
        guard userActivity.activityType == "com.example.myapp.create-shape",
            let type = userActivity.userInfo?["shape-type"] as? String,
            let version = userActivity.userInfo?["activity-version"] as? Int,
            version >= 1 else {
                return
        }
        
        createShape(type: type)
    }
}

/// "Receive User Activities in the Application Delegate": the iOS app delegate, verbatim.
final class ShapesAppDelegate: ApplicationDelegate {
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([UserActivityRestoring]?) -> Void) -> Bool {
        guard let topNav = application.keyWindow?.rootViewController as? NavigationController,
            let shapesVC = topNav.viewControllers.first as? MyShapesViewController else {
                return false
        }
        restorationHandler([shapesVC])
        return true
    }
}

private let shapesManifest = AppManifest(
    appID: "com.example.myapp", teamIdentifier: "TEAM1",
    activityTypes: ["com.example.myapp.create-shape", "com.example.myapp.edit-shape",
                    "com.example.myapp.edit-document-properties"])

/// implementing-handoff-in-your-app.md.
final class ImplementingHandoffListingTests: PortingTestCase {
    /// "Create User Activity Objects" and "Update Activities While the User is Active": the
    /// responder's `updateUserActivityState(_:)` fills `userInfo` when the activity is saved.
    func testTheResponderUpdatesTheActivitysUserInfoWhenItIsSaved() throws {
        MainActor.assumeIsolated {
            launch(shapesManifest, ShapesAppDelegate())
            let shapesVC = MyShapesViewController()
            let activity = shapesVC.makeCreateShapeActivity()
            XCTAssertTrue(activity.isEligibleForHandoff)
            XCTAssertEqual(activity.requiredUserInfoKeys, ["shape-type"])
            XCTAssertEqual(activity.title, "Creating shape")
            shapesVC.userActivity = activity
            Window(title: "Shapes", contentViewController: shapesVC).makeKeyAndOrderFront(nil)
            shapesVC.shapeType = "triangle"
            activity.needsSave = true
            spin(until: { !activity.needsSave })
            XCTAssertEqual(activity.userInfo?["shape-type"] as? String, "triangle")
            XCTAssertEqual(activity.userInfo?["activity-version"] as? Int, 1)
        }
    }

    /// "Receive User Activities in the Application Delegate" and "Continue the Activity in Your
    /// App": the delegate (UIKit's signature) passes the navigation stack's first controller to
    /// the restoration handler, whose `restoreUserActivityState(_:)` creates the shape.
    func testTheDelegateAndRestoreListingsCreateTheHandedOffShape() throws {
        try MainActor.assumeIsolated {
            launch(shapesManifest, ShapesAppDelegate())
            let shapesVC = MyShapesViewController()
            let topNav = NavigationController()
            topNav.viewControllers = [shapesVC]
            Window(title: "Shapes", contentViewController: topNav).makeKeyAndOrderFront(nil)

            let origin = MyShapesViewController()
            origin.shapeType = "hexagon"
            let activity = origin.makeCreateShapeActivity()
            origin.updateUserActivityState(activity)
            try handOff(activity)
            XCTAssertEqual(shapesVC.createdShapes, ["hexagon"])
        }
    }

    /// "Continue the Activity in Your App": an activity without "activity-version" is not
    /// restored (the listing's guard).
    func testTheRestoreListingIgnoresAnUnversionedActivity() throws {
        try MainActor.assumeIsolated {
            launch(shapesManifest, ShapesAppDelegate())
            let shapesVC = MyShapesViewController()
            let topNav = NavigationController()
            topNav.viewControllers = [shapesVC]
            Window(title: "Shapes", contentViewController: topNav).makeKeyAndOrderFront(nil)
            let activity = UserActivity(activityType: "com.example.myapp.create-shape")
            activity.userInfo = ["shape-type": "square"]
            try handOff(activity)
            XCTAssertEqual(shapesVC.createdShapes, [])
        }
    }
}
