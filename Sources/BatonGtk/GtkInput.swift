import Baton
import BatonLoop
import CGtk
import Foundation

/// GTK input of a `WidgetView` as Baton events, sent through `Window.sendEvent(_:)` so that
/// they travel the responder chain as AppKit's do.
///
/// Controllers are added to the view's widget in the bubble phase: a widget that handles a key
/// or a click itself (a `GtkText`, a `GtkTextView` typing, moving the cursor, selecting) keeps
/// it, and only what it leaves arrives here. A `GtkEventControllerKey` makes `keyDown`/`keyUp`
/// (not for a modifier key alone) and `flagsChanged`; a `GtkGestureClick` (every button) the
/// mouse-downs and -ups; a `GtkEventControllerMotion` mouse-moved (dragged while a button is
/// held), entered and exited; a `GtkEventControllerScroll` scroll-wheel events (GTK's deltas
/// negated: AppKit's `deltaY` is positive scrolling up).
///
/// A key-down with Control (`.command`) is offered to the window's views
/// (`performKeyEquivalent(with:)`) and, if none takes it, left to GTK when one of GTK's
/// shortcuts or accelerators on the widget or above matches it (`GtkShortcutMatch`: BatonGtk's
/// actions, the menu bar's, the window's key bindings — the main menu's part of AppKit's
/// key-equivalent path). A Control key nothing takes is a `keyDown` like the others, as in
/// AppKit. Keys go to the first responder (`Window.sendEvent(_:)`), and are consumed only when
/// the view `consumesInput` (a custom view, `DrawingAreaView`): a wrapped GTK widget's keys go
/// on to GTK too.
///
/// Before a pointer event is routed, the views' frames are set from GTK's layout
/// (`GtkViewGeometry`), so that `hitTest(_:)` finds the view under the pointer.
@MainActor
enum GtkInput {
    /// What a view's controllers remember between signals.
    private final class State {
        var keysDown: Set<UInt32> = []
        var lastPoint = CGPoint.zero
    }

    /// Adds the controllers to `view`'s widget; they and their handlers go with the widget.
    static func attach(to view: WidgetView, consumesInput: Bool) {
        let widget = view.widget
        let state = State()
        let key = gtk_event_controller_key_new()!
        gtk_event_controller_set_propagation_phase(key, GTK_PHASE_BUBBLE)
        connect(key, "key-pressed", GtkInputTrampoline.keyPressed) { [weak view] controller, signal in
            guard let view, case let .key(keyval, keycode, modifiers) = signal else { return false }
            return keyPressed(view, keyval, keycode, modifiers, state, consumesInput,
                              gdkEvent: controller.flatMap { gtk_event_controller_get_current_event(OpaquePointer($0)) })
        }
        connect(key, "key-released", GtkInputTrampoline.keyReleased) { [weak view] _, signal in
            guard let view, let window = view.window, case let .key(keyval, keycode, modifiers) = signal else { return false }
            state.keysDown.remove(keyval)
            guard !isModifierKey(keyval),
                  let event = GtkEventTranslation.keyEvent(.keyUp, keyval: keyval, keycode: keycode, state: modifiers,
                                                           isARepeat: false, in: window) else { return false }
            send(event, in: window)
            return false
        }
        connect(key, "modifiers", GtkInputTrampoline.modifiers) { [weak view] _, signal in
            guard let view, let window = view.window, case let .modifiers(modifiers) = signal,
                  let event = GtkEventTranslation.keyEvent(.flagsChanged, keyval: 0, keycode: 0, state: modifiers,
                                                           isARepeat: false, in: window) else { return false }
            send(event, in: window)
            return false
        }
        gtk_widget_add_controller(widget, key)

        let click = gtk_gesture_click_new()!
        gtk_gesture_single_set_button(click, 0)
        let controller = click
        gtk_event_controller_set_propagation_phase(controller, GTK_PHASE_BUBBLE)
        for (signal, pressed) in [("pressed", true), ("released", false)] {
            connect(controller, signal, GtkInputTrampoline.click) { [weak view] gesture, signal in
                guard let view, case let .click(count, x, y) = signal else { return false }
                let button = gtk_gesture_single_get_current_button(OpaquePointer(gesture))
                let modifiers = gtk_event_controller_get_current_event_state(OpaquePointer(gesture))
                state.lastPoint = CGPoint(x: x, y: y)
                route(view, at: state.lastPoint) { location, window in
                    GtkEventTranslation.mouseEvent(pressed: pressed, button: button, location: location,
                                                   state: modifiers, clickCount: Int(count), in: window)
                }
                return false
            }
        }
        gtk_widget_add_controller(widget, controller)

        let motion = gtk_event_controller_motion_new()!
        connect(motion, "motion", GtkInputTrampoline.point) { [weak view] motion, signal in
            guard let view, case let .point(x, y) = signal else { return false }
            let modifiers = gtk_event_controller_get_current_event_state(OpaquePointer(motion))
            state.lastPoint = CGPoint(x: x, y: y)
            route(view, at: state.lastPoint) { location, window in
                if let held = GtkEventTranslation.heldButton(modifiers) {
                    return GtkEventTranslation.mouseEvent(pressed: nil, button: held, location: location, state: modifiers,
                                                          clickCount: 0, in: window)
                }
                return plainMouseEvent(.mouseMoved, at: location, in: window)
            }
            return false
        }
        connect(motion, "enter", GtkInputTrampoline.point) { [weak view] _, signal in
            guard let view, case let .point(x, y) = signal else { return false }
            state.lastPoint = CGPoint(x: x, y: y)
            route(view, at: state.lastPoint) { location, window in plainMouseEvent(.mouseEntered, at: location, in: window) }
            return false
        }
        connect(motion, "leave", GtkInputTrampoline.leave) { [weak view] _, _ in
            guard let view else { return false }
            route(view, at: state.lastPoint) { location, window in plainMouseEvent(.mouseExited, at: location, in: window) }
            return false
        }
        gtk_widget_add_controller(widget, motion)

        let scroll = gtk_event_controller_scroll_new(GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES)!
        connect(scroll, "scroll", GtkInputTrampoline.scroll) { [weak view] _, signal in
            guard let view, case let .point(dx, dy) = signal else { return false }
            route(view, at: state.lastPoint) { location, window in
                Event.scrollEvent(location: location, modifierFlags: [], timestamp: ProcessInfo.processInfo.systemUptime,
                                  windowNumber: window.windowNumber, deltaX: -dx, deltaY: -dy)
            }
            return consumesInput
        }
        gtk_widget_add_controller(widget, scroll)
    }

