import Baton
import CGtk

/// A Baton `Panel` backed by a `GtkWindow`: an auxiliary window (a GTK dialog, an
/// inspector) that becomes key when GTK activates it but never main, so the main window and the
/// activity it makes current stay where they were (AppKit's `NSPanel`).
///
/// Everything else is as for `GtkBackedWindow`: GTK's active state, focus widget, actions,
/// shortcuts, visibility, closing and title stay in step with Baton.
@MainActor
open class GtkBackedPanel: Panel {
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
