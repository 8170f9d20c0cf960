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
        actions.add(action, named: name)
        if let shortcut { try shortcuts.add(shortcut, activating: "win.\(name)") }
    }

    /// The title; a new one is set on the GTK window too.
    override open var title: String {
        didSet { bridge.titleDidChange(title) }
    }

    /// The content view; a `WidgetView` becomes the GTK window's child when it has none.
    override open var contentView: View? {
        didSet { bridge.contentViewDidChange(contentView) }
    }

    /// Orders the window in (`Window.orderFront(_:)`) and shows the GTK window.
    override open func orderFront(_ sender: Any?) {
        super.orderFront(sender)
        if isVisible { bridge.visibilityDidChange(true) }
    }

    /// Orders the window in behind the others (`Window.orderBack(_:)`) and shows the GTK window.
    override open func orderBack(_ sender: Any?) {
        super.orderBack(sender)
        if isVisible { bridge.visibilityDidChange(true) }
    }

    /// Orders the window out (`Window.orderOut(_:)`) and hides the GTK window.
    override open func orderOut(_ sender: Any?) {
        super.orderOut(sender)
        if !isClosed { bridge.visibilityDidChange(false) }
    }

    /// Becomes key (`Window.becomeKey()`) and, unless GTK made it key, presents the GTK window.
    override open func becomeKey() {
        super.becomeKey()
        bridge.didBecomeKey()
    }

    /// Makes `responder` first responder by Baton's rules (`Window.makeFirstResponder(_:)`),
    /// then puts GTK's focus on the new first responder's widget (or off wrapped widgets when
    /// the window itself is first responder).
    @discardableResult
    override open func makeFirstResponder(_ responder: Responder?) -> Bool {
        let made = super.makeFirstResponder(responder)
        bridge.syncGtkFocus()
        return made
    }

    /// Closes the window (`Window.close()`), disconnects from the GTK window and destroys it.
    /// A closed window is gone for good, so its view controller, views and itself let go of
    /// their user activities: one that nothing else holds is invalidated.
    override open func close() {
        guard !isClosed else { return super.close() }
        super.close()
        bridge.tearDown()
        bridge.releaseActivities()
    }
}
