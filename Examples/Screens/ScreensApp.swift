import Baton
import Foundation

/// The app: two document screens and an inspector panel; keys drive it; it prints what
/// the runtime does. It is a responder, the last of the chain (the application's next
/// responder), so the key presses nobody before it handles arrive at its `keyDown(with:)`.
final class ScreensApp: Responder, ApplicationDelegate {
    let inbox = Window(title: "Inbox", contentViewController: MailboxController(title: "mailbox"))
    let compose = Window(title: "Compose", contentViewController: ComposeController(title: "composer"))
    let inspector = Panel(title: "Inspector")
    private var observers: [NSObjectProtocol] = []
    private let keys: KeySource

    init(keys: KeySource) {
        self.keys = keys
        super.init()
    }

    static let help = """
        keys: 1 inbox  2 compose  i inspector  t or Tab next field  Backspace delete  c copy  r refresh
              h hide key window  w close key window  a (de)activate  s state  q quit
        """

    func applicationDidFinishLaunching(_ notification: Notification) {
        observeFocus()
        say("launched; \(ScreensApp.help)")
        inbox.makeKeyAndOrderFront(nil)
        keys.start()
    }

    func applicationDidBecomeActive(_ notification: Notification) { say("app became active") }
    func applicationDidResignActive(_ notification: Notification) { say("app resigned active") }
    func applicationWillTerminate(_ notification: Notification) {
        keys.stop()
        say("terminating")
    }

    /// A key that travelled the chain from the key window's first responder (or, with no key
    /// window, from the application) to here: the fields, views, controllers, window and
    /// application before it passed it on, as a responder's default `keyDown(with:)` does.
    override func keyDown(with event: Event) {
        guard let key = event.characters?.first else { return }
        let start = Application.shared.keyWindow?.firstResponder ?? Application.shared
        let path = ResponderChain.from(start).map(\.responderDescription)
        say("[\(key)] keyDown: \(path.joined(separator: " → "))")
        handle(key)
    }

    override var responderDescription: String { "ScreensApp" }

    func handle(_ key: Character) {
        let app = Application.shared
        switch key {
        case "1": inbox.makeKeyAndOrderFront(nil)
        case "2": compose.makeKeyAndOrderFront(nil)
        case "i": inspector.makeKeyAndOrderFront(nil)
        case "t": nextField()
        case "c": report(app.sendAction(.copy, to: nil, from: self), "copy")
        case "r": report(app.sendAction(.refresh, to: nil, from: self), "refresh")
        case "h": app.keyWindow?.orderOut(nil)
        case "w": app.keyWindow?.close()
        case "a": app.isActive ? app.deactivate() : app.activate()
        case "s": printState()
        case "q": app.terminate(self)
        default: say("  (no such key) \(ScreensApp.help)")
        }
    }

    /// Tab: the next field of the key window becomes first responder.
    private func nextField() {
        guard let window = Application.shared.keyWindow else { return say("  no key window") }
        let fields = window.contentView?.subviews.filter(\.acceptsFirstResponder) ?? []
        guard !fields.isEmpty else { return say("  \(window.title) has no fields") }
        let current = fields.firstIndex { $0 === window.firstResponder }
        let next = fields[current.map { ($0 + 1) % fields.count } ?? 0]
        window.makeFirstResponder(next)
        say("  first responder of \(window.title): \(next.responderDescription)")
    }

    private func report(_ handled: Bool, _ action: String) {
        if !handled { say("  \(action): nobody in the responder chain handles it") }
    }

    private func printState() {
        let app = Application.shared
        say("  active: \(app.isActive)  key: \(app.keyWindow?.title ?? "none")  main: \(app.mainWindow?.title ?? "none")")
        say("  on screen, front to back: \(app.orderedWindows.map(\.title).joined(separator: ", "))")
        if let first = app.keyWindow?.firstResponder {
            let chain = ResponderChain.from(first).map(\.responderDescription)
            say("  chain: \(chain.joined(separator: " → "))")
        }
    }

    private func observeFocus() {
        let events: [(Notification.Name, String)] = [
            (Window.didBecomeKeyNotification, "became key"), (Window.didResignKeyNotification, "resigned key"),
            (Window.didBecomeMainNotification, "became main"), (Window.didResignMainNotification, "resigned main"),
            (Window.willCloseNotification, "will close"),
        ]
        for (name, what) in events {
            observers.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
                nonisolated(unsafe) let window = note.object
                MainActor.assumeIsolated { say("  \((window as? Window)?.title ?? "?") \(what)") }
            })
        }
    }
}

/// Prints a line at once (stdout may be a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
