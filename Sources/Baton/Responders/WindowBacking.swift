/// What puts a Baton `Window` on screen: a toolkit's window that the Baton window stands for
/// (BatonGtk's `GtkWindow` bridge). The window tells its backing, after Baton's own rules have
/// run, each change the toolkit's window must follow; what comes from the toolkit's side the
/// backing applies with the window's ordinary methods (`makeKey()`, `orderOut(_:)`, …), so
/// AppKit's rules stay in one place. AppKit has no such type (its windows are always on
/// screen); it is how a Baton window gets a real one.
@MainActor
public protocol WindowBacking: AnyObject {
    /// The window is visible now: it was ordered in (`orderFront(_:)` / `orderBack(_:)`), or
    /// the app was unhidden (`Application.unhide(_:)`, told for each window ordered in, the
    /// backmost first). Show the toolkit's window.
    func windowDidOrderIn(_ window: Window)
    /// The window is not visible now: `orderOut(_:)` was called on a window that is not closed
    /// (also as `close()` begins), or the app was hidden (`Application.hide(_:)`, told for each
    /// window ordered in; they stay ordered in and come back on unhide). Hide the toolkit's
    /// window.
    func windowDidOrderOut(_ window: Window)
    /// The window became key (after `becomeKey()`).
    func windowDidBecomeKey(_ window: Window)
    /// `makeFirstResponder(_:)` was called, whatever it answered.
    func windowDidAskForFirstResponder(_ window: Window)
    /// The window's title changed.
    func windowTitleDidChange(_ window: Window)
    /// The window's content view changed.
    func windowContentViewDidChange(_ window: Window)
    /// The window closed (`close()`); it is gone for good.
    func windowDidClose(_ window: Window)
}
