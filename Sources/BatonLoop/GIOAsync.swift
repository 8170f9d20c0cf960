import CGLib

/// GIO's asynchronous calls (`…_async` + `…_finish`) as Swift `async throws` functions.
///
/// The operation gets a `GCancellable` that Swift task cancellation cancels; a cancelled
/// operation throws `CancellationError`. Any other `GError` throws `GLibError`. GIO calls
/// back in the thread-default main context of the thread that started the call, so call
/// from the main actor to be resumed through the main loop.
public enum GIOAsync {
    /// The `GAsyncResult *` and the finish function's `GError **` out-parameter.
    public typealias Finish<T> = (_ result: OpaquePointer, _ error: UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T?

    /// Starts a GIO call and waits for its result.
    ///
    /// - Parameters:
    ///   - start: calls the `…_async` function with the cancellable, callback and user data
    ///     it is given.
    ///   - finish: calls the matching `…_finish` function; returns nil and sets the error on
    ///     failure. Called exactly once, in the GIO callback.
    public static func call<T: Sendable>(
        _ start: (_ cancellable: UnsafeMutablePointer<GCancellable>, _ callback: GAsyncReadyCallback,
                  _ userData: gpointer) -> Void,
        finish: @escaping Finish<T>
    ) async throws -> T {
        let cancellable = Cancellable()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let box = AsyncCallBox(finish: finish, continuation: continuation)
                start(cancellable.pointer, asyncReadyTrampoline, box.retainedOpaque())
            }
        } onCancel: {
            cancellable.cancel()
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
    let complete: (OpaquePointer) -> Void

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

/// The `GAsyncReadyCallback`: GIO calls it once, so it also releases the box.
let asyncReadyTrampoline: GAsyncReadyCallback = { _, result, userData in
    let box = AsyncCallBox.borrow(userData!)
    box.complete(result!)
    CallbackBox.release(userData!)
}
