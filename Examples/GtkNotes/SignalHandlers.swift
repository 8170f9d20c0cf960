import BatonLoop
import CGtk

/// GObject signal handlers as Swift closures on the main actor, for the few GTK signals
/// GtkNotes listens to. Each handler's closure is released when the handler is disconnected
/// or its object finalized (`CallbackBox.closureNotify`).
@MainActor
enum SignalHandlers {
    /// Connects `body` to `signal` of `object`, a signal whose handler takes only the instance
    /// (`void handler(GObject *, gpointer)`, or one returning a `gboolean`, which `body` returns).
    @discardableResult
    static func connect(_ object: UnsafeMutableRawPointer, _ signal: String, _ body: @escaping @MainActor () -> Bool) -> gulong {
        connect(object, signal, trampoline: unsafeBitCast(instanceTrampoline, to: GCallback.self), SignalBox { _ in body() })
    }

    /// Connects `body` to `signal` of `object`, a signal whose handler takes one argument more
    /// than the instance (a pointer), which `body` gets (`row-activated`, `notify`).
    @discardableResult
    static func connect(_ object: UnsafeMutableRawPointer, _ signal: String,
                        withArgument body: @escaping @MainActor (UnsafeMutableRawPointer?) -> Bool) -> gulong {
        connect(object, signal, trampoline: unsafeBitCast(argumentTrampoline, to: GCallback.self), SignalBox(body))
    }

    /// Connects `body` to `signal` of `object`, a signal whose handler takes two pointer
    /// arguments more than the instance (`mark-set`); `body` gets the second.
    @discardableResult
    static func connect(_ object: UnsafeMutableRawPointer, _ signal: String,
                        withSecondArgument body: @escaping @MainActor (UnsafeMutableRawPointer?) -> Bool) -> gulong {
        connect(object, signal, trampoline: unsafeBitCast(twoArgumentTrampoline, to: GCallback.self), SignalBox(body))
    }

    /// Connects `body` to the next emission of `signal` (a signal whose handler takes only the
    /// instance) only: the handler disconnects itself when it runs.
    static func once(_ object: UnsafeMutableRawPointer, _ signal: String, _ body: @escaping @MainActor () -> Void) {
        final class Handler { var id: gulong = 0 }
        let handler = Handler()
        handler.id = connect(object, signal) {
            g_signal_handler_disconnect(object, handler.id)
            body()
            return false
        }
    }

    private static func connect(_ object: UnsafeMutableRawPointer, _ signal: String, trampoline: GCallback, _ box: SignalBox) -> gulong {
        g_signal_connect_data(object, signal, trampoline, box.retainedOpaque(), CallbackBox.closureNotify, GConnectFlags(0))
    }
}

/// A signal handler's closure.
private final class SignalBox: CallbackBox, @unchecked Sendable {
    let body: @MainActor (UnsafeMutableRawPointer?) -> Bool
    init(_ body: @escaping @MainActor (UnsafeMutableRawPointer?) -> Bool) { self.body = body }

    static func call(_ userData: UnsafeMutableRawPointer?, _ argument: UnsafeMutableRawPointer?) -> gboolean {
        guard let userData else { return 0 }
        MainThreadRules.requireLoopThread("a GTK signal")
        let box = borrow(userData), address = UInt(bitPattern: argument)
        return MainActor.assumeIsolated { box.body(UnsafeMutableRawPointer(bitPattern: address)) } ? 1 : 0
    }
}

private let instanceTrampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, userData in
    SignalBox.call(userData, nil)
}

private let argumentTrampoline: @convention(c) (
    UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?
) -> gboolean = { _, argument, userData in
    SignalBox.call(userData, argument)
}

private let twoArgumentTrampoline: @convention(c) (
    UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?
) -> gboolean = { _, _, second, userData in
    SignalBox.call(userData, second)
}
