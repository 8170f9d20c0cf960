#if compiler(>=6.3)
@_spi(ExperimentalCustomExecutors) import _Concurrency
import CGLib
import Dispatch
import Synchronization

/// The main actor's executor on the GLib loop: a job enqueued on the main actor goes straight
/// into `MainLoop.context`, through one persistent GLib source, and runs in that source's next
/// dispatch on the main thread.
///
/// One `Task { @MainActor in }` hop is one GLib dispatch: no eventfd written and read, no
/// libdispatch drain. The source is ready while its queue is not empty; each dispatch runs the
/// jobs queued before it began, then those they queued, up to `drainRounds` times (then the
/// loop's other sources get their turn), at `G_PRIORITY_DEFAULT` like `DispatchQueue.main`'s
/// bridge. A job
/// enqueued on the loop thread wakes nothing (the loop is awake); one enqueued from another
/// thread onto an empty queue wakes the context (`g_main_context_wakeup`, a write to GLib's
/// eventfd), and those enqueued after it, before the drain takes them, wake nothing more.
///
/// When nothing of Baton's iterates the context (`MainLoop.isIterated` is false: no
/// `MainLoop.run`, `run(until:)` or `runHosted(_:)`, nor a host context given to
/// `embed(in:)`), a job queued on the main thread inside an iteration of the context (it owns
/// the context: `g_main_context_is_owner`, as under `g_application_run` or a host's
/// `g_main_context_iteration`) is still the source's alone. Others are also offered to
/// libdispatch's main queue, one pending block for all of them, in case the main thread waits
/// in Foundation's run loop (XCTest's waits do); whichever drain comes first runs them.
///
/// Jobs run in the order they were enqueued; their Swift priorities are not used, as the main
/// queue does not use them either (Apple's main actor runs on the main queue, in FIFO order).
/// `Task.sleep` on the main actor keeps working as before: Swift 6.3 hands a sleep to the
/// default executor (libdispatch's timers), not to the sleeping task's, so a main executor's
/// `SchedulingExecutor` conformance is never asked; the woken task comes back through this
/// executor. `loopSleep(for:)` sleeps on a GLib timer instead.
///
/// Like the main queue, the source does not run inside itself: a job that iterates the loop
/// (`MainLoop.run(until:)`) sees other sources run, but no other main-actor job, until it returns.
///
/// The same source watches libdispatch's main-queue eventfd and drains `DispatchQueue.main`
/// (as `MainQueueBridge` does without this executor), so main-queue blocks and main-actor jobs
/// never run inside one another, even when one of them iterates the loop. Main-actor jobs
/// queued before installation went to the main queue, and run from there.
///
/// It becomes the main actor's executor (Swift's `_createExecutors`, the custom main executor of
/// Swift 6.3) when `MainLoop` first runs or embeds.
final class MainLoopExecutor: MainExecutor, @unchecked Sendable {
    /// The process's one instance; Swift holds it as the main executor once installed.
    static let shared = MainLoopExecutor()

    private struct State {
        var jobs: [QueuedJob] = []
        var spare: [QueuedJob] = []  // an emptied batch, kept for its capacity
        var context: LoopContext?  // the context the source is attached to
        var source: AttachedSource?
    }

    /// The source's pointer, owned (one reference); touched on the main thread only.
    private struct AttachedSource: @unchecked Sendable { let pointer: UnsafeMutablePointer<GSource> }
    private let state = Mutex(State())

    /// A job, and the task executor it runs on when it is not the main actor's
    /// (`LoopTaskExecutor`'s resumptions).
    private struct QueuedJob {
        let job: UnownedJob
        let taskExecutor: UnownedTaskExecutor?
    }

    /// How many times one dispatch takes the jobs queued so far: a job a job queues (a task
    /// resumed on the loop hopping onto the main actor, a chain of tasks) runs in the same
    /// dispatch, up to this many rounds; then the loop's other sources run.
    static let drainRounds = 64

    private init() {}

    // MARK: Installing

    private static let installed = Atomic<Bool>(false)

    /// True once this executor is Swift's main executor.
    static var isInstalled: Bool { installed.load(ordering: .acquiring) }

    /// Makes this executor the main actor's (once per process) and attaches its source to
    /// `context`, moving it there from the context it was on. Main thread only.
    static func install(on context: LoopContext) {
        if !installed.load(ordering: .acquiring) {
            _createExecutors(factory: MainLoopExecutorFactory.self)
            installed.store(true, ordering: .releasing)
        }
        shared.attach(to: context)
    }

