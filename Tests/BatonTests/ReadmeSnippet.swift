import Baton

// The app declares what it continues: built in code here, or an Info.plist with the same keys.
let createShape = "com.example.myapp.create-shape"
let shapesAppManifest = AppManifest(appID: "com.example.myapp", teamIdentifier: "TEAM1", activityTypes: [createShape])

// The view that must be first responder: the controller that holds the activity is then in the
// main window's responder chain, so the runtime makes its activity current.
final class ShapeView: View { override var acceptsFirstResponder: Bool { true } }

final class ShapeController: ViewController {
    var shape = "circle"
    override func loadView() { view = ShapeView(identifier: "shape") }
    // Each save (lazy, coalesced, and before the activity leaves the device) starts from an
    // empty userInfo and asks every responder that shares the activity.
    override func updateUserActivityState(_ activity: UserActivity) {
        activity.addUserInfoEntries(from: ["shape-type": shape])
    }
    // Continuing: the app delegate passes this controller to the restoration handler.
    override func restoreUserActivityState(_ activity: UserActivity) {
        shape = activity.userInfo?["shape-type"] as? String ?? shape
    }
}

final class ShapesDelegate: ApplicationDelegate {
    let controller = ShapeController(title: "shapes")
    lazy var window = Window(title: "Shapes", contentViewController: controller)

    func applicationDidFinishLaunching(_ notification: Notification) {
        window.makeKeyAndOrderFront(nil)            // key and main
        window.makeFirstResponder(controller.view)  // the shape view
        // A responder's activity is managed by the runtime: it is current while this controller
        // is in the main window's chain, saved lazily, and invalidated when nobody holds it.
        let activity = UserActivity(activityType: createShape)
        controller.userActivity = activity
        activity.needsSave = true                   // any number of times: one save on the next idle turn
    }

    // The continuing side: after willContinue…, exactly one of this or didFailToContinue….
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        restorationHandler([controller])            // → controller.restoreUserActivityState(_:)
        return true
    }
}

// A program runs `Application.shared.manifest = shapesAppManifest` and then
// `Application.main(delegate: ShapesDelegate())`. A host with a GLib loop of its own does this:
@MainActor func launchShapes(_ delegate: ShapesDelegate) {
    Application.shared.manifest = shapesAppManifest
    Application.shared.delegate = delegate          // weak, as in AppKit: the caller keeps it
    Application.shared.finishLaunching()            // launch messages, then the app is active
}

// Whatever brings the payload (a file, the network, a test) continues through one entry point.
@MainActor func continueShape(fetch: @escaping @Sendable () async throws -> Data) {
    Application.shared.continueUserActivity(ofType: createShape) { try await fetch() }
}
