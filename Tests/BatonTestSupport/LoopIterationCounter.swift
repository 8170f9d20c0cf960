import BatonLoop
import CGLib
import Synchronization

/// A GLib source that is never ready and counts the iterations of its context (its `prepare`
/// is called once in each), from attaching to `iterations`.
@MainActor
public final class LoopIterationCounter {
    private let source: UnsafeMutablePointer<GSource>
    private let start: Int

    public init(on context: LoopContext) {
        start = countedIterations.load(ordering: .relaxed)
        source = g_source_new(&counterSourceFuncs, guint(MemoryLayout<GSource>.size))!
        g_source_set_priority(source, G_PRIORITY_HIGH)  // prepared first, whatever else is ready
        g_source_attach(source, context.gContext)
    }

    /// The iterations since `init`.
    public var iterations: Int { countedIterations.load(ordering: .relaxed) - start }

    /// Removes the source.
    public func remove() {
        g_source_destroy(source)
        g_source_unref(source)
    }
}

private let countedIterations = Atomic<Int>(0)

nonisolated(unsafe) private var counterSourceFuncs = GSourceFuncs(
    prepare: { _, timeout in
        countedIterations.add(1, ordering: .relaxed)
        timeout?.pointee = -1
        return 0
    },
    check: { _ in 0 },
    dispatch: { _, _, _ in baton_source_remove() },
    finalize: nil, closure_callback: nil, closure_marshal: nil)
