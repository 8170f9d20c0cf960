import Baton
import Foundation

/// The status an example exits with: 0, or 1 once `fail(_:)` was called.
nonisolated(unsafe) public var exitCode: Int32 = 0

/// Says what went wrong and ends the app with status 1.
@MainActor public func fail(_ message: String) {
    say("error: \(message)")
    exitCode = 1
    Application.shared.terminate(nil)
}

/// Installs the manifest the example ships in its bundle (`Manifest/Info.plist`); exits if it
/// does not load.
@MainActor public func installManifest(from bundle: Bundle) {
    do {
        guard let url = bundle.url(forResource: "Info", withExtension: "plist", subdirectory: "Manifest") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "Manifest/Info.plist is not in the bundle"])
        }
        Application.shared.manifest = try AppManifest(contentsOf: url)
    } catch {
        say("error: \(error)")
        exit(1)
    }
}

/// The seeds' `application(_:continue:restorationHandler:)`: the key window's content view
/// controller, if it is a `Controller`, restores the activity.
@MainActor public func restoreInKeyWindow<Controller: ViewController>(
    _ type: Controller.Type, _ restorationHandler: ([any UserActivityRestoring]) -> Void
) -> Bool {
    guard let controller = Application.shared.keyWindow?.contentViewController as? Controller else { return false }
    _ = controller.view  // the seed's loadView(): Baton loads the view on first use
    restorationHandler([controller])
    return true
}

/// The app delegate the device examples share: one window whose content is `controller`, a
/// device of the group started at launch and stopped at the end, continuations restored by
/// `controller`, and a failed continuation ending the app with status 1. A subclass says what
/// the app does once its device runs, in `deviceStarted()`.
open class DeviceExampleApp<Controller: ViewController>: ApplicationDelegate {
    public let controller: Controller
    public let window: Window
    public let device: ExampleDevice

    public init(_ controller: Controller, windowTitle: String, device: ExampleDevice) {
        self.controller = controller
        window = Window(title: windowTitle, contentViewController: controller)
        self.device = device
    }

    /// What the app does once its device runs.
    open func deviceStarted() {}

    /// An app launched to continue an activity is told its type in its launch options, as UIKit's are.
    public func application(_ application: Application,
                            didFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]?) -> Bool {
        if let type = launchOptions?[.userActivityType] as? String { say("launched to continue \(shown(type))") }
        return true
    }

    public func applicationDidFinishLaunching(_ notification: Notification) {
        window.makeKeyAndOrderFront(nil)
        window.makeFirstResponder(controller.view)
        do { try device.start() } catch { return fail("\(error)") }
        deviceStarted()
    }

    public func applicationWillTerminate(_ notification: Notification) { device.stop() }

    public func application(_ application: Application, continue userActivity: UserActivity,
                            restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        restoreInKeyWindow(Controller.self, restorationHandler)
    }

    public func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String,
                            error: any Error) {
        fail("could not continue \(userActivityType): \(error.localizedDescription)")
    }
}
