// Shapes: the seed "Implementing Handoff in Your App" as a Baton app.
//
//     baton-shapes --save FILE [--shape TYPE]   create a shape; write the current activity to FILE
//     baton-shapes --continue FILE              continue the activity in FILE
import Baton

final class ShapesApp: ApplicationDelegate {
    let shapes = ShapesViewController(title: "shapes")
    lazy var window = Window(title: "Shapes", contentViewController: shapes)
    let mode: Mode

    enum Mode { case save(URL, shape: String), continueFrom(URL) }

    init(mode: Mode) { self.mode = mode }

    func applicationDidFinishLaunching(_ notification: Notification) {
        window.makeKeyAndOrderFront()
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
        }
    }

    // "Receive User Activities in the Application Delegate".
    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        say("willContinueUserActivityWithType \(userActivityType): receiving…")
        return true
    }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
        guard let shapesVC = application.keyWindow?.contentViewController as? ShapesViewController else {
            return false
        }
        say("continue \(userActivity.activityType) \"\(userActivity.title ?? "")\"")
        restorationHandler([shapesVC])
        MainLoop.idle { Application.shared.terminate(nil) }
        return true
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
        fail("could not continue \(userActivityType): \(error.localizedDescription)")
    }
}

@MainActor func fail(_ message: String) {
    say("error: \(message)")
    exitCode = 1
    Application.shared.terminate(nil)
}

var exitCode: Int32 = 0

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = Array(CommandLine.arguments.dropFirst())
func value(after flag: String) -> String? {
    arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}

let mode: ShapesApp.Mode
if let file = value(after: "--save") {
    mode = .save(URL(fileURLWithPath: file), shape: value(after: "--shape") ?? "circle")
} else if let file = value(after: "--continue") {
    mode = .continueFrom(URL(fileURLWithPath: file))
} else {
    say("usage: baton-shapes --save FILE [--shape TYPE] | --continue FILE")
    exit(2)
}

MainActor.assumeIsolated {
    do {
        let manifestURL = Bundle.module.url(forResource: "Info", withExtension: "plist", subdirectory: "Manifest")!
        Application.shared.manifest = try AppManifest(contentsOf: manifestURL)
    } catch {
        say("error: \(error)")
        exit(1)
    }
}
Application.main(delegate: ShapesApp(mode: mode))
exit(MainActor.assumeIsolated { exitCode })
