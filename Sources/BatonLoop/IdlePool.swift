import CGLib

/// `MainLoop.idle`'s one-shots of one priority: one persistent GLib source on `MainLoop.context`
/// instead of an idle source made, attached and freed for each.
///
/// GLib's semantics are kept: the source has the one-shots' priority and is ready while one
/// is queued, so they run when an idle source of that priority would; each dispatch runs the
/// ones queued before it began, in order (one queued by a callback runs in a later
/// iteration, as `g_idle_add` from a callback does). The source may recurse: a callback that
/// iterates the loop (`MainLoop.run()`) sees the one-shots queued after it run, those queued
/// before it included, as separate idle sources would.
///
/// Used on the loop (main) thread only: `MainLoop` adds, the source's callbacks read and run.
final class IdlePool: @unchecked Sendable {
    private var queue: [(sequence: UInt64, entry: LoopSource)] = []
    private var head = 0
    private var nextSequence: UInt64 = 0
    private var source: UnsafeMutablePointer<GSource>?
    let priority: LoopPriority

    @MainActor
    init(priority: LoopPriority, on context: LoopContext) {
        self.priority = priority
        attach(to: context)
    }

    /// Queues `body`; the handle cancels it.
    @MainActor
    func add(_ body: @escaping @MainActor () -> Void) -> LoopSource {
        let entry = LoopSource(pooled: body)
        queue.append((nextSequence, entry))
        nextSequence &+= 1
        return entry
    }

    /// Moves the source (and the one-shots queued) to `context`.
    @MainActor
    func attach(to context: LoopContext) {
        let fresh = g_source_new(&idlePoolSourceFuncs, guint(MemoryLayout<IdlePoolSourceLayout>.size))!
        fresh.withMemoryRebound(to: IdlePoolSourceLayout.self, capacity: 1) {
            $0.pointee.pool = Unmanaged.passUnretained(self).toOpaque()
        }
        g_source_set_priority(fresh, priority.rawValue)
        g_source_set_can_recurse(fresh, 1)
        g_source_set_name(fresh, "Baton MainLoop.idle")
        g_source_attach(fresh, context.gContext)
        remove()
        source = fresh
    }

    /// Removes the source; queued one-shots stay queued for the next `attach(to:)`.
    @MainActor
    func remove() {
        if let source {
            g_source_destroy(source)
            g_source_unref(source)
        }
        source = nil
    }

    fileprivate var isReady: Bool { head < queue.count }

    /// Runs the one-shots queued before this dispatch began (a nested dispatch, from a
    /// callback iterating the loop, takes the following ones from the same queue).
    @MainActor
    fileprivate func dispatch() {
        let end = nextSequence
        while head < queue.count, queue[head].sequence < end {
            let entry = queue[head].entry
            head += 1
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
            entry.runPooled()
        }
        if head > 1024, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
    }
}

/// The pool's GSource: GLib's header, then the (unretained) pool, which `MainLoop` keeps for
/// the process's life.
private struct IdlePoolSourceLayout {
    var source: GSource
    var pool: UnsafeMutableRawPointer?
}

private func pool(of source: UnsafeMutablePointer<GSource>?) -> IdlePool {
    let raw = source!.withMemoryRebound(to: IdlePoolSourceLayout.self, capacity: 1) { $0.pointee.pool }
    return Unmanaged<IdlePool>.fromOpaque(raw!).takeUnretainedValue()
}

/// Ready while a one-shot is queued; called on the loop (main) thread only.
nonisolated(unsafe) private var idlePoolSourceFuncs = GSourceFuncs(
    prepare: { source, timeout in
        timeout?.pointee = -1
        return pool(of: source).isReady ? 1 : 0
    },
    check: { source in pool(of: source).isReady ? 1 : 0 },
    dispatch: { source, _, _ in
        MainThreadRules.requireLoopThread("a MainLoop.idle source")
        let pool = pool(of: source)
        MainActor.assumeIsolated { pool.dispatch() }
        return baton_source_continue()
    },
    finalize: nil, closure_callback: nil, closure_marshal: nil)
