import Foundation

/// The update cycle: after something changes which responders are in front, the app's windows
/// are updated once the loop has finished the current work, so that what depends on the
/// responder chain (whether a toolkit's items are enabled) follows it.
///
/// AppKit updates its windows after each event; Baton updates them on change: a change of the key
/// or main window, of a first responder, or of activation asks for an update
/// (`setWindowsNeedUpdate(true)`), and the update runs once, in the loop's next turn before any
/// further event is dispatched (an idle source of high priority), however many changes came
/// before it. Nothing polls.
extension Application {
    /// Asks for the windows to be updated when the current work is done
    /// (`setWindowsNeedUpdate(_:)`): true schedules one `updateWindows()` for the loop's next
    /// turn, once however often it is asked; false cancels a scheduled update. Call it when a change the
    /// responder chain cannot see (a document became editable, a message arrived) changes
    /// what items should be enabled, as AppKit advises for changes "not initiated by user
    /// actions".
    public func setWindowsNeedUpdate(_ needUpdate: Bool) {
        if !needUpdate {
            pendingWindowUpdate?.cancel()
            pendingWindowUpdate = nil
            return
        }
        guard pendingWindowUpdate == nil else { return }
        // High priority: it runs before GLib dispatches the next event (a key press that may
        // fire a shortcut), as AppKit updates after one event and before the next.
        pendingWindowUpdate = MainLoop.idle(priority: .high) { [weak self] in
            guard let self else { return }
            pendingWindowUpdate = nil
            updateWindows()
        }
    }

    /// Updates the windows now (`updateWindows()`): posts `willUpdateNotification` (the
    /// delegate's `applicationWillUpdate(_:)` first), sends `update()` to each window on
    /// screen, front to back, and posts `didUpdateNotification` (after the delegate's
    /// `applicationDidUpdate(_:)`).
    /// A scheduled update that has not run yet is dropped, since this one did its work.
    public func updateWindows() {
        pendingWindowUpdate?.cancel()
        pendingWindowUpdate = nil
        post(Application.willUpdateNotification) { $0.applicationWillUpdate($1) }
        for window in isHidden ? [] : windowStack.windows { window.update() }
        post(Application.didUpdateNotification) { $0.applicationDidUpdate($1) }
    }
}
