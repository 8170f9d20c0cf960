import CGLib

/// GIO's asynchronous calls (`…_async` + `…_finish`) as Swift `async throws` functions, started
/// on the app's loop and called back through it.
///
/// GIO delivers an async result to the thread-default main context of the thread that started
/// the call. So `call` is on the main actor, and starts the operation with `MainLoop.context`
/// pushed as the main thread's thread-default context: the result comes back through the loop
/// the app runs — GLib's default context, or the host's after `MainLoop.embed(in:)`, whatever
/// the host made the thread's default — and `finish` runs on the main actor. Code on another
/// actor or none simply awaits it; the start hops to the main actor, so an operation cannot be
/// started on a pool thread, where it would attach to a context that nothing may iterate.
///
/// The operation gets a `GCancellable` that Swift task cancellation cancels; a cancelled
/// operation throws `CancellationError`. Any other `GError` throws `GLibError`. The awaiting
/// task resumes on the loop thread (`withThrowingLoopContinuation`), never through a thread of
/// Swift's global pool.
@MainActor
public enum GIOAsync {
    /// The `GAsyncResult *` and the finish function's `GError **` out-parameter; runs on the
    /// main actor, in the GIO callback.
    public typealias Finish<T> = @MainActor (_ result: OpaquePointer,
                                             _ error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T?

    /// Starts a GIO call on the app's loop and waits for its result.
    ///
    /// - Parameters:
    ///   - start: calls the `…_async` function with the cancellable, callback and user data
    ///     it is given; it runs at once, with `MainLoop.context` as the thread-default context.
    ///   - finish: calls the matching `…_finish` function; returns nil and sets the error on
    ///     failure. Called exactly once, in the GIO callback, on the main thread.
    public static func call<T: Sendable>(
        _ start: (_ cancellable: UnsafeMutablePointer<GCancellable>, _ callback: GAsyncReadyCallback,
                  _ userData: gpointer) -> Void,
        finish: @escaping Finish<T>
    ) async throws -> T {
        let cancellable = Cancellable()
        return try await withThrowingLoopContinuation(onCancel: { cancellable.cancel() }) { continuation in
            let box = AsyncCallBox(finish: finish, continuation: continuation)
            MainLoop.withThreadDefaultContext {
                start(cancellable.pointer, asyncReadyTrampoline, box.retainedOpaque())
            }
        }
    }
}

/// A `GCancellable` owned from Swift (cancelling is thread-safe in GLib).
final class Cancellable: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<GCancellable> = g_cancellable_new()
    deinit { g_object_unref(pointer) }
    func cancel() { g_cancellable_cancel(pointer) }
}

/// What a GIO callback needs to finish the call and resume the awaiting task.
final class AsyncCallBox: CallbackBox, @unchecked Sendable {
    let complete: @MainActor (OpaquePointer) -> Void

    init<T: Sendable>(finish: @escaping GIOAsync.Finish<T>, continuation: CheckedContinuation<T, Error>) {
        complete = { result in
            var error: UnsafeMutablePointer<GError>?
            if let value = finish(result, &error) {
                continuation.resume(returning: value)
            } else if let error {
                let glibError = GLibError(consuming: error)
                continuation.resume(throwing: glibError.isCancellation ? CancellationError() : glibError)
            } else {
                continuation.resume(throwing: GLibError(domain: "baton", code: 0,
                                                        message: "GIO finish returned no value and no error"))
            }
        }
    }
}

/// The `GAsyncReadyCallback`: GIO calls it once, through `MainLoop.context` (where the call was
/// started), so on the main thread; it also releases the box.
let asyncReadyTrampoline: GAsyncReadyCallback = { _, result, userData in
    MainThreadRules.requireLoopThread("a GIO async callback")
    let box = AsyncCallBox.borrow(userData!)
    let ready = ReadyResult(pointer: result!)
    MainActor.assumeIsolated { box.complete(ready.pointer) }
    CallbackBox.release(userData!)
}

/// The `GAsyncResult *` of one callback, handed to the main actor it is already on (checked
/// just before), and used only before the callback returns.
private struct ReadyResult: @unchecked Sendable {
    let pointer: OpaquePointer
}
