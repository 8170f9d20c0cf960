import Dispatch

/// Where a task resumed by a loop callback runs until it is back on its actor: the main queue,
/// which the loop drains on the main thread.
///
/// A continuation resumes its task on the generic executor (the Swift runtime ignores where
/// the task was suspended), so a main-actor task resumed from a GLib callback would first wake
/// a thread of Swift's global pool, which then hands it back to the main queue: two thread
/// switches per `await` on a GIO call, 40–75 µs on a 2-core machine. While a task waits in
/// `withLoopContinuation` this executor is preferred, so the resumed task is queued on the main
/// queue instead; the loop thread runs it there, and its hop back onto the main actor is taken
/// in the same drain of the main queue (`MainQueueBridge`): the task never leaves the loop
/// thread.
public final class LoopTaskExecutor: TaskExecutor, @unchecked Sendable {
    /// The one executor: the main queue.
    public static let shared = LoopTaskExecutor()

    private init() {}

    /// Queues `job` to run on the loop thread with this executor preferred: on the main actor's
    /// GLib source where it is the main actor's executor (`MainLoop.mainActorExecutor`), so the
    /// task's hop back onto the main actor is taken in the same dispatch; else on the main
    /// queue, whose drain takes that hop too.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        #if compiler(>=6.3)
        if MainLoopExecutor.isInstalled { return MainLoopExecutor.shared.enqueue(job, on: executor) }
        #endif
        DispatchQueue.main.async { job.runSynchronously(on: executor) }
    }
}

/// `withCheckedContinuation` for a continuation that a loop callback resumes: the task
/// continues on the loop thread instead of waking a thread of Swift's global pool first
/// (`LoopTaskExecutor`).
@MainActor
public func withLoopContinuation<T: Sendable>(_ body: (CheckedContinuation<T, Never>) -> Void) async -> T {
    // The closures are explicitly on the main actor: a closure that is not would make the
    // task leave it (for the preferred executor) on the way in.
    await withTaskExecutorPreference(LoopTaskExecutor.shared) { @MainActor in
        await withCheckedContinuation { @MainActor in body($0) }
    }
}

/// `withCheckedThrowingContinuation` for a continuation that a loop callback resumes (see
/// `withLoopContinuation`); `onCancel` runs (on any thread) if the task is cancelled while it
/// waits, as `withTaskCancellationHandler`'s does.
@MainActor
public func withThrowingLoopContinuation<T: Sendable>(onCancel: @escaping @Sendable () -> Void = {},
                                                      _ body: (CheckedContinuation<T, any Error>) -> Void) async throws -> T {
    try await withTaskExecutorPreference(LoopTaskExecutor.shared) { @MainActor in
        try await withTaskCancellationHandler(operation: { @MainActor in
            try await withCheckedThrowingContinuation { @MainActor in body($0) }
        }, onCancel: onCancel)
    }
}

extension Task where Failure == Never {
    /// `value`, waited for on the loop: when the task ends, the waiting task resumes on the loop
    /// thread (see `withLoopContinuation`) instead of first on a thread of Swift's pool, which
    /// `await task.value` would wake (and with it libdispatch's once-a-second pool monitor, for
    /// the rest of the process's life).
    @MainActor
    public func loopValue() async -> Success {
        await withTaskExecutorPreference(LoopTaskExecutor.shared) { @MainActor in await value }
    }
}

extension Task where Failure == any Error {
    /// `value`, waited for on the loop (see `Task<_, Never>.loopValue()`).
    @MainActor
    public func loopValue() async throws -> Success {
        try await withTaskExecutorPreference(LoopTaskExecutor.shared) { @MainActor in try await value }
    }
}

/// Waits `duration` on a loop timer, or until the task is cancelled: `Task.sleep` without
/// Swift's pool, whose timers libdispatch runs on a thread of its own.
@MainActor
public func loopSleep(for duration: Duration) async {
    let wait = LoopSleep()
    await withTaskCancellationHandler(operation: { @MainActor in
        await withLoopContinuation { (resume: CheckedContinuation<Void, Never>) in
            wait.start(duration, resume)
        }
    }, onCancel: {
        DispatchQueue.main.async { MainActor.assumeIsolated { wait.end() } }
    })
}

/// One `loopSleep`: it ends once, by its timer or by cancellation.
@MainActor
private final class LoopSleep: Sendable {
    private var resume: CheckedContinuation<Void, Never>?
    private var timer: LoopSource?
    private var ended = false

    func start(_ duration: Duration, _ resume: CheckedContinuation<Void, Never>) {
        self.resume = resume
        if ended { return end() }  // cancelled before it started
        timer = MainLoop.after(duration) { [weak self] in self?.end() }
    }

    func end() {
        ended = true
        timer?.cancel()
        timer = nil
        resume?.resume()
        resume = nil
    }
}
