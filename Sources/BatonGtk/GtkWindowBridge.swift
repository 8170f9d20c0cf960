import Baton
import CGtk

/// What keeps a Baton window and its `GtkWindow` in step, both ways; shared by
/// `GtkBackedWindow` and `GtkBackedPanel`.
///
/// From GTK to Baton (signals of the `GtkWindow`):
/// - `notify::is-active` true: the app becomes active and the window `makeKey()`s, so
///   `Application+WindowFocus`'s rules decide key and main (a panel becomes key, not main).
///   When no bound GTK window is active any more once the loop is idle (focus left the app,
///   not moved between its windows), the app is deactivated.
/// - `notify::visible`: `orderFront(_:)` / `orderOut(_:)`.
/// - `notify::title`: the Baton title.
/// - `notify::focus-widget`: `makeFirstResponder(_:)` with the `WidgetView` wrapping the focus
///   widget (or its nearest wrapped ancestor), or nil (the window itself) for an unwrapped
///   widget. Baton's answer wins: if it refuses, or gives first responder to the window,
///   GTK's focus is put back where Baton's first responder is (see `syncGtkFocus()`).
/// - `close-request`: `performClose(_:)` (the delegate's `windowShouldClose(_:)` decides);
///   GTK never closes the window by itself.
/// - `destroy` (someone destroyed the GTK window): the Baton window closes.
///
/// From Baton to GTK (the bridge is the window's `WindowBacking`, told after Baton's rules ran): ordering in and out (and the app hiding and unhiding) shows and hides
/// the GTK window, becoming key presents it, a new first responder takes GTK's focus, the
/// title is set, and `close()` destroys the GTK window. Changes that came from GTK are not
/// sent back to it.
@MainActor
final class GtkWindowBridge {
    /// The Baton window (weak: the window owns the bridge).
    private weak var window: Window?
    /// The GTK window, referenced until `tearDown()`.
    private(set) var gtkWindow: UnsafeMutablePointer<GtkWindow>?
    /// The handlers connected on the GTK window.
    private var handlers: [gulong] = []
    /// Above zero while a change that came from GTK is applied to Baton.
    private var applyingGtkChange = 0
    /// True once the GTK window's `destroy` was seen (it must not be destroyed again).
    private var gtkDestroyed = false

    /// The window's actions (`"win.<name>"`).
    let actions: GtkActions
    /// The window's keyboard shortcuts.
    let shortcuts: GtkShortcuts

    /// Wraps `gtkWindow`, or a new `GtkWindow` when nil; references it.
    init(gtkWindow given: UnsafeMutablePointer<GtkWindow>?) {
        let gtkWindow = given ?? baton_gtk_window(UnsafeMutableRawPointer(gtk_window_new()))!
        g_object_ref(UnsafeMutableRawPointer(gtkWindow))
        self.gtkWindow = gtkWindow
        let widget = baton_gtk_widget(UnsafeMutableRawPointer(gtkWindow))!
        actions = baton_gtk_is_application_window(UnsafeMutableRawPointer(gtkWindow)) != 0
            ? GtkActions(actionMap: OpaquePointer(gtkWindow), prefix: "win")
            : GtkActions(insertingInto: widget, prefix: "win")
        shortcuts = GtkShortcuts(on: widget)
    }

    isolated deinit { tearDown() }

    /// Connects the GTK window's signals to `window` and gives GTK the window's title.
    func attach(to window: Window) {
        guard let gtkWindow else { return }
        self.window = window
        Self.live.append(Weak(self))
        if window.title.isEmpty, let title = gtk_window_get_title(gtkWindow) {
            window.title = String(cString: title)
        } else {
            gtk_window_set_title(gtkWindow, window.title)
        }
        let object = UnsafeMutableRawPointer(gtkWindow)
        handlers = [
            GtkSignal.connect(object, "notify::is-active") { [weak self] _ in self?.activeChanged() },
            GtkSignal.connect(object, "notify::visible") { [weak self] _ in self?.visibleChanged() },
            GtkSignal.connect(object, "notify::title") { [weak self] _ in self?.titleChanged() },
            GtkSignal.connect(object, "notify::focus-widget") { [weak self] _ in self?.focusChanged() },
            GtkSignal.connectReturningBool(object, "close-request") { [weak self] in self?.closeRequested(); return true },
            GtkSignal.connect(object, "destroy") { [weak self] in self?.destroyed() },
        ]
    }

