import BatonLoop
import BatonTestSupport
import CGLib

/// A host's own loop, as a service that embeds Baton runs it: a `GMainContext` of its own,
/// iterated by its own `GMainLoop` on the main thread. The host never makes it the thread's
/// default context, and never runs GLib's global default context.
final class HostLoop: Sendable {
    let context = LoopContext()
    private let loop: GMainLoopHandle

    init() { loop = GMainLoopHandle(g_main_loop_new(context.gContext, 0)!) }

    /// Ends `run(limit:)`; from any thread (`g_main_loop_quit` is thread-safe).
    func quit() { g_main_loop_quit(loop.pointer) }

    /// Runs the loop until `quit()`, or for `limit` at most; true if `quit()` ended it.
    func run(limit: Duration) -> Bool {
        let timedOut = LockedFlag()
        let deadline = context.after(limit) { [self] in
            timedOut.set(true)
            quit()
        }
        g_main_loop_run(loop.pointer)
        deadline.cancel()
        return !timedOut.value
    }
}

/// A `GMainLoop *`, owned: GLib's main loop objects may be quit from any thread.
private final class GMainLoopHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { g_main_loop_unref(pointer) }
}

/// An idle source on GLib's global default context: it runs on that context's first
/// iteration, so `iterated` says whether anything iterated it while the canary was there.
final class DefaultContextCanary {
    private let ran = LockedFlag()
    private let source: LoopSource

    init() { source = LoopContext.default.idle { [ran] in ran.set(true) } }

    var iterated: Bool { ran.value }

    func remove() { source.cancel() }
}
