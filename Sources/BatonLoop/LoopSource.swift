import CGLib
import Synchronization

/// A closure scheduled on a GLib main context: an idle, timeout or file-descriptor source.
///
/// Cancel it with `cancel()`; dropping the handle does not cancel it (like the id
/// `g_idle_add` returns). The closure is released by GLib's destroy notify when the source
/// is removed, whether it stopped itself, was cancelled, or its context was destroyed.
/// (`MainLoop.idle`'s one-shots share one GLib source per priority, `IdlePool`: a cancelled
/// one's closure is released the next time that source runs.)
public final class LoopSource: @unchecked Sendable {
    // A strong GSource reference, so `cancel()` stays safe after the source has finished;
    // nil for a one-shot of an `IdlePool`.
    private let source: UnsafeMutablePointer<GSource>?
    // A pooled one-shot's state: removed once it ran or was cancelled (from any thread).
    private let removed = Atomic<Bool>(false)
    // A pooled one-shot's closure; set and cleared on the loop thread only.
    private var pooledBody: (@MainActor () -> Void)?

    init(adopting source: UnsafeMutablePointer<GSource>) { self.source = source }

    /// A one-shot that `IdlePool` runs.
    init(pooled body: @escaping @MainActor () -> Void) {
        source = nil
        pooledBody = body
    }

    deinit { if let source { g_source_unref(source) } }

    /// Removes the source; its closure will not run again. Safe from any thread, and more
    /// than once.
    public func cancel() {
        if let source { g_source_destroy(source) } else { removed.store(true, ordering: .releasing) }
    }

    /// True once the source has been removed (finished, stopped or cancelled).
    public var isCancelled: Bool {
        if let source { g_source_is_destroyed(source) != 0 } else { removed.load(ordering: .acquiring) }
    }

    /// Runs a pooled one-shot unless it was cancelled, and releases its closure either way.
    @MainActor
    func runPooled() {
        let body = pooledBody
        pooledBody = nil
        if !removed.exchange(true, ordering: .acquiringAndReleasing) { body?() }
    }
}
