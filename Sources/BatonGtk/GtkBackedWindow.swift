import Baton
import CGtk

/// A Baton `Window` backed by a `GtkWindow`: a document window a person sees.

/// Its GTK window's active state drives key and main (`Application+WindowFocus` decides, as
/// for every window: an active document window becomes key and main), GTK's focus widget is
/// Baton's first responder (through `WidgetView`s), GTK's actions and shortcuts send Baton's
/// typed actions (`actions`, `shortcuts`), and showing, hiding, closing and the title stay the
/// same on both sides. The rules, GTK signal by signal, are listed in `GtkWindowBridge`'s
/// documentation in the source; in short:
///
/// | GTK | Baton |
/// |---|---|
/// | `is-active` becomes true | the app is active; `makeKey()` |
/// | focus widget inside a `WidgetView` | `makeFirstResponder(_:)` with that view |
/// | shown / hidden (`visible`) | `orderFront(_:)` / `orderOut(_:)` |
/// | `close-request` (the close button) | `performClose(_:)` |
/// | destroyed | `close()` |
///
/// and back: `orderFront(_:)`/`orderOut(_:)` show and hide the GTK window (so do
/// `Application.hide(_:)` and `unhide(_:)`), becoming key presents it,
/// `makeFirstResponder(_:)` moves GTK's focus, `close()` destroys it, a new `title` is set on
/// it. Its actions are enabled only while the responder chain can handle them (`GtkActions`).
///
/// Make windows after GTK is initialised (`GtkRuntime.initialize()`, or in a
/// `GtkApplication`'s startup), on the main thread.
@MainActor
open class GtkBackedWindow: Window {
    let bridge: GtkWindowBridge

    /// A window backed by `gtkWindow` (referenced until the window closes), or by a new
    /// `GtkWindow` when nil; titled `title`, or with the GTK window's title when `title` is
    /// empty. Like every Baton window it is registered in `Application.windows`, not yet
    /// visible: `makeKeyAndOrderFront(_:)` shows it (GTK shows and presents it).
    public init(gtkWindow: UnsafeMutablePointer<GtkWindow>? = nil, title: String = "",
                contentViewController: ViewController? = nil) {
        bridge = GtkWindowBridge(gtkWindow: gtkWindow)
        super.init(title: title, contentViewController: contentViewController)
        bridge.attach(to: self)
        backing = bridge
        bridge.contentViewDidChange(contentView)
    }

    /// The GTK window; nil once the window is closed (GTK destroyed it).
    public var gtkWindow: UnsafeMutablePointer<GtkWindow>? { bridge.gtkWindow }

    /// The window's GTK actions, found as `"win.<name>"` by its widgets, menus and shortcuts;
    /// each sends a typed Baton action to the first responder.
    public var actions: GtkActions { bridge.actions }

    /// The window's keyboard shortcuts (a shortcut controller on the GTK window).
    public var shortcuts: GtkShortcuts { bridge.shortcuts }

    /// Adds the action `name` (`"win.<name>"`), sending `action` to the first responder, and,
    /// with `shortcut` (`"<Control>s"`), a keyboard shortcut that activates it.
    ///
    /// - Throws: `GtkShortcutError.unparsableTrigger` for a shortcut GTK cannot parse (the
    ///   action is added all the same).
    public func addAction<Handler>(_ action: Action<Handler>, named name: String,
                                   shortcut: String? = nil) throws(GtkShortcutError) {
        try bridge.addAction(action, named: name, shortcut: shortcut)
    }
}
