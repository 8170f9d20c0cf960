import CGLib

/// A `GMainContext` running on a thread of its own, for hosts that keep GLib work (I/O,
/// timers) off the main thread. Its closures are `@Sendable` and run on that thread; the
/// main actor is still run by whatever runs the main queue (`Application.main()`, a host's
/// context given to `MainLoop.embed(in:)`, or `dispatchMain()`).
public final class LoopThread: Sendable {
    /// The thread's context: schedule work on it with `idle`, `after`, `whenReadable`, ….
    public let context: LoopContext
    private let loop: LoopHandle
    private let thread: ThreadHandle

    /// Starts the thread; its loop runs until `stop()`.
    public init(name: String = "baton-loop") {
        let context = LoopContext()
        let loop = LoopHandle(g_main_loop_new(context.gContext, 0)!)
        self.context = context
        self.loop = loop
        let box = ThreadBox { [context, loop] in
            g_main_context_push_thread_default(context.gContext)
            g_main_loop_run(loop.pointer)
            g_main_context_pop_thread_default(context.gContext)
        }
        thread = ThreadHandle(g_thread_new(name, threadTrampoline, box.retainedOpaque())!)
    }

    /// Quits the loop and waits for the thread to end. Safe to call more than once.
    public func stop() {
        thread.joinOnce {
            // An idle source makes the quit happen on the loop's own thread, after `run` has
            // started; `g_main_loop_quit` alone could come before `g_main_loop_run`.
            context.idle(priority: .high) { [loop] in g_main_loop_quit(loop.pointer) }
        }
    }

    deinit { stop() }
}

private final class LoopHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
    deinit { g_main_loop_unref(pointer) }
}

private final class ThreadHandle: @unchecked Sendable {
    private var thread: UnsafeMutablePointer<GThread>?
    private let lock = Mutex()
    init(_ thread: UnsafeMutablePointer<GThread>) { self.thread = thread }
    /// Runs `beforeJoin` and joins the thread, the first time only.
    func joinOnce(_ beforeJoin: () -> Void) {
        lock.withLock {
            guard let t = thread else { return }
            beforeJoin()
            g_thread_join(t)
            thread = nil
        }
    }
}

private final class Mutex: @unchecked Sendable {
    private var mutex = GMutex()
    func withLock<T>(_ body: () -> T) -> T {
        g_mutex_lock(&mutex); defer { g_mutex_unlock(&mutex) }
        return body()
    }
}

private final class ThreadBox: CallbackBox, @unchecked Sendable {
    let body: @Sendable () -> Void
    init(_ body: @escaping @Sendable () -> Void) { self.body = body }
}

private let threadTrampoline: GThreadFunc = { userData in
    ThreadBox.borrow(userData!).body()
    CallbackBox.release(userData!)
    return nil
}