    // MARK: GTK → Baton

    private func fromGtk<T>(_ change: () -> T) -> T {
        applyingGtkChange += 1
        defer { applyingGtkChange -= 1 }
        return change()
    }

    private var isGtkActive: Bool { gtkWindow.map { gtk_window_is_active($0) != 0 } ?? false }

    private func activeChanged() {
        guard let window, !window.isClosed else { return }
        if isGtkActive {
            Self.pendingDeactivation?.cancel()
            Self.pendingDeactivation = nil
            fromGtk {
                if !window.isVisible { window.orderFront(nil) }
                Application.shared.activate()
                if !window.isKeyWindow { window.makeKey() }
            }
        } else {
            Self.scheduleDeactivationCheck()
        }
    }

    private func visibleChanged() {
        guard let window, let gtkWindow, !window.isClosed, !Application.shared.isHidden else { return }
        let visible = gtk_widget_get_visible(baton_gtk_widget(UnsafeMutableRawPointer(gtkWindow))) != 0
        if visible, !window.isVisible {
            fromGtk { window.orderFront(nil) }
        } else if !visible, window.isVisible {
            fromGtk { window.orderOut(nil) }
        }
    }

    private func titleChanged() {
        guard let window, let gtkWindow, let cTitle = gtk_window_get_title(gtkWindow) else { return }
        let title = String(cString: cTitle)
        if title != window.title { fromGtk { window.title = title } }
    }

    private func focusChanged() {
        guard let window, let gtkWindow, !window.isClosed, applyingGtkChange == 0 else { return }
        let focus = gtk_window_get_focus(gtkWindow)
        let view = focus.flatMap { WidgetView.enclosing($0, in: window) }
        if window.firstResponder !== (view ?? window) {
            fromGtk { _ = window.makeFirstResponder(view) }
        }
        syncGtkFocus()
    }

    private func closeRequested() {
        guard let window, !window.isClosed else { return }
        fromGtk { window.performClose(nil) }
    }

    private func destroyed() {
        gtkDestroyed = true
        guard let window, !window.isClosed else { return }
        fromGtk { window.close() }
    }

    /// Adds the action `name` (`"win.<name>"`) sending `action`, and its `shortcut` if any.
    func addAction<Handler>(_ action: Action<Handler>, named name: String, shortcut: String?) throws(GtkShortcutError) {
        actions.add(action, named: name)
        if let shortcut { try shortcuts.add(shortcut, activating: "win.\(name)") }
    }

    // MARK: Baton → GTK

    /// The window's title changed in Baton.
    func titleDidChange(_ title: String) {
        guard let gtkWindow, applyingGtkChange == 0 else { return }
        gtk_window_set_title(gtkWindow, title)
    }

    /// The window was ordered in or out in Baton.
    func visibilityDidChange(_ visible: Bool) {
        guard let gtkWindow, applyingGtkChange == 0 else { return }
        gtk_widget_set_visible(baton_gtk_widget(UnsafeMutableRawPointer(gtkWindow)), visible ? 1 : 0)
    }

    /// The window became key in Baton: GTK presents it (raises it and gives it the focus).
    ///
    /// GTK asks for the focus (X11: `_NET_ACTIVE_WINDOW` to the window manager, or without one
    /// `XSetInputFocus`) only for a window already on screen; a window just shown is not yet,
    /// so it is presented again when its surface is mapped.
    func didBecomeKey() {
        guard let gtkWindow, applyingGtkChange == 0, !isGtkActive else { return }
        let surface = gtk_native_get_surface(OpaquePointer(gtkWindow))
        if let surface, gdk_surface_get_mapped(surface) == 0 {
            presentWhenMapped(surface)
        } else {
            gtk_window_present(gtkWindow)
        }
    }

    /// The surface whose `notify::mapped` is watched, and the handler.
    private var mappedWatch: (surface: OpaquePointer, handler: gulong)?
    private var presentOnMap = false

