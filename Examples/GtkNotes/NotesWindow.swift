import BatonGtk
import Foundation

/// The commands of GtkNotes' menus and shortcuts, as typed actions sent along the responder
/// chain (the delegate, last in the chain, makes new notes; the window closes; the
/// application quits).
@MainActor protocol NoteMaking: AnyObject { func newNote(_ sender: Any?) }
@MainActor protocol WindowClosing: AnyObject { func performClose(_ sender: Any?) }
@MainActor protocol Quitting: AnyObject { func terminate(_ sender: Any?) }
extension Window: WindowClosing {}
extension Application: Quitting {}

extension Action where Handler == any NoteMaking {
    static let newNote = Action("newNote") { $0.newNote($1) }
}
extension Action where Handler == any WindowClosing {
    static let performClose = Action("performClose") { $0.performClose($1) }
}
extension Action where Handler == any Quitting {
    static let terminate = Action("terminate") { $0.terminate($1) }
}

/// A window of the app: a `GtkApplicationWindow` with a header bar, as the `GtkBackedWindow`
/// whose content view controller's view (a `WidgetView`) is its child, under the app's menu bar
/// (File: Ctrl+N makes a note, Ctrl+W closes the window, Ctrl+Q quits; Edit: Ctrl+Z undoes,
/// Shift+Ctrl+Z redoes).
@MainActor
final class NotesWindow: WindowDelegate {
    let window: GtkBackedWindow
    let headerBar: Widget
    /// Runs when the window is about to close (before its GTK window goes).
    var onClose: (@MainActor () -> Void)?

    /// A window of the app `GtkApplicationMain` runs, titled `title`, showing `controller`'s
    /// view, sized `width`×`height`.
    init(title: String, controller: ViewController, width: Int32, height: Int32) {
        let gtkWindow = gtk_application_window_new(GtkApplicationHost.current!.gtkApplication)!
        headerBar = gtk_header_bar_new()
        gtk_window_set_titlebar(gtkWindow.cast(GtkWindow.self), headerBar)
        gtk_window_set_default_size(gtkWindow.cast(GtkWindow.self), width, height)
        window = GtkBackedWindow(gtkWindow: gtkWindow.cast(GtkWindow.self), title: title, contentViewController: controller)
        window.delegate = self
        // The window's own actions (the header bar's New button, a desktop shell over D-Bus);
        // their keys are the menu bar's accelerators (NotesMenu).
        try? window.addAction(.newNote, named: "new")
        try? window.addAction(.performClose, named: "close")
        try? window.addAction(.terminate, named: "quit")
        gtk_application_window_set_show_menubar(gtkWindow.cast(GtkApplicationWindow.self), 1)
        let new = gtk_button_new_with_label("New")!
        gtk_actionable_set_action_name(new.opaque, "win.new")
        gtk_widget_set_tooltip_text(new, "New note (Ctrl+N)")
        gtk_header_bar_pack_start(headerBar.opaque, new)
    }

    /// The GTK window (while the window is open).
    var gtkWindow: Widget? { window.gtkWindow.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: GtkWidget.self) } }

    /// Shows the window in front, key.
    func present() { window.makeKeyAndOrderFront(nil) }

    func windowWillClose(_ notification: Notification) { onClose?() }

    /// Runs `body` once GTK has drawn the window (after its next frame is painted).
    func afterNextPaint(_ body: @escaping @MainActor () -> Void) {
        guard let gtkWindow else { return }
        guard let clock = gtk_widget_get_frame_clock(gtkWindow) else {
            GtkSignal.once(gtkWindow.object, "realize") { self.afterNextPaint(body) }
            return
        }
        GtkSignal.once(UnsafeMutableRawPointer(clock), "after-paint") { MainLoop.idle(body) }
        gtk_widget_queue_draw(gtkWindow)
    }
}
