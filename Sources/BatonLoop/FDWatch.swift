import CGLib

/// A file descriptor's readiness on the main loop, through one GLib source kept for as long as
/// the watch lives: `body` runs on the loop thread each time `fd` is readable (or hung up, or
/// in error) or writable, until it returns `.stop` or the watch goes.
///
/// Unlike a `g_unix_fd_source_new` or GIO pollable source, the watch costs no extra turn of the
/// loop per dispatch. GLib takes a source that may not recurse out of the poll set around each
/// of its dispatches and puts it back after (`block_source`), and each of those writes the
/// context's wake-up eventfd, so the next poll returns at once with nothing to do. This source
/// may recurse as far as GLib knows (its fd stays in the poll set), and keeps itself from
/// running inside itself all the same: if a loop iterated inside `body` finds the fd ready,
/// the fd leaves the poll set until the outer `body` returns (two wake-up writes, only then),
/// so the nested loop neither runs `body` again nor spins on the ready fd.
@MainActor
package final class FDWatch {
    private let source: UnsafeMutablePointer<GSource>

    /// Watches `fd` for reading: `body` runs when it is readable, hung up or in error.
    package convenience init(readable fd: Int32, _ body: @escaping @MainActor () -> Repetition) {
        self.init(fd, G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue, body)
    }

    /// Watches `fd` for writing: `body` runs when it is writable or in error.
    package convenience init(writable fd: Int32, _ body: @escaping @MainActor () -> Repetition) {
        self.init(fd, G_IO_OUT.rawValue | G_IO_ERR.rawValue, body)
    }

    private init(_ fd: Int32, _ condition: UInt32, _ body: @escaping @MainActor () -> Repetition) {
        source = g_source_new(&fdWatchSourceFuncs, guint(MemoryLayout<FDWatchLayout>.size))!
        source.withMemoryRebound(to: FDWatchLayout.self, capacity: 1) {
            $0.pointee.tag = g_source_add_unix_fd(source, fd, GIOCondition(rawValue: condition))
            $0.pointee.condition = condition
            $0.pointee.dispatching = false
            $0.pointee.muted = false
        }
        g_source_set_can_recurse(source, 1)
        g_source_set_name(source, "Baton fd watch")
        g_source_set_callback(source, fdWatchTrampoline, FDWatchBox(body).retainedOpaque(), CallbackBox.destroyNotify)
        g_source_attach(source, MainLoop.context.gContext)
    }

    isolated deinit {
        g_source_destroy(source)
        g_source_unref(source)
    }

    /// Removes the source; `body` will not run again. More than once is harmless.
    package func cancel() { g_source_destroy(source) }
}

/// The closure behind an `FDWatch`.
private final class FDWatchBox: CallbackBox, @unchecked Sendable {
    let body: @MainActor () -> Repetition
    init(_ body: @escaping @MainActor () -> Repetition) { self.body = body }
}

/// The `GSourceFunc` the source's dispatch calls: the box's closure, on the main actor.
private let fdWatchTrampoline: GSourceFunc = { userData in
    MainThreadRules.requireLoopThread("a file descriptor's source")
    let box = FDWatchBox.borrow(userData!)
    return MainActor.assumeIsolated { box.body() } == .again ? baton_source_continue() : baton_source_remove()
}

/// The watch's GSource: GLib's header, then the fd's tag and condition, and what its dispatch
/// keeps (loop thread only).
private struct FDWatchLayout {
    var source: GSource
    var tag: gpointer?
    var condition: UInt32
    /// True while the source's dispatch runs.
    var dispatching: Bool
    /// True while the fd is out of the poll set, because a loop iterated inside the dispatch
    /// found it ready.
    var muted: Bool
}

/// Never ready of itself: GLib checks the fd's `revents` after `check` says no. A dispatch
/// inside a dispatch (a loop iterated in `body` found the fd ready) only takes the fd out of
/// the poll set; the outer dispatch puts it back when `body` returns.
nonisolated(unsafe) private var fdWatchSourceFuncs = GSourceFuncs(
    prepare: { _, timeout in
        timeout?.pointee = -1
        return 0
    },
    check: { _ in 0 },
    dispatch: { source, callback, userData in
        let state = UnsafeMutableRawPointer(source!).assumingMemoryBound(to: FDWatchLayout.self)
        if state.pointee.dispatching {
            if !state.pointee.muted {
                state.pointee.muted = true
                g_source_modify_unix_fd(source, state.pointee.tag, GIOCondition(0))
            }
            return baton_source_continue()
        }
        guard let callback else { return baton_source_remove() }
        state.pointee.dispatching = true
        let result = callback(userData)
        // GLib holds the source through its dispatch, even if `body` destroyed it.
        state.pointee.dispatching = false
        if state.pointee.muted {
            state.pointee.muted = false
            if g_source_is_destroyed(source) == 0 {
                g_source_modify_unix_fd(source, state.pointee.tag, GIOCondition(rawValue: state.pointee.condition))
            }
        }
        return result
    },
    finalize: nil, closure_callback: nil, closure_marshal: nil)