    private func presentWhenMapped(_ surface: OpaquePointer) {
        presentOnMap = true
        if let watch = mappedWatch, watch.surface == surface { return }
        stopWatchingMapped()
        g_object_ref(UnsafeMutableRawPointer(surface))
        let handler = GtkSignal.connect(UnsafeMutableRawPointer(surface), "notify::mapped") { [weak self] _ in
            guard let self, let gtkWindow = self.gtkWindow, self.presentOnMap, gdk_surface_get_mapped(surface) != 0 else { return }
            self.presentOnMap = false
            if let window = self.window, window.isKeyWindow, !self.isGtkActive { gtk_window_present(gtkWindow) }
        }
        mappedWatch = (surface, handler)
    }

    private func stopWatchingMapped() {
        guard let watch = mappedWatch else { return }
        mappedWatch = nil
        g_signal_handler_disconnect(UnsafeMutableRawPointer(watch.surface), watch.handler)
        g_object_unref(UnsafeMutableRawPointer(watch.surface))
    }

    /// The content view changed: a `WidgetView` content view's widget becomes the GTK window's
    /// child when the window has none.
    func contentViewDidChange(_ view: View?) {
        guard let gtkWindow, let widgetView = view as? WidgetView, gtk_window_get_child(gtkWindow) == nil,
              gtk_widget_get_parent(widgetView.widget) == nil else { return }
        gtk_window_set_child(gtkWindow, widgetView.widget)
    }

    /// Puts GTK's focus where Baton's first responder is: in a `WidgetView`'s widget, or,
    /// when the window itself is first responder, on no wrapped widget (a focused widget that
    /// no view wraps keeps the focus).
    func syncGtkFocus() {
        guard let window, let gtkWindow else { return }
        let focus = gtk_window_get_focus(gtkWindow)
        let focusedView = focus.flatMap { WidgetView.enclosing($0, in: window) }
        applyingGtkChange += 1
        defer { applyingGtkChange -= 1 }
        if let first = window.firstResponder as? WidgetView {
            if focusedView !== first { _ = gtk_widget_grab_focus(first.widget) }
        } else if focusedView != nil {
            gtk_window_set_focus(gtkWindow, nil)
        }
    }

    /// Disconnects every handler and lets go of the GTK window; destroys it unless it was
    /// destroyed already. Called when the Baton window closes.
    func tearDown() {
        Self.live.removeAll { $0.bridge == nil || $0.bridge === self }
        guard let gtkWindow else { return }
        self.gtkWindow = nil
        let object = UnsafeMutableRawPointer(gtkWindow)
        for handler in handlers { g_signal_handler_disconnect(object, handler) }
        handlers = []
        stopWatchingMapped()
        shortcuts.detach()
        actions.removeAll()
        if !gtkDestroyed { gtk_window_destroy(gtkWindow) }
        g_object_unref(object)
    }

    // MARK: The app's activation

    /// The bridges of open windows, to find whether any GTK window of the app is active.
    private static var live: [Weak] = []
    private static var pendingDeactivation: LoopSource?

    /// Once the loop is idle (GTK has handled the focus-in that may follow a focus-out), the app
    /// is deactivated if none of its GTK windows is active: the focus left the app.
    private static func scheduleDeactivationCheck() {
        guard pendingDeactivation == nil else { return }
        pendingDeactivation = MainLoop.idle {
            pendingDeactivation = nil
            if !live.contains(where: { $0.bridge?.isGtkActive == true }) { Application.shared.deactivate() }
        }
    }

    /// Cancels a pending deactivation check (for tests that end with the loop not idle).
    static func cancelPendingWork() {
        pendingDeactivation?.cancel()
        pendingDeactivation = nil
    }

    private struct Weak {
        weak var bridge: GtkWindowBridge?
        init(_ bridge: GtkWindowBridge) { self.bridge = bridge }
    }
}

/// Baton's changes, as the window's backing, carried to the GTK window.
extension GtkWindowBridge: WindowBacking {
    func windowDidOrderIn(_ window: Window) { visibilityDidChange(true) }
    func windowDidOrderOut(_ window: Window) { visibilityDidChange(false) }
    func windowDidBecomeKey(_ window: Window) { didBecomeKey() }
    func windowDidAskForFirstResponder(_ window: Window) { syncGtkFocus() }
    func windowTitleDidChange(_ window: Window) { titleDidChange(window.title) }
    func windowContentViewDidChange(_ window: Window) { contentViewDidChange(window.contentView) }

    /// A closed window is gone for good: the GTK window is disconnected and destroyed (the
    /// window's responders let go of their activities in `Window.close()`).
    func windowDidClose(_ window: Window) { tearDown() }
}