    private static func connect(_ controller: OpaquePointer, _ signal: String,
                                _ trampoline: GCallback,
                                _ body: @escaping @MainActor (UnsafeMutableRawPointer?, GtkInputSignal) -> Bool) {
        GtkInputBox.connect(UnsafeMutableRawPointer(controller), signal, trampoline, body)
    }

    private static func keyPressed(_ view: WidgetView, _ keyval: UInt32, _ keycode: UInt32, _ modifiers: GdkModifierType,
                                   _ state: State, _ consumesInput: Bool, gdkEvent: OpaquePointer?) -> Bool {
        guard let window = view.window, !isModifierKey(keyval) else { return false }
        let isARepeat = !state.keysDown.insert(keyval).inserted
        guard let event = GtkEventTranslation.keyEvent(.keyDown, keyval: keyval, keycode: keycode, state: modifiers,
                                                       isARepeat: isARepeat, in: window) else { return false }
        if !event.modifierFlags.isDisjoint(with: [.command, .control]) {
            if window.performKeyEquivalent(with: event) { return true }
            // GTK's shortcuts and accelerators (the main menu's part) get it if one matches;
            // otherwise it is a key-down for the first responder, as in AppKit.
            guard let gdkEvent, !GtkShortcutMatch.matches(gdkEvent, from: view.widget) else { return false }
        }
        send(event, in: window)
        return consumesInput
    }

    /// Sends `event` through `window` (`Window.sendEvent(_:)`), then closes the undo group it
    /// opened: AppKit handles each event in a run-loop pass of its own, at whose end the undo
    /// manager closes the group (`groupsByEvent`), but GDK may dispatch the next input event
    /// before Baton's loop is idle, where `UndoManager` otherwise closes it — and two quick
    /// clicks or keys would be undone as one.
    private static func send(_ event: Event, in window: Window) {
        window.sendEvent(event)
        for manager in [window.firstResponder?.undoManager, window.undoManager] {
            if let manager, manager.groupsByEvent, manager.groupingLevel == 1 { manager.endUndoGrouping() }
        }
    }

    /// Shift, Control, Alt, Super, Caps Lock… alone: `flagsChanged`, not `keyDown`.
    private static func isModifierKey(_ keyval: UInt32) -> Bool {
        (0xffe1...0xffee).contains(keyval) || (0xfe01...0xfe0f).contains(keyval)
    }

    /// A mouse-moved, -entered or -exited event.
    private static func plainMouseEvent(_ type: Event.EventType, at location: CGPoint, in window: Window) -> Event? {
        Event.mouseEvent(with: type, location: location, modifierFlags: [], timestamp: ProcessInfo.processInfo.systemUptime,
                         windowNumber: window.windowNumber, context: nil, eventNumber: 0, clickCount: 0, pressure: 0)
    }

    /// Lays the window's views out from GTK, converts `point` (in the view's widget) to the
    /// window's base coordinates, and sends the event `make` builds there.
    private static func route(_ view: WidgetView, at point: CGPoint, _ make: (CGPoint, Window) -> Event?) {
        guard let window = view.window, let root = GtkViewGeometry.root(of: view.widget),
              let location = GtkViewGeometry.baseLocation(of: point, in: view.widget, root: root) else { return }
        GtkViewGeometry.layOut(window, root: root)
        if let event = make(location, window) { send(event, in: window) }
    }
}
