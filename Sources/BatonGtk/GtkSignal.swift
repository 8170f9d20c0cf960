import BatonLoop
import CGtk

/// The box a GTK signal handler carries: the Swift body, counted in
/// `LoopDiagnostics.liveCallbackBoxes` until GTK drops the handler (disconnected, or its object
/// finalised) and releases it through `CallbackBox.closureNotify`.
final class GtkSignalBox: CallbackBox, @unchecked Sendable {
    let body: @MainActor () -> Bool
    init(_ body: @escaping @MainActor () -> Bool) { self.body = body }
}

/// Connecting GTK signals to Swift bodies, on the main thread (GTK calls back on it).
@MainActor
enum GtkSignal {
    /// Connects `body` to `signal` of `instance`, a signal whose handler takes only the
    /// instance and returns nothing (`destroy`); returns the handler id to disconnect.
    static func connect(_ instance: UnsafeMutableRawPointer, _ signal: String,
                        _ body: @escaping @MainActor () -> Void) -> gulong {
        let box = GtkSignalBox { body(); return false }
        return baton_gtk_connect(instance, signal, unsafeBitCast(voidTrampoline, to: GCallback.self),
                                 box.retainedOpaque(), CallbackBox.closureNotify)
    }

    /// Connects `body` to a signal whose handler returns a `gboolean` and takes only the
    /// instance (`close-request`); returns the handler id.
    static func connectReturningBool(_ instance: UnsafeMutableRawPointer, _ signal: String,
                                     _ body: @escaping @MainActor () -> Bool) -> gulong {
        let box = GtkSignalBox(body)
        return baton_gtk_connect(instance, signal, unsafeBitCast(boolTrampoline, to: GCallback.self),
                                 box.retainedOpaque(), CallbackBox.closureNotify)
    }

    /// Connects `body` to a signal with one pointer argument before the user data
    /// (`notify::…` has the param spec, `activate` of a `GSimpleAction` the parameter).
    static func connectWithArgument(_ instance: UnsafeMutableRawPointer, _ signal: String,
                                    _ body: @escaping @MainActor () -> Void) -> gulong {
        let box = GtkSignalBox { body(); return false }
        return baton_gtk_connect(instance, signal, unsafeBitCast(argumentTrampoline, to: GCallback.self),
                                 box.retainedOpaque(), CallbackBox.closureNotify)
    }
}

/// `void handler(GObject *, gpointer)`.
private let voidTrampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, userData in
    guard let userData else { return }
    let box = GtkSignalBox.borrow(userData)
    _ = MainActor.assumeIsolated { box.body() }
}

/// `gboolean handler(GObject *, gpointer)`.
private let boolTrampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, userData in
    guard let userData else { return 0 }
    let box = GtkSignalBox.borrow(userData)
    return MainActor.assumeIsolated { box.body() } ? 1 : 0
}

/// `void handler(GObject *, gpointer argument, gpointer)`.
private let argumentTrampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void = { _, _, userData in
    guard let userData else { return }
    let box = GtkSignalBox.borrow(userData)
    _ = MainActor.assumeIsolated { box.body() }
}
