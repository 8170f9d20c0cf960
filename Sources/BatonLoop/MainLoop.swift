import CGLib
import Synchronization

/// The main thread's GLib loop: the app's run loop, on which Swift's main actor runs.
///
/// While it runs, `Task { @MainActor in }`, `await` resuming on the main actor,
/// `DispatchQueue.main.async` and the `@MainActor` closures scheduled here all run on the main
/// thread between GLib events. By default it is GLib's default context; a host that iterates a
/// context of its own on the main thread hands it over with `embed(in:)`.
///
/// Every GLib and GIO operation Baton starts, and every source it attaches, goes to `context`
/// and starts on the main actor: `MainLoop`'s closures, `GIOAsync.call` (which makes `context`
/// the thread-default context while it starts an operation, so GIO calls back through it), and
/// `withThreadDefaultContext(_:)` for the rest (GDBus subscriptions and exported objects, a
/// libsoup session).
@MainActor
public enum MainLoop {
    /// The context the main actor and `MainLoop`'s closures run on: GLib's default context, or
    /// the one given to `embed(in:)`. Readable from any thread.
    nonisolated public static var context: LoopContext { current.withLock { $0 } }

    nonisolated private static let current = Mutex<LoopContext>(.default)
    private static var bridge: MainQueueBridge?
    private static var running: [OpaquePointer] = []  // GMainLoop *, innermost last

    /// True while `run()` is running (at any depth).
    public static var isRunning: Bool { !running.isEmpty }

    /// True while the loop's context is known to be iterated on the main thread: inside `run()`
    /// or `run(until:timeout:)`, while a host iterates a context of its own after
    /// `embed(in:)`, and inside `runHosted(_:)` (BatonGtk's `GtkApplicationMain` runs
    /// `g_application_run` in it). While it is true, a main-actor job queued from another
    /// thread wakes the context directly, and is not offered to libdispatch's main queue as
    /// well, as under `Application.run`.
    public static var isIterated: Bool { iterations.load(ordering: .relaxed) > 0 }

    /// How many of the runs `isIterated` counts are under way: the one count of them, which the
    /// main actor's executor also reads, from any thread, to choose how a job wakes the loop.
    nonisolated static let iterations = Atomic<Int>(0)

