import BatonLoop
import CGtk

/// What a GTK input controller's signal carried, for `GtkInputBox`'s body.
enum GtkInputSignal {
    /// `key-pressed` / `key-released`: the key value, the hardware keycode, the modifiers.
    case key(keyval: UInt32, keycode: UInt32, state: GdkModifierType)
    /// `modifiers`: the new modifier state.
    case modifiers(GdkModifierType)
    /// `pressed` / `released` of a click gesture: the press count and where, in the widget.
    case click(count: Int32, x: Double, y: Double)
    /// `motion` / `enter` (where, in the widget) or `scroll` (the deltas).
    case point(x: Double, y: Double)
    /// `leave`.
    case none
}

/// The box an input signal handler carries: the Swift body, given the controller and the
/// signal's values, counted in `LoopDiagnostics.liveCallbackBoxes` until GTK drops the handler
/// (its controller finalised with the widget) and releases it through `CallbackBox.closureNotify`.
final class GtkInputBox: CallbackBox, @unchecked Sendable {
    let body: @MainActor (UnsafeMutableRawPointer?, GtkInputSignal) -> Bool
    init(_ body: @escaping @MainActor (UnsafeMutableRawPointer?, GtkInputSignal) -> Bool) { self.body = body }

    /// Runs the body of the box `userData` on the main actor, after checking that GTK called on
    /// the loop's thread; GTK's `gboolean` for the signals that return one.
    static func call(_ userData: UnsafeMutableRawPointer?, _ controller: UnsafeMutableRawPointer?,
                     _ signal: GtkInputSignal) -> gboolean {
        guard let userData else { return 0 }
        MainThreadRules.requireLoopThread("a GTK input signal handler")
        let box = borrow(userData)
        nonisolated(unsafe) let controller = controller
        return MainActor.assumeIsolated { box.body(controller, signal) } ? 1 : 0
    }

    /// Connects `body` to `signal` of `controller` with the trampoline of the signal's C type.
    @MainActor
    static func connect(_ controller: UnsafeMutableRawPointer, _ signal: String, _ trampoline: GCallback,
                        _ body: @escaping @MainActor (UnsafeMutableRawPointer?, GtkInputSignal) -> Bool) {
        _ = baton_gtk_connect(controller, signal, trampoline, GtkInputBox(body).retainedOpaque(), CallbackBox.closureNotify)
    }
}

/// The C handler types of GTK 4's input signals, each calling `GtkInputBox.call`.
enum GtkInputTrampoline {
    /// `gboolean key_pressed(GtkEventControllerKey *, guint keyval, guint keycode, GdkModifierType, gpointer)`.
    static let keyPressed = unsafeBitCast(
        { controller, keyval, keycode, state, userData in
            GtkInputBox.call(userData, controller, .key(keyval: keyval, keycode: keycode, state: state))
        } as @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean,
        to: GCallback.self)

    /// `void key_released(GtkEventControllerKey *, guint keyval, guint keycode, GdkModifierType, gpointer)`.
    static let keyReleased = unsafeBitCast(
        { controller, keyval, keycode, state, userData in
            _ = GtkInputBox.call(userData, controller, .key(keyval: keyval, keycode: keycode, state: state))
        } as @convention(c) (UnsafeMutableRawPointer?, guint, guint, GdkModifierType, UnsafeMutableRawPointer?) -> Void,
        to: GCallback.self)

    /// `gboolean modifiers(GtkEventControllerKey *, GdkModifierType, gpointer)`.
    static let modifiers = unsafeBitCast(
        { controller, state, userData in GtkInputBox.call(userData, controller, .modifiers(state)) }
            as @convention(c) (UnsafeMutableRawPointer?, GdkModifierType, UnsafeMutableRawPointer?) -> gboolean,
        to: GCallback.self)

    /// `void pressed(GtkGestureClick *, gint n_press, gdouble x, gdouble y, gpointer)` (and `released`).
    static let click = unsafeBitCast(
        { controller, count, x, y, userData in _ = GtkInputBox.call(userData, controller, .click(count: count, x: x, y: y)) }
            as @convention(c) (UnsafeMutableRawPointer?, gint, gdouble, gdouble, UnsafeMutableRawPointer?) -> Void,
        to: GCallback.self)

    /// `void motion(GtkEventControllerMotion *, gdouble x, gdouble y, gpointer)` (and `enter`).
    static let point = unsafeBitCast(
        { controller, x, y, userData in _ = GtkInputBox.call(userData, controller, .point(x: x, y: y)) }
            as @convention(c) (UnsafeMutableRawPointer?, gdouble, gdouble, UnsafeMutableRawPointer?) -> Void,
        to: GCallback.self)

    /// `gboolean scroll(GtkEventControllerScroll *, gdouble dx, gdouble dy, gpointer)`.
    static let scroll = unsafeBitCast(
        { controller, dx, dy, userData in GtkInputBox.call(userData, controller, .point(x: dx, y: dy)) }
            as @convention(c) (UnsafeMutableRawPointer?, gdouble, gdouble, UnsafeMutableRawPointer?) -> gboolean,
        to: GCallback.self)

    /// `void leave(GtkEventControllerMotion *, gpointer)`.
    static let leave = unsafeBitCast(
        { controller, userData in _ = GtkInputBox.call(userData, controller, .none) }
            as @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void,
        to: GCallback.self)
}
