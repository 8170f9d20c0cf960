import BatonLoop
import CGLib
import Foundation

/// Calls back on the loop as soon as a file changes: a `GFileMonitor`, made with the app's
/// loop as the thread-default context, so GIO delivers its `changed` signal through it.
/// A file replaced by rename (how identity files are written) counts as a change.
@MainActor
final class FileWatch {
    private var monitor: UnsafeMutablePointer<GFileMonitor>?
    private var handler: gulong = 0

    /// Watches `url` (which need not exist yet); `changed` runs after each change.
    init(_ url: URL, changed: @escaping @MainActor () -> Void) throws(GLibError) {
        let file = g_file_new_for_path(url.path)!
        defer { g_object_unref(UnsafeMutableRawPointer(file)) }
        var error: UnsafeMutablePointer<GError>?
        // The monitor delivers `changed` through the thread-default context at creation.
        let made = MainLoop.withThreadDefaultContext { g_file_monitor_file(file, G_FILE_MONITOR_WATCH_MOVES, nil, &error) }
        guard let monitor = made else {
            throw GLibError(consuming: error!)
        }
        self.monitor = monitor
        let box = SignalBox { _ in changed() }
        handler = g_signal_connect_data(UnsafeMutableRawPointer(monitor), "changed",
                                        unsafeBitCast(fileChangedTrampoline, to: GCallback.self),
                                        box.retainedOpaque(), CallbackBox.closureNotify, GConnectFlags(0))
    }

    /// Stops watching; the handler's box is released with the handler.
    func cancel() {
        guard let monitor else { return }
        self.monitor = nil
        g_signal_handler_disconnect(UnsafeMutableRawPointer(monitor), handler)
        g_file_monitor_cancel(monitor)
        g_object_unref(monitor)
    }

    isolated deinit { cancel() }
}

/// `void changed(GFileMonitor *, GFile *, GFile *, GFileMonitorEvent, gpointer)`.
private let fileChangedTrampoline: @convention(c) (
    UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, GFileMonitorEvent, UnsafeMutableRawPointer?
) -> Void = { _, _, _, event, userData in
    guard let userData, event != G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED, event != G_FILE_MONITOR_EVENT_PRE_UNMOUNT,
          event != G_FILE_MONITOR_EVENT_UNMOUNTED else { return }
    let box = SignalBox.borrow(userData)
    MainActor.assumeIsolated { box.body(nil) }
}
