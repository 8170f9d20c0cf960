import BatonLoop
import CGtk

/// The box a GTK signal handler carries: the Swift body, given the handler's first two
/// arguments after the instance (nil where the signal has fewer), counted in
/// `LoopDiagnostics.liveCallbackBoxes` until GTK drops the handler (disconnected, or its object
/// finalised) and releases it through `CallbackBox.closureNotify`.
final class GtkSignalBox: CallbackBox, @unchecked Sendable {
    let body: @MainActor (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Bool
    init(_ body: @escaping @MainActor (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Bool) { self.body = body }

    /// Runs the body of the box `userData` on the main actor, after checking that GTK called
    /// on the loop's thread.
    static func call(_ userData: UnsafeMutableRawPointer?, _ first: UnsafeMutableRawPointer?,
                     _ second: UnsafeMutableRawPointer?) -> gboolean {
        guard let userData else { return 0 }
        MainThreadRules.requireLoopThread("a GTK signal handler")
        let box = borrow(userData)
        let (first, second) = (UInt(bitPattern: first), UInt(bitPattern: second))
        return MainActor.assumeIsolated {
            box.body(UnsafeMutableRawPointer(bitPattern: first), UnsafeMutableRawPointer(bitPattern: second))
        } ? 1 : 0
    }
}

/// GObject signal handlers as Swift closures on the main actor: what `g_signal_connect` is to
/// C. GTK emits signals on the thread that runs its loop, which is Baton's main loop, so each
/// body runs on the main actor; a handler called on another thread stops the program with a
/// message (`MainThreadRules.requireLoopThread`).
///
/// Each form returns the handler id for `g_signal_handler_disconnect`. The closure is released
/// when the handler is disconnected or its object finalised, and not before: connect to an
/// object that lives no longer than what the closure needs, or disconnect it, and capture
/// `self` weakly when the object is the closure's owner's.
///
/// Pick the form by the signal's C handler type, as `g_signal_connect`'s callback must match it:
/// - `void handler(instance, gpointer)`: `connect(_:_:_:)` (`destroy`, `changed`, `realize`);
///   `once(_:_:_:)` for the next emission only.
/// - `gboolean handler(instance, gpointer)`: `connectReturningBool(_:_:_:)` (`close-request`).
/// - `void handler(instance, gpointer argument, gpointer)`: `connect(_:_:withArgument:)`
///   (`notify::…` with the param spec, `activate` of a `GSimpleAction`, `row-activated`).
/// - `void handler(instance, gpointer first, gpointer second, gpointer)`:
///   `connect(_:_:withArguments:)` (`mark-set`: the iterator and the mark).
@MainActor
public enum GtkSignal {
    /// Connects `body` to `signal` of `instance`, a signal whose handler takes only the
    /// instance and returns nothing (`destroy`); returns the handler id.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String,
                               _ body: @escaping @MainActor () -> Void) -> gulong {
        connect(instance, signal, voidTrampoline) { _, _ in body(); return false }
    }

    /// Connects `body` to a signal whose handler takes only the instance and returns a
    /// `gboolean`, which `body` returns (`close-request`: true stops the default handler);
    /// returns the handler id.
    @discardableResult
    public static func connectReturningBool(_ instance: UnsafeMutableRawPointer, _ signal: String,
                                            _ body: @escaping @MainActor () -> Bool) -> gulong {
        connect(instance, signal, boolTrampoline) { _, _ in body() }
    }

    /// Connects `body` to a signal whose handler takes one pointer argument after the instance
    /// and returns nothing; `body` gets the argument (`row-activated` the row, `notify::…` the
    /// param spec). Returns the handler id.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String,
                               withArgument body: @escaping @MainActor (UnsafeMutableRawPointer?) -> Void) -> gulong {
        connect(instance, signal, argumentTrampoline) { argument, _ in body(argument); return false }
    }

    /// Connects `body` to a signal whose handler takes two pointer arguments after the instance
    /// and returns nothing; `body` gets both (`mark-set`: the iterator, then the mark). Returns
    /// the handler id.
    @discardableResult
    public static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String,
                               withArguments body: @escaping @MainActor (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void) -> gulong {
        connect(instance, signal, twoArgumentTrampoline) { first, second in body(first, second); return false }
    }

    /// Connects `body` to the next emission only of `signal`, a signal whose handler takes only
    /// the instance and returns nothing (a frame clock's `after-paint`, `realize`): the handler
    /// disconnects itself, releasing the closure, before `body` runs. Returns the handler id,
    /// to disconnect it if the signal may never come.
    @discardableResult
    public static func once(_ instance: UnsafeMutableRawPointer, _ signal: String,
                            _ body: @escaping @MainActor () -> Void) -> gulong {
        final class HandlerID { var value: gulong = 0 }
        let id = HandlerID()
        id.value = connect(instance, signal) {
            g_signal_handler_disconnect(instance, id.value)
            body()
        }
        return id.value
    }

    private static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String, _ trampoline: GCallback,
                                _ body: @escaping @MainActor (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Bool) -> gulong {
        baton_gtk_connect(instance, signal, trampoline, GtkSignalBox(body).retainedOpaque(), CallbackBox.closureNotify)
    }
}

/// `void handler(GObject *, gpointer)`.
private let voidTrampoline = unsafeBitCast(
    { _, userData in _ = GtkSignalBox.call(userData, nil, nil) }
        as @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void, to: GCallback.self)

/// `gboolean handler(GObject *, gpointer)`.
private let boolTrampoline = unsafeBitCast(
    { _, userData in GtkSignalBox.call(userData, nil, nil) }
        as @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean, to: GCallback.self)

/// `void handler(GObject *, gpointer argument, gpointer)`.
private let argumentTrampoline = unsafeBitCast(
    { _, argument, userData in _ = GtkSignalBox.call(userData, argument, nil) }
        as @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void,
    to: GCallback.self)

/// `void handler(GObject *, gpointer first, gpointer second, gpointer)`.
private let twoArgumentTrampoline = unsafeBitCast(
    { _, first, second, userData in _ = GtkSignalBox.call(userData, first, second) }
        as @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void,
    to: GCallback.self)
