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

    /// Queues `job` on the main queue, to run on the loop thread with this executor preferred.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
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
