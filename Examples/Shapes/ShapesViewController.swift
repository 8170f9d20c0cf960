import Baton
import ExampleSupport

/// The seed "Implementing Handoff in Your App", ported: a vector-graphics screen whose
/// create-shape activity another device can continue.
final class ShapesViewController: ViewController, UserActivityDelegate {
    static let createShape = "com.example.myapp.create-shape"
    private(set) var shapes: [String] = []
    var shapeType = "circle"

    override func loadView() { view = CanvasView(identifier: "canvas") }

    /// "Create User Activity Objects": the activity, its required keys and title.
    func startCreatingShape(_ type: String) {
        shapeType = type
        let activity = UserActivity(activityType: ShapesViewController.createShape)
        activity.isEligibleForHandoff = true
        activity.requiredUserInfoKeys = ["shape-type"]
        activity.title = "Creating shape"
        activity.delegate = self  // to hear when another device continues it
        userActivity = activity
        activity.needsSave = true
        say("creating a \(type); activity \(activity.activityType) set on the view controller")
    }

    /// "Update Activities While the User is Active".
    override func updateUserActivityState(_ activity: UserActivity) {
        if activity.activityType == ShapesViewController.createShape {
            let updateDict: [AnyHashable: Any] = [
                "shape-type": shapeType,
                "activity-version": 1,
            ]
            activity.addUserInfoEntries(from: updateDict)
            say("updateUserActivityState: shape-type = \(shapeType)")
        }
    }

    /// "Continue the Activity in Your App".
    override func restoreUserActivityState(_ userActivity: UserActivity) {
        super.restoreUserActivityState(userActivity)
        guard userActivity.activityType == ShapesViewController.createShape,
              let type = userActivity.userInfo?["shape-type"] as? String,
              let version = userActivity.userInfo?["activity-version"] as? Int,
              version >= 1 else {
            return
        }
        createShape(type: type)
    }

    /// "Update the Original Device's State (Optional)".
    func userActivityWasContinued(_ userActivity: UserActivity) {
        say("userActivityWasContinued: the \(shapeType) is being edited on another device; dismissing it here")
        MainLoop.idle { Application.shared.terminate(nil) }
    }

    func createShape(type: String) {
        shapes.append(type)
        say("restoreUserActivityState: created a \(shown(type)) (shapes on the canvas: \(shown(shapes.joined(separator: ", "))))")
    }
}

final class CanvasView: View {
    override var acceptsFirstResponder: Bool { true }
}
