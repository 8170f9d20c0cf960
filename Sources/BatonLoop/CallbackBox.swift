import CGLib
import Synchronization

/// Counts every Swift object Baton has handed to GLib as `user_data` and not yet had back.
///
/// Each box is retained when its GLib source or async call is set up and released by GLib's
/// `GDestroyNotify` (or by the async callback, which GLib calls exactly once). After every
/// source is removed and every call finished, the count is back where it started; the tests
/// check exactly that.
public enum LoopDiagnostics {
    static let liveBoxes = Atomic<Int>(0)

    /// Callback boxes currently owned by GLib. A box released on another thread (GDBus
    /// finalises connections on its worker thread) wakes `MainLoop.context`, so a loop that
    /// waits for this count to fall sees the change when it happens.
    public static var liveCallbackBoxes: Int { liveBoxes.load(ordering: .acquiring) }
}

/// Base of the Swift objects handed to GLib as `user_data` (sources, async calls, signal
/// handlers), counted in `LoopDiagnostics.liveCallbackBoxes`.
///
/// Hand GLib `retainedOpaque()` and release it from the matching `GDestroyNotify` /
/// `GClosureNotify` (or the one async callback) with `release(_:)`; in the callback itself,
/// `borrow(_:)` gets the box back without changing its count.
open class CallbackBox: @unchecked Sendable {
    /// A new box, counted in `LoopDiagnostics.liveCallbackBoxes` until it is freed.
    public init() { LoopDiagnostics.liveBoxes.wrappingAdd(1, ordering: .relaxed) }
    deinit {
        LoopDiagnostics.liveBoxes.wrappingSubtract(1, ordering: .releasing)
        if baton_is_initial_thread() == 0 { MainLoop.context.wakeUp() }
    }

    /// Hands a +1 reference to C; `release(_:)` (from the destroy notify) balances it.
    public final func retainedOpaque() -> UnsafeMutableRawPointer {
        Unmanaged.passRetained(self).toOpaque()
    }

    /// The box behind `pointer`, borrowed.
    public static func borrow(_ pointer: UnsafeRawPointer) -> Self {
        Unmanaged<Self>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Balances one `retainedOpaque()`.
    public static func release(_ pointer: UnsafeRawPointer) {
        Unmanaged<CallbackBox>.fromOpaque(pointer).release()
    }

    /// The `GDestroyNotify` that balances `retainedOpaque()` (sources, subscriptions, objects).
    public static let destroyNotify: GDestroyNotify = { userData in
        if let userData { CallbackBox.release(userData) }
    }

    /// The `GClosureNotify` that balances `retainedOpaque()` for a signal handler.
    public static let closureNotify: GClosureNotify = { userData, _ in
        if let userData { CallbackBox.release(userData) }
    }
}