    /// Runs `body`, in which a host iterates `context` on the main thread itself until `body`
    /// returns — `g_application_run`, or a `g_main_loop_run` of its own — and returns what it
    /// returns. Meanwhile the loop counts as iterated (`isIterated`), so the main actor's
    /// executor treats the host's iteration as `run()`'s: a job queued from another thread
    /// wakes the context at once, rather than also going through libdispatch's main queue.
    /// `isRunning` stays false and `quit()` does nothing: the host's loop is the host's to end.
    ///
    /// Call it on the main thread, with `context` as the context `body` iterates (GLib's
    /// default context unless `embed(in:)` gave another); it may nest.
    public static func runHosted<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        MainThreadRules.requireLoopThread("MainLoop.runHosted(_:)")
        loopStarts()
        defer { loopEnds() }
        return try body()
    }

    /// Makes `context` the one that runs the main actor, for a host that iterates it on the
    /// main thread itself (its own `g_main_loop_run`, say) and never calls `run()`.
    ///
    /// Call it first, before anything of Baton's schedules work (`Application.shared`, a
    /// `ContinuityNode`): a source attached earlier stays on the context it was attached to
    /// (except the main actor's own source and `idle(priority:_:)`'s one-shots, which move).
    /// From then on every source Baton attaches, every GIO and GDBus callback, and the main
    /// actor itself come through `context`.
    ///
    /// It also makes `context` the main thread's thread-default context
    /// (`g_main_context_push_thread_default`), until the next `embed(in:)`: libraries that start
    /// operations of their own from a callback (libsoup from its queue, for one) attach them to
    /// the thread-default context current at that moment, and only GTask's callbacks push their
    /// context themselves. The host need not do it; a host that pushes a context of its own on
    /// the main thread pops it again before it next iterates `context`, and before calling
    /// `embed(in:)` again. The host iterates `context` on the main thread only, and keeps
    /// iterating it; GLib's global default context is then never needed.
    public static func embed(in context: LoopContext) {
        precondition(running.isEmpty, "Baton: MainLoop.embed(in:) while the loop is running")
        bridge?.remove()
        if let pushed = pushedThreadDefault {
            g_main_context_pop_thread_default(pushed.gContext)
            pushedThreadDefault = nil
        }
        // GLib's default context is the thread-default when none is pushed.
        if context.gContext != g_main_context_default() {
            precondition(g_main_context_acquire(context.gContext) != 0,
                         "Baton: MainLoop.embed(in:) with a context another thread is iterating")
            g_main_context_push_thread_default(context.gContext)
            g_main_context_release(context.gContext)  // the push holds its own acquisition
            pushedThreadDefault = context
        }
        current.withLock { $0 = context }
        bridge = nil
        installMainActorSource()
        let hostContext = context.gContext != g_main_context_default()
        if hostContext != hostIterates {
            hostIterates = hostContext
            if hostContext { loopStarts() } else { loopEnds() }
        }
        for pool in idlePools.values { pool.attach(to: context) }
    }

    /// The context `embed(in:)` pushed as the main thread's thread-default context, if any.
    private static var pushedThreadDefault: LoopContext?

    /// Runs `body` with `context` as the main thread's thread-default context
    /// (`g_main_context_push_thread_default`, popped when `body` returns).
    ///
    /// GLib attaches what a call starts to the thread-default context of the calling thread: an
    /// async call's result, a GDBus connection's `closed` signal (at construction), a signal
    /// subscription's and an exported object's callbacks (at subscription and registration), a
    /// libsoup session (at creation). Inside `body` they attach to the loop the app runs, even
    /// if the host has pushed another context as the thread's default since `embed(in:)`.
    /// `GIOAsync.call` starts every operation this way.
    ///
    /// When the loop's context is already the thread-default one (GLib's default context with
    /// none pushed, or the one `embed(in:)` pushed), `body` just runs: nothing is pushed, so the
    /// context is not acquired. Another thread may hold it for a moment even so — GLib's
    /// `g_main_context_invoke` from a worker with no context of its own acquires the default
    /// context and runs its function there (glib-networking's TLS thread does so to ask
    /// `accept-certificate`) — and pushing would then fail.
    public static func withThreadDefaultContext<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let gContext = context.gContext
        if (g_main_context_get_thread_default() ?? g_main_context_default()) == gContext { return try body() }
        // Acquiring fails only if another thread iterates the context, which the loop forbids.
        precondition(g_main_context_acquire(gContext) != 0,
                     "Baton: another thread owns MainLoop.context; it must be iterated on the main thread only")
        g_main_context_push_thread_default(gContext)
        defer {
            g_main_context_pop_thread_default(gContext)
            g_main_context_release(gContext)
        }
        return try body()
    }

    /// Runs the loop on the calling (main) thread until `quit()`.
    public static func run() {
        if running.isEmpty { MainThreadRules.requireSynchronousMain("MainLoop.run()") }
        installBridgeIfNeeded()
        let loop = g_main_loop_new(context.gContext, 0)!
        running.append(loop)
        loopStarts()
        g_main_loop_run(loop)
        loopEnds()
        running.removeLast()
        g_main_loop_unref(loop)
    }

    /// Ends the innermost `run()`.
    public static func quit() {
        if let loop = running.last { g_main_loop_quit(loop) }
    }

    /// Iterates the loop until `condition` holds or `timeout` passes; returns `condition()`.
    ///
    /// For tests and modal waits. It blocks between events and wakes only for sources that
    /// fire, never to poll. Called from a main-actor job or a `DispatchQueue.main` block, it
    /// runs no other of either until that one returns (one GLib source runs them, and GLib does
    /// not re-enter a dispatching source), as with CFRunLoop and the main queue.
    @discardableResult
    public static func run(until condition: () -> Bool, timeout: Duration) -> Bool {
        installBridgeIfNeeded()
        var timedOut = false
        let timer = context.attach(g_timeout_source_new(timeout.glibMilliseconds), priority: .default) {
            MainActor.assumeIsolated { timedOut = true }
            return .stop
        }
        defer { timer.cancel() }
        loopStarts()
        defer { loopEnds() }
        while !condition() && !timedOut {
            context.iterate(mayBlock: true)
        }
        return condition()
    }

    /// Runs `body` once, the next time the loop is idle: when no source of a higher priority
    /// than `priority` is ready, as `g_idle_add` would.
    ///
    /// One-shots of one priority share a GLib source (`IdlePool`), which runs those queued
    /// before each of its dispatches, in order: the cost of a callback, not of a GLib source made
    /// and freed each time.
    @discardableResult
    public static func idle(priority: LoopPriority = .defaultIdle,
                            _ body: @escaping @MainActor () -> Void) -> LoopSource {
        idlePool(priority).add(body)
    }

    /// The pool of `priority`'s one-shots, made (on `context`) the first time.
    private static func idlePool(_ priority: LoopPriority) -> IdlePool {
        if let pool = defaultIdlePool, pool.priority == priority { return pool }
        if let pool = idlePools[priority] { return pool }
        let pool = IdlePool(priority: priority, on: context)
        idlePools[priority] = pool
        if priority == .defaultIdle { defaultIdlePool = pool }
        return pool
    }
    private static var idlePools: [LoopPriority: IdlePool] = [:]
    private static var defaultIdlePool: IdlePool?

    /// Runs `body` once after `delay`.
    @discardableResult
    public static func after(_ delay: Duration, priority: LoopPriority = .default,
                             _ body: @escaping @MainActor () -> Void) -> LoopSource {
        context.attach(g_timeout_source_new(delay.glibMilliseconds), priority: priority,
                       onMainActor { body(); return .stop })
    }

    /// Runs `body` every `interval` until it returns `.stop` or the source is cancelled.
    @discardableResult
    public static func every(_ interval: Duration, priority: LoopPriority = .default,
                             _ body: @escaping @MainActor () -> Repetition) -> LoopSource {
        context.attach(g_timeout_source_new(interval.glibMilliseconds), priority: priority, onMainActor(body))
    }

    /// Runs `body` each time `fd` is readable (or hung up) until it returns `.stop`.
    @discardableResult
    public static func whenReadable(_ fd: Int32, priority: LoopPriority = .default,
                                    _ body: @escaping @MainActor () -> Repetition) -> LoopSource {
        context.attachFD(fd, G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue,
                         priority: priority, onMainActor(body))
    }

    /// Runs `body` each time `fd` is writable until it returns `.stop`.
    @discardableResult
    public static func whenWritable(_ fd: Int32, priority: LoopPriority = .default,
                                    _ body: @escaping @MainActor () -> Repetition) -> LoopSource {
        context.attachFD(fd, G_IO_OUT.rawValue | G_IO_ERR.rawValue, priority: priority, onMainActor(body))
    }

    private static func installBridgeIfNeeded() {
        if !mainActorSourceAttached { installMainActorSource() }
    }

    /// Makes the main actor's jobs come straight to `context` (`MainLoopExecutor`, whose source
    /// drains `DispatchQueue.main` too), or moves its source there; where the toolchain has no
    /// custom main executor, the main queue's bridge runs them.
    private static func installMainActorSource() {
        #if compiler(>=6.3)
        MainLoopExecutor.install(on: context)
        #else
        bridge = MainQueueBridge(on: context)
        #endif
        mainActorSourceAttached = true
    }
    private static var mainActorSourceAttached = false

    /// Counts a run of the context in `iterations`, so the main actor's executor need not offer
    /// its jobs to the main queue too.
    private static func loopStarts() { iterations.add(1, ordering: .relaxed) }
    /// Balances `loopStarts()`.
    private static func loopEnds() { iterations.subtract(1, ordering: .relaxed) }
    /// True while a host iterates a context of its own (`embed(in:)` with another context).
    private static var hostIterates = false

    /// What runs the main actor's jobs (`Task { @MainActor in }`, an `await` resuming on the
    /// main actor) now. Readable from any thread.
    ///
    /// `.glibSource` once `run()`, `run(until:timeout:)` or `embed(in:)` has been called, in a
    /// build with Swift 6.3 or later (its custom main executor); `.dispatchMainQueue` before that,
    /// or with an older toolchain. `DispatchQueue.main.async` always goes through the main queue,
    /// which the loop drains, as do main-actor jobs queued before the first call.
    nonisolated public static var mainActorExecutor: MainActorExecutorKind {
        #if compiler(>=6.3)
        if MainLoopExecutor.isInstalled { return .glibSource }
        #endif
        return .dispatchMainQueue
    }

    /// A GLib callback body that enters the main actor, which it is on: the main context is
    /// iterated on the main thread.
    private static func onMainActor(_ body: @escaping @MainActor () -> Repetition) -> () -> Repetition {
        {
            MainThreadRules.requireLoopThread("a MainLoop source")
            return MainActor.assumeIsolated { body() }
        }
    }
}
