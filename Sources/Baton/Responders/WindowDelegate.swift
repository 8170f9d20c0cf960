import Foundation

/// The delegate of a `Window` (AppKit's `NSWindowDelegate`). Every method is optional: the
/// protocol extension supplies defaults.
///
/// As in AppKit, the delegate receives the window's notifications: each notification-taking
/// method gets the same `Notification` that is posted on `NotificationCenter.default`, with
/// the window as `object`, just before it is posted.
@MainActor
public protocol WindowDelegate: AnyObject {
    /// Asked by `Window.performClose(_:)` (the user's close button) before the window closes;
    /// return false to keep it open. `Window.close()` does not ask (AppKit's rule). The default
    /// returns true.
    func windowShouldClose(_ sender: Window) -> Bool
    /// The window is about to close (`Window.willCloseNotification`).
    func windowWillClose(_ notification: Notification)
    /// The window became the key window (`Window.didBecomeKeyNotification`).
    func windowDidBecomeKey(_ notification: Notification)
    /// The window is no longer the key window (`Window.didResignKeyNotification`).
    func windowDidResignKey(_ notification: Notification)
    /// The window became the main window (`Window.didBecomeMainNotification`).
    func windowDidBecomeMain(_ notification: Notification)
    /// The window is no longer the main window (`Window.didResignMainNotification`).
    func windowDidResignMain(_ notification: Notification)
    /// The window received `update()` (`Window.didUpdateNotification`; AppKit's
    /// `windowDidUpdate(_:)`).
    func windowDidUpdate(_ notification: Notification)
    /// The undo manager `window` should use (`Window.undoManager` asks once). AppKit creates
    /// one for the window when the delegate does not implement this; in Baton the default
    /// returns nil, which means the same: the window makes and keeps its own.
    func windowWillReturnUndoManager(_ window: Window) -> UndoManager?
}

extension WindowDelegate {
    /// Lets the window close.
    public func windowShouldClose(_ sender: Window) -> Bool { true }
    /// Does nothing.
    public func windowWillClose(_ notification: Notification) {}
    /// Does nothing.
    public func windowDidBecomeKey(_ notification: Notification) {}
    /// Does nothing.
    public func windowDidResignKey(_ notification: Notification) {}
    /// Does nothing.
    public func windowDidBecomeMain(_ notification: Notification) {}
    /// Does nothing.
    public func windowDidResignMain(_ notification: Notification) {}
    /// Does nothing.
    public func windowDidUpdate(_ notification: Notification) {}
    /// Nil: the window makes its own undo manager.
    public func windowWillReturnUndoManager(_ window: Window) -> UndoManager? { nil }
}
