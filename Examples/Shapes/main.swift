// Shapes: the seed "Implementing Handoff in Your App" as a Baton app.
//
// On one machine, through a handoff file:
//     baton-shapes --save FILE [--shape TYPE]    create a shape; write the current activity to FILE
//     baton-shapes --continue FILE               continue the activity in FILE
// Between devices (each process a device of one group, identities made by `baton`):
//     baton-shapes --device DIR [--listen [HOST:]PORT] --create TYPE     advertise a shape; exit once continued
//     baton-shapes --device DIR --peer HOST:PORT --continue-nearby       continue the first nearby shape
// Launched by the agent to continue a shape (docs/EXAMPLES.md):
//     baton-shapes [--agent SOCKET]      joined to the agent (at SOCKET, else the user's own), wait until
//                                        it hands over a shape
// A device of its own listens on every interface unless --listen says otherwise, finds the
// others through avahi-daemon, and then needs no --peer.
import Baton
import BatonContinuity
import ExampleSupport

final class ShapesApp: ApplicationDelegate {
    let shapes = ShapesViewController(title: "shapes")
    lazy var window = Window(title: "Shapes", contentViewController: shapes)
    let mode: Mode

    enum Mode {
        case save(URL, shape: String)
        case continueFrom(URL)
        case advertise(ExampleDevice, shape: String)
        case continueNearby(ExampleDevice)
        /// Launched by the agent: continue what it hands over.
        case waitForTheAgent(ExampleDevice)
    }

    init(mode: Mode) { self.mode = mode }

    func applicationDidFinishLaunching(_ notification: Notification) {
        window.makeKeyAndOrderFront(nil)
        window.makeFirstResponder(shapes.view)
        switch mode {
        case .save(let file, let shape):
            shapes.startCreatingShape(shape)
            // The save runs from an idle source; hand off after it, as a peer asking would.
            MainLoop.idle {
                guard let activity = Application.shared.currentUserActivity else { return fail("no current activity") }
                say("current activity: \(activity.activityType) \"\(activity.title ?? "")\"")
                do {
                    try ActivityFile.write(activity, to: file)
                    say("handed off to \(file.lastPathComponent)")
                } catch { return fail("\(error)") }
                Application.shared.terminate(nil)
            }
        case .continueFrom(let file):
            Application.shared.continueUserActivity(fromFileAt: file)
        case .advertise(let device, let shape):
            do { try device.start() } catch { return fail("\(error)") }
            shapes.startCreatingShape(shape)
        case .waitForTheAgent(let device):
            do { try device.start() } catch { return fail("\(error)") }
            device.waitForTheAgent()
        case .continueNearby(let device):
            // Continues the first shape another device offers; ends when that device has gone.
            device.continueFirstNearby(of: [ShapesViewController.createShape]) { Application.shared.terminate(nil) }
            do { try device.start() } catch { return fail("\(error)") }
        }
    }

    func applicationWillTerminate(_ notification: Notification) {
        switch mode {
        case .advertise(let device, _), .continueNearby(let device), .waitForTheAgent(let device): device.stop()
        default: break
        }
    }

    // "Receive User Activities in the Application Delegate".
    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        say("willContinueUserActivityWithType \(userActivityType): receiving…")
        return true
    }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        guard let shapesVC = application.keyWindow?.contentViewController as? ShapesViewController else {
            return false
        }
        say("continue \(shown(userActivity.activityType)) \"\(shown(userActivity.title ?? ""))\"")
        restorationHandler([shapesVC])
        if case .continueFrom = mode { MainLoop.idle { Application.shared.terminate(nil) } }
        return true
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
        fail("could not continue \(PrintableText.escaped(userActivityType)): \(PrintableText.escaped(error.localizedDescription))")
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
let options = DeviceOptions.fromCommandLine()

let mode: ShapesApp.Mode
if let file = value(after: "--save") {
    mode = .save(URL(fileURLWithPath: file), shape: value(after: "--shape") ?? "circle")
} else if let file = value(after: "--continue") {
    mode = .continueFrom(URL(fileURLWithPath: file))
} else if let options, let shape = value(after: "--create") {
    mode = MainActor.assumeIsolated { .advertise(ExampleDevice(options), shape: shape) }
} else if let options, arguments.contains("--continue-nearby") {
    mode = MainActor.assumeIsolated { .continueNearby(ExampleDevice(options)) }
} else if !["--save", "--continue", "--create", "--continue-nearby"].contains(where: arguments.contains),
          let waiting = DeviceOptions.waitingForTheAgent() {
    mode = MainActor.assumeIsolated { .waitForTheAgent(ExampleDevice(waiting)) }
} else {
    say("""
        usage: baton-shapes --save FILE [--shape TYPE] | --continue FILE
               baton-shapes \(DeviceOptions.usage) (--create TYPE | --continue-nearby)
               baton-shapes [--agent SOCKET]
        """)
    exit(2)
}

MainActor.assumeIsolated {
    installManifest(from: Bundle.module)
}
Application.main(delegate: ShapesApp(mode: mode))
exit(exitCode)
