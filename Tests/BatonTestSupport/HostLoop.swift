import BatonLoop
import CGLib
import HostSupport

/// A host's own loop, as a service that embeds Baton runs it: a `GMainContext` of its own,
/// iterated by its own `GMainLoop` on the main thread. The host never makes it the thread's
/// default context, and never runs GLib's global default context.
public final class HostLoop: Sendable {
    public let context = LoopContext()
    private let loop: GMainLoopHandle

    public init() { loop = GMainLoopHandle(g_main_loop_new(context.gContext, 0)!) }

    /// Ends `run(limit:)`; from any thread (`g_main_loop_quit` is thread-safe).
    public func quit() { g_main_loop_quit(loop.pointer) }

    /// Runs the loop until `quit()`, or for `limit` at most; true if `quit()` ended it.
    public func run(limit: Duration) -> Bool {
        let timedOut = LockedFlag()
        let deadline = context.after(limit) { [self] in
            timedOut.set(true)
            quit()
        }
        g_main_loop_run(loop.pointer)
        deadline.cancel()
        return !timedOut.value
    }

    /// Iterates the context (`g_main_context_iteration`) until `condition` holds, or for
    /// `limit` at most; returns `condition()`. It blocks between events: whatever the condition
    /// waits for must wake the context. The deadline is a bare GLib timeout holding no callback
    /// box, so a condition on `LoopDiagnostics.liveCallbackBoxes` is not thrown off by it.
    public func iterate(until condition: () -> Bool, limit: Duration) -> Bool {
        let (seconds, attoseconds) = limit.components
        let milliseconds = UInt32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        var expired: gboolean = 0
        return withUnsafeMutablePointer(to: &expired) { flag in
            let deadline = g_timeout_source_new(milliseconds)!
            g_source_set_callback(deadline, { flag in
                flag!.assumingMemoryBound(to: gboolean.self).pointee = 1
                return baton_source_remove()
            }, flag, nil)
            g_source_attach(deadline, context.gContext)
            defer {
                g_source_destroy(deadline)
                g_source_unref(deadline)
            }
            while !condition() && flag.pointee == 0 { context.iterate(mayBlock: true) }
            return condition()
        }
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
public final class DefaultContextCanary {
    private let ran = LockedFlag()
    private let source: LoopSource

    public init() { source = LoopContext.default.idle { [ran] in ran.set(true) } }

    public var iterated: Bool { ran.value }

    public func remove() { source.cancel() }
}
