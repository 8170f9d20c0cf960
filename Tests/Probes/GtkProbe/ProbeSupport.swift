import BatonGtk
import Foundation

/// A text view in a window, wrapped by a `WidgetView` that owns an activity.
@MainActor
final class NoteView: WidgetView, Saving, Marking, UserInterfaceValidations {
    private(set) var saves = 0
    private(set) var marks = 0
    /// False: this view refuses to become first responder (Baton's refusal rule).
    var accepts = true
    /// False: its validator disables `save` (AppKit's `validateUserInterfaceItem(_:)`).
    var canSave = true

    init(_ name: String, activity: String?) {
        let text = gtk_text_view_new()!
        gtk_widget_set_size_request(text, 300, 120)
        super.init(widget: text, identifier: name)
        if let activity { userActivity = UserActivity(activityType: activity) }
    }

    override func becomeFirstResponder() -> Bool { accepts }

    func save(_ sender: Any?) {
        saves += 1
        print("ACTION save reached \(identifier ?? "?") from \(sender.map { "\(type(of: $0))" } ?? "nil")")
    }

    func mark(_ sender: Any?) { marks += 1 }

    func validateUserInterfaceItem(_ item: any ValidatedUserInterfaceItem) -> Bool {
        item.action == .save ? canSave : true
    }
}

/// A text view in a window whose view handles no action.
@MainActor
final class PlainView: WidgetView {
    init(_ name: String) {
        let text = gtk_text_view_new()!
        gtk_widget_set_size_request(text, 300, 120)
        super.init(widget: text, identifier: name)
    }
}

/// The handler protocol of the probe's second action.
@MainActor protocol Marking { func mark(_ sender: Any?) }

extension Action where Handler == any Marking {
    /// "Mark", sent to the first responder.
    static let mark = Action("mark") { $0.mark($1) }
}

/// The handler protocol of the probe's typed action.
@MainActor protocol Saving { func save(_ sender: Any?) }

extension Action where Handler == any Saving {
    /// "Save", sent to the first responder.
    static let save = Action("save") { $0.save($1) }
}

/// A window with a vertical box of note views as its GTK content, and a plain content view
/// holding them in Baton's hierarchy.
@MainActor
func makeWindow<W: Window>(_ make: (UnsafeMutablePointer<GtkWindow>) -> W, title: String, notes: [WidgetView],
                           gtkWindow: UnsafeMutablePointer<GtkWindow>? = nil) -> W {
    let gtk = gtkWindow ?? baton_gtk_window(UnsafeMutableRawPointer(gtk_window_new()))!
    gtk_window_set_default_size(gtk, 400, 300)
    let box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 4)!
    for note in notes { gtk_box_append(UnsafeMutableRawPointer(box).assumingMemoryBound(to: GtkBox.self), note.widget) }
    gtk_window_set_child(gtk, box)
    let window = make(gtk)
    window.title = title
    let content = View(identifier: "\(title)-content")
    for note in notes { content.addSubview(note) }
    window.contentView = content
    return window
}

/// Two GTK-backed windows, "A" and "B", each with one note view (activities `note.a`,
/// `note.b`) as its first responder, shown with A in front, key and active in GTK. With
/// `keyingB`, B was key before A; without it, B was only ordered front.
@MainActor
func twoNoteWindows(keyingB: Bool) -> (GtkBackedWindow, GtkBackedWindow) {
    let a = NoteView("a", activity: "note.a"), b = NoteView("b", activity: "note.b")
    let windowA = makeWindow({ GtkBackedWindow(gtkWindow: $0) }, title: "A", notes: [a])
    let windowB = makeWindow({ GtkBackedWindow(gtkWindow: $0) }, title: "B", notes: [b])
    windowA.makeFirstResponder(a)
    windowB.makeFirstResponder(b)
    if keyingB { windowB.makeKeyAndOrderFront(nil) } else { windowB.orderFront(nil) }
    windowA.makeKeyAndOrderFront(nil)
    wait("A active") { gtk_window_is_active(windowA.gtkWindow!) != 0 }
    return (windowA, windowB)
}

/// Runs the loop until `condition` holds (at most 10 s); prints `TIMEOUT label` if it does not.
@MainActor
func wait(_ label: String, until condition: () -> Bool) {
    if !MainLoop.run(until: condition, timeout: .seconds(10)) { print("TIMEOUT \(label)") }
}

/// One line with the key and main windows, the first responder of the key window, GTK's
/// active window and focus, and the current activity.
@MainActor
func report(_ label: String) {
    let app = Application.shared
    let key = app.keyWindow, main = app.mainWindow
    let first = key?.firstResponder.map { ($0 as? View)?.identifier ?? ($0 === key ? "window" : "\(type(of: $0))") } ?? "-"
    let active = app.windows.compactMap { $0 as? GtkBackedWindow }.filter { $0.gtkWindow.map { gtk_window_is_active($0) != 0 } ?? false }.map(\.title)
        + app.windows.compactMap { $0 as? GtkBackedPanel }.filter { $0.gtkWindow.map { gtk_window_is_active($0) != 0 } ?? false }.map(\.title)
    print("STATE \(label): key=\(key?.title ?? "-") main=\(main?.title ?? "-") first=\(first) gtkActive=\(active.sorted().joined(separator: ",")) current=\(app.currentUserActivity?.activityType ?? "-")")
}

/// The GTK focus widget's note, or "none".
@MainActor
func gtkFocus(_ window: GtkBackedWindow, _ notes: [NoteView]) -> String {
    guard let gtk = window.gtkWindow, let focus = gtk_window_get_focus(gtk) else { return "none" }
    return notes.first { $0.widget == focus }?.identifier ?? "other"
}

/// Lets everything already queued on the loop run: a low-priority idle runs after it.
@MainActor
func drainIdle() {
    var done = false
    MainLoop.idle(priority: LoopPriority(LoopPriority.low.rawValue + 100)) { done = true }
    while !done { MainLoop.context.iterate(mayBlock: true) }
}