    private func attach(to context: LoopContext) {
        let fresh = g_source_new(&mainExecutorSourceFuncs, guint(MemoryLayout<ExecutorSourceLayout>.size))!
        let fd = MainQueueBridge.fd
        fresh.withMemoryRebound(to: ExecutorSourceLayout.self, capacity: 1) {
            $0.pointee.executor = Unmanaged.passUnretained(self).toOpaque()
            $0.pointee.mainQueueTag = g_source_add_unix_fd(fresh, fd, G_IO_IN)
            $0.pointee.mainQueueFD = fd
            $0.pointee.dispatching = false
            $0.pointee.mainQueueMuted = false
        }
        // GLib takes a source that may not recurse out of the poll set around each dispatch and
        // puts it back after (`block_source`), and each of those writes the context's wake-up
        // eventfd: two writes, then a read and a poll that find nothing, every dispatch. This
        // source keeps its fd in the poll set instead, and keeps itself from running inside
        // itself (see `mainExecutorSourceFuncs`).
        g_source_set_can_recurse(fresh, 1)
        g_source_set_priority(fresh, G_PRIORITY_DEFAULT)
        g_source_set_name(fresh, "Baton main actor")
        g_source_attach(fresh, context.gContext)
        let old = state.withLock { state in
            defer { state.source = AttachedSource(pointer: fresh); state.context = context }
            return state.source
        }
        if let old {
            g_source_destroy(old.pointer)
            g_source_unref(old.pointer)
        }
        MainQueueBridge.signal(fd)
    }

    /// The source attached now, for the tests: nil before installation.
    var attachedContext: OpaquePointer? { state.withLock { $0.context?.gContext } }

    // MARK: Executor

    /// Queues `job` to run in the source's next dispatch on the main thread.
    func enqueue(_ job: consuming ExecutorJob) {
        enqueue(QueuedJob(job: UnownedJob(job), taskExecutor: nil))
    }

    /// Queues `job` to run on `taskExecutor`, on the main thread, in the source's next dispatch.
    func enqueue(_ job: UnownedJob, on taskExecutor: UnownedTaskExecutor) {
        enqueue(QueuedJob(job: job, taskExecutor: taskExecutor))
    }

    private func enqueue(_ queued: QueuedJob) {
        let onLoopThread = baton_is_initial_thread() != 0
        // Only the job that makes the queue non-empty needs to wake anything: the ones after it
        // find the wake-up (or the drain) it started still pending, as libdispatch's main queue
        // signals only when it goes from empty to not empty.
        let (wasEmpty, context) = state.withLock { state in
            defer { state.jobs.append(queued) }
            return (state.jobs.isEmpty, state.context)
        }
        if MainLoop.iterations.load(ordering: .relaxed) > 0 || (onLoopThread && isOwnedByThisThread(context)) {
            // The context is iterated: on the loop thread, which is awake (it is running this),
            // nothing needs waking; from another thread, the first job wakes the context.
            if !onLoopThread && wasEmpty, let context {
                crossThreadWakes.add(1, ordering: .relaxed)
                g_main_context_wakeup(context.gContext)
            }
            return
        }
        // Nothing is known to iterate the context now: the main thread may be waiting in
        // Foundation's run loop (XCTest's async set-up does), which drains only the main queue.
        // The jobs are offered there too, one main-queue block at a time for all of them;
        // whichever drain comes first runs them.
        offerToTheMainQueue()
    }

    /// True when the calling thread owns `context` (`g_main_context_is_owner`): it is inside an
    /// iteration of it (`g_main_context_iteration`), or a run of a loop on it that holds it
    /// throughout (`g_main_loop_run`, `g_application_run`), so the source will dispatch.
    private func isOwnedByThisThread(_ context: LoopContext?) -> Bool {
        guard let context else { return false }
        return g_main_context_is_owner(context.gContext) != 0
    }

    /// How many times a job from another thread woke the context, for the tests.
    let crossThreadWakes = Atomic<Int>(0)

    /// True while a block queued by `offerToTheMainQueue()` has not begun.
    private let offerPending = Atomic<Bool>(false)

    /// True while a block queued by `offerToTheMainQueue()` has not begun, for the tests.
    var offerIsPending: Bool { offerPending.load(ordering: .acquiring) }

    /// How many main-queue blocks `offerToTheMainQueue()` queued, for the tests.
    let mainQueueOffers = Atomic<Int>(0)

    /// Queues one `DispatchQueue.main` block that drains the jobs, unless one is pending.
    private func offerToTheMainQueue() {
        if offerPending.exchange(true, ordering: .acquiringAndReleasing) { return }
        mainQueueOffers.add(1, ordering: .relaxed)
        DispatchQueue.main.async { [self] in
            // Cleared before the drain takes the queue: a job queued after that offers again.
            offerPending.store(false, ordering: .releasing)
            drain()
        }
    }

    /// True while `drain()` runs: a main-queue block that drains inside a job (a run loop
    /// spun inside it) does not run another job inside that one.
    private var draining = false

    /// Runs the jobs queued so far, and those they queue, for up to `drainRounds` rounds;
    /// called by the source's dispatch.
    fileprivate func drain() {
        MainThreadRules.requireLoopThread("the main actor's GLib source")
        if draining { return }
        draining = true
        defer { draining = false }
        let executor = asUnownedSerialExecutor()
        for _ in 0..<Self.drainRounds {
            var batch = state.withLock { state in
                let batch = state.jobs
                state.jobs = state.spare
                state.spare = []
                return batch
            }
            if batch.isEmpty { return }
            for queued in batch {
                if let taskExecutor = queued.taskExecutor {
                    queued.job.runSynchronously(on: taskExecutor)
                } else {
                    queued.job.runSynchronously(on: executor)
                }
            }
            batch.removeAll(keepingCapacity: true)
            state.withLock { state in
                if state.spare.capacity < batch.capacity { state.spare = batch }
            }
        }
    }

