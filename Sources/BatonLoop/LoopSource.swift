import CGLib

/// A closure scheduled on a GLib main context: an idle, timeout or file-descriptor source.
///
/// Cancel it with `cancel()`; dropping the handle does not cancel it (like the id
/// `g_idle_add` returns). The closure is released by GLib's destroy notify when the source
/// is removed, whether it stopped itself, was cancelled, or its context was destroyed.
public final class LoopSource: @unchecked Sendable {
    // A strong GSource reference, so `cancel()` stays safe after the source has finished.
    private let source: UnsafeMutablePointer<GSource>

    init(adopting source: UnsafeMutablePointer<GSource>) { self.source = source }

    deinit { g_source_unref(source) }

    /// Removes the source; its closure will not run again. Safe from any thread, and more
    /// than once.
    public func cancel() { g_source_destroy(source) }

    /// True once the source has been removed (finished, stopped or cancelled).
    public var isCancelled: Bool { g_source_is_destroyed(source) != 0 }
}
