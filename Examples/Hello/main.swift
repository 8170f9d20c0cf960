import Baton

@MainActor protocol Greeting { func greet(_ sender: Any?) }
extension Action where Handler == any Greeting {
    static let greet = Action("greet") { $0.greet($1) }
}

final class NameField: View { override var acceptsFirstResponder: Bool { true } }

final class GreeterController: ViewController, Greeting {
    override func loadView() { view = NameField(identifier: "name") }
    func greet(_ sender: Any?) { print("hello from \(title!) in window \(view.window!.title)") }
}

final class AppDelegate: ApplicationDelegate {
    let window = Window(title: "Main", contentViewController: GreeterController(title: "greeter"))
    func applicationDidFinishLaunching(_ notification: Notification) {
        window.makeKeyAndOrderFront(nil)
        window.makeFirstResponder(window.contentView)  // the name field
        Task { @MainActor in  // runs on the GLib main loop
            Application.shared.sendAction(.greet, to: nil, from: nil)  // field → controller
            Application.shared.terminate(nil)
        }
    }
}

Application.main(delegate: AppDelegate())
