import Baton
import BatonGtk
import CGtk
import Foundation

/// A window of the app: a `GtkApplicationWindow` with a header bar around a controller's
/// widgets, and the Baton `Window` whose content view controller is that controller.
@MainActor
final class NotesWindow {
    let gtkWindow: Widget
    let window: Window
    let headerBar: Widget

    /// A window titled `title` showing `content`, sized `width`×`height`; `onClose` runs when
    /// the person closes it (before it goes).
    init(title: String, content: Widget, controller: ViewController, width: Int32, height: Int32,
         onClose: @escaping @MainActor () -> Void) {
        let application = GtkApplicationHost.current!.gtkApplication
        gtkWindow = gtk_application_window_new(application)
        headerBar = gtk_header_bar_new()
        let gtk = gtkWindow.cast(GtkWindow.self)
        gtk_window_set_titlebar(gtk, headerBar)
        gtk_window_set_title(gtk, title)
        gtk_window_set_default_size(gtk, width, height)
        gtk_window_set_child(gtk, content)
        window = Window(title: title, contentViewController: controller)
        SignalHandlers.connect(gtkWindow.object, "close-request") { [window] in
            onClose()
            window.close()
            return false
        }
    }

    /// Sets the title of both windows.
    func setTitle(_ title: String) {
        gtk_window_set_title(gtkWindow.cast(GtkWindow.self), title)
        window.title = title
    }

    /// Shows the window in front, key.
    func present() {
        gtk_window_present(gtkWindow.cast(GtkWindow.self))
        window.makeKeyAndOrderFront(nil)
    }

    /// Runs `body` once GTK has drawn the window (after its next frame is painted).
    func afterNextPaint(_ body: @escaping @MainActor () -> Void) {
        guard let clock = gtk_widget_get_frame_clock(gtkWindow) else {
            MainLoop.idle { self.afterNextPaint(body) }
            return
        }
        SignalHandlers.once(UnsafeMutableRawPointer(clock), "after-paint") { MainLoop.idle(body) }
        gtk_widget_queue_draw(gtkWindow)
    }
}