    fileprivate var hasJobs: Bool { state.withLock { !$0.jobs.isEmpty } }

    /// The main actor is the main thread's: true there, outside a job too (in a GLib callback).
    func isIsolatingCurrentContext() -> Bool? { baton_is_initial_thread() != 0 }

    /// Traps unless on the main thread, which is where the main actor's isolation holds.
    func checkIsolated() {
        MainThreadRules.requireLoopThread("code that assumed the main actor's isolation")
    }

    /// This is the main actor's executor.
    var isMainExecutor: Bool { true }

    /// Never called by Baton (its programs have a synchronous main and run `MainLoop.run()`);
    /// runs the loop as `MainLoop.run()` does, if Swift's async main asks.
    func run() throws {
        MainActor.assumeIsolated { MainLoop.run() }
    }

    /// Ends the innermost `MainLoop.run()`.
    func stop() {
        MainActor.assumeIsolated { MainLoop.quit() }
    }
}

/// The executors `_createExecutors` installs: ours for the main actor, Swift's own for the rest.
struct MainLoopExecutorFactory: ExecutorFactory {
    static var mainExecutor: any MainExecutor { MainLoopExecutor.shared }
    static var defaultExecutor: any TaskExecutor { PlatformExecutorFactory.defaultExecutor }
}

/// The main executor's GSource: GLib's header, then the (unretained, immortal) executor
/// and libdispatch's main-queue eventfd, watched by the same source; then what its dispatch
/// keeps (main thread only).
private struct ExecutorSourceLayout {
    var source: GSource
    var executor: UnsafeMutableRawPointer?
    var mainQueueTag: gpointer?
    var mainQueueFD: Int32
    /// True while the source's dispatch runs.
    var dispatching: Bool
    /// True while the main queue's fd is out of the poll, because a loop iterated inside the
    /// dispatch found it readable.
    var mainQueueMuted: Bool
}

/// The source's layout; main thread only.
private func layout(of source: UnsafeMutablePointer<GSource>?) -> UnsafeMutablePointer<ExecutorSourceLayout> {
    UnsafeMutableRawPointer(source!).assumingMemoryBound(to: ExecutorSourceLayout.self)
}

private func executor(of source: UnsafeMutablePointer<GSource>?) -> MainLoopExecutor {
    let raw = source!.withMemoryRebound(to: ExecutorSourceLayout.self, capacity: 1) { $0.pointee.executor }
    return Unmanaged<MainLoopExecutor>.fromOpaque(raw!).takeUnretainedValue()
}

/// Ready while the queue holds a job, or when the main queue's eventfd is readable (GLib checks
/// a source's fds itself after `check`).
///
/// The source may recurse as far as GLib knows (so GLib does not take its fd out of the poll
/// around each dispatch, waking the context twice); it does not run inside itself all the same,
/// as a source that may not recurse would not: while it dispatches (a job or block iterating
/// the loop, `MainLoop.run(until:)`), it is not ready for its jobs, and if the nested loop finds
/// the main queue's fd readable, the source takes that fd out of the poll until its outer
/// dispatch ends (two wake-up writes, only then), so the nested loop neither drains the main
/// queue inside the job nor spins on the readable fd.
nonisolated(unsafe) private var mainExecutorSourceFuncs = GSourceFuncs(
    prepare: { source, timeout in
        timeout?.pointee = -1
        return !layout(of: source).pointee.dispatching && executor(of: source).hasJobs ? 1 : 0
    },
    check: { source in !layout(of: source).pointee.dispatching && executor(of: source).hasJobs ? 1 : 0 },
    dispatch: { source, _, _ in
        let state = layout(of: source)
        let (tag, fd) = (state.pointee.mainQueueTag, state.pointee.mainQueueFD)
        if state.pointee.dispatching {
            // Inside its own dispatch: only the main queue's fd can have made it ready.
            if !state.pointee.mainQueueMuted {
                state.pointee.mainQueueMuted = true
                g_source_modify_unix_fd(source, tag, GIOCondition(0))
            }
            return baton_source_continue()
        }
        state.pointee.dispatching = true
        if g_source_query_unix_fd(source, tag).rawValue & G_IO_IN.rawValue != 0 {
            MainThreadRules.requireLoopThread("the main queue's GLib source")
            MainQueueBridge.drain(fd)
        }
        executor(of: source).drain()
        state.pointee.dispatching = false
        if state.pointee.mainQueueMuted {
            state.pointee.mainQueueMuted = false
            g_source_modify_unix_fd(source, tag, G_IO_IN)
        }
        return baton_source_continue()
    },
    finalize: nil, closure_callback: nil, closure_marshal: nil)

#endif
