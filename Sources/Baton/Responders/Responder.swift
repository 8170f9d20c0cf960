import Logging

/// An object that can receive actions and take part in the responder chain
/// (AppKit's `NSResponder`).
///
/// The chain's order, and who sets each link, is written in `ResponderChain.swift`.
@MainActor
open class Responder {
    /// Creates a responder with no next responder; on the main thread only, as AppKit requires.
    public init() {
        UIThread.check("\(Self.self).init")
    }

    private weak var storedNextResponder: Responder?

    /// The next object in the responder chain (weak, as in AppKit). The view hierarchy,
    /// windows and the application set it; you may insert your own responders.
    ///
    /// A value whose chain leads back to this responder is refused (`Refusal.responderCycle`,
    /// logged) and the previous value kept: AppKit would loop forever on it.
    ///
    /// Baton walks the chain through UIKit's `next`, whose default returns this property, so
    /// overriding either `nextResponder` (AppKit) or `next` (UIKit) changes the chain.
    open var nextResponder: Responder? {
        get { storedNextResponder }
        set {
            if let newValue, newValue.chainReaches(self) {
                Refusal.responderCycle(responder: responderDescription,
                                       proposedNext: newValue.responderDescription).log()
                return
            }
            storedNextResponder = newValue
        }
    }

    /// The next responder in the chain (UIKit's `UIResponder.next`): by default
    /// `nextResponder`. Override it, as UIKit code does, to send the chain elsewhere: every
    /// walk of the chain (actions, `undoManager`, `validateProposedFirstResponder(_:for:)`,
    /// the cycle check of `nextResponder`) follows `next`, so the override is obeyed. The
    /// overridden value is not checked for cycles (only a set of `nextResponder` is); the walk
    /// still ends after `ResponderChain`'s maximum length.
    open var next: Responder? { nextResponder }

    /// Whether this responder can be a window's first responder (AppKit's
    /// `acceptsFirstResponder`). The default is UIKit's `canBecomeFirstResponder`, false unless
    /// overridden, as for `NSResponder` and `NSView`; a window accepts.
    open var acceptsFirstResponder: Bool { canBecomeFirstResponder }

    /// UIKit's spelling of `acceptsFirstResponder` (`canBecomeFirstResponder`), false by
    /// default: a UIKit responder that overrides it to true is accepted as first responder,
    /// since the default `acceptsFirstResponder` returns it.
    open var canBecomeFirstResponder: Bool { false }

    /// Asked by `Window.makeFirstResponder(_:)` before this becomes first responder; return
    /// false to refuse. Do not call it yourself (AppKit's rule).
    open func becomeFirstResponder() -> Bool { true }

    /// Asked by `Window.makeFirstResponder(_:)` before another becomes first responder;
    /// return false to keep the status. Do not call it yourself. The default returns UIKit's
    /// `canResignFirstResponder`, as UIKit's does.
    open func resignFirstResponder() -> Bool { canResignFirstResponder }

    /// Whether this responder gives up first-responder status when asked (UIKit's
    /// `canResignFirstResponder`); true by default. The default `resignFirstResponder()`
    /// returns it.
    open var canResignFirstResponder: Bool { true }

    /// The user activity this responder represents (`NSResponder.userActivity`). Setting it
    /// hands the activity to the runtime: it becomes current from the main window's chain,
    /// is saved through `updateUserActivityState(_:)`, and is invalidated once no responder
    /// or document holds it (rules in `ActivityRegistry`).
    open var userActivity: UserActivity? {
        didSet { ActivityRegistry.shared.owner(self, changedActivityFrom: oldValue, to: userActivity) }
    }

    /// Called when the runtime saves this responder's activity, after clearing its
    /// `userInfo`: add the state with `addUserInfoEntries(from:)`
    /// (`updateUserActivityState(_:)`); the default adds nothing.
    open func updateUserActivityState(_ activity: UserActivity) {}

    /// Called to restore state from a continued activity (`restoreUserActivityState(_:)`);
    /// the default does nothing.
    open func restoreUserActivityState(_ activity: UserActivity) {}

    /// Performs `action` on the first object from here up the chain that handles it
    /// (`NSResponder.tryToPerform(_:with:)`); true if one did.
    /// Each responder that does not adopt the action's handler protocol is asked for a
    /// `supplementalTarget(forAction:sender:)` on the way.
    @discardableResult
    open func tryToPerform<Handler>(_ action: Action<Handler>, with sender: Any?) -> Bool {
        guard let handler = ResponderChain.handler(for: action, from: self, sender: sender) else { return false }
        action.perform(handler, sender)
        return true
    }

    /// Whether `responder` may become first responder
    /// (`validateProposedFirstResponder(_:for:)`); true by default, as in AppKit.
    ///
    /// AppKit lets a control ask its enclosing views this on a mouse-down (a table view says
    /// no to a text field in a row it will not edit). Baton asks it on every change: `Window`'s
    /// `makeFirstResponder(_:)` asks every responder above the proposed one, up to the window,
    /// with the mouse-down when a click proposes it (`Window.sendEvent(_:)`), else with `event`
    /// nil, and refuses the change if one returns false.
    open func validateProposedFirstResponder(_ responder: Responder, for event: Event?) -> Bool { true }

    /// Called on the last responder of the chain when an action or event sent up it found no
    /// handler (`noResponder(for:)`): `Application.sendAction(_:to: nil, from:)` calls it on the
    /// application's delegate when that is a `Responder`, else on the application; an event
    /// method's default (`keyDown(with:)`…) calls it on the responder with no `next`, with the
    /// method's action (`Action<Responder>.keyDown`…), as AppKit calls it with
    /// `#selector(keyDown(with:))`; `doCommand(by:)` calls it with the unhandled command. The
    /// default logs the name at debug level (AppKit beeps for a key-down; Baton has no sound).
    ///
    /// Deviation: AppKit passes a `Selector`; Baton's actions are typed (`Action<Handler>`),
    /// so this takes the action, whose `name` says which it was. Override it generically:
    /// `override func noResponder<Handler>(for eventSelector: Action<Handler>)`, and compare
    /// with `AnyAction(eventSelector) == Action<Responder>.keyDown`.
    open func noResponder<Handler>(for eventSelector: Action<Handler>) {
        Logger(label: "baton").debug("no responder handles the action \(eventSelector.name)")
    }

    /// Another object to handle `action` when this responder does not
    /// (`supplementalTarget(forAction:sender:)`): a responder whose class does not adopt the
    /// action's handler protocol is asked, during the chain walk of
    /// `Application.target(forAction:to:from:)` and `tryToPerform(_:with:)`, and the object it
    /// returns handles the action if it adopts the protocol. Return nil (the default) or call
    /// super when you have none, as AppKit asks.
    ///
    /// Deviation: AppKit passes a `Selector`; Baton passes the typed `Action<Handler>`.
    open func supplementalTarget<Handler>(forAction action: Action<Handler>, sender: Any?) -> Any? { nil }

    /// The undo manager for this responder (`undoManager`): by default the next responder's,
    /// so a view, its controller and its window controller find their window's
    /// (`Window.undoManager`), found through `next`; nil at the end of the chain. Override to give one of your own,
    /// as AppKit allows.
    open var undoManager: UndoManager? { next?.undoManager }

    // MARK: Events (AppKit's NSResponder; the walk and the messages are in Responder+Events.swift)

    /// A key was pressed (`keyDown(with:)`). The default passes the event to `next`; at the end
    /// of the chain `noResponder(for: .keyDown)` is called (AppKit beeps there; Baton logs).
    /// Call `interpretKeyEvents(_:)` from an override to get text and editing commands.
    open func keyDown(with event: Event) { forward(event, .keyDown) { $0.keyDown(with: event) } }
    /// A key was released (`keyUp(with:)`); by default passed to `next`.
    open func keyUp(with event: Event) { forward(event, .keyUp) { $0.keyUp(with: event) } }
    /// A modifier key went down or up (`flagsChanged(with:)`); by default passed to `next`.
    open func flagsChanged(with event: Event) { forward(event, .flagsChanged) { $0.flagsChanged(with: event) } }
    /// The left button went down (`mouseDown(with:)`); by default passed to `next`.
    open func mouseDown(with event: Event) { forward(event, .mouseDown) { $0.mouseDown(with: event) } }
    /// The left button went up (`mouseUp(with:)`); by default passed to `next`.
    open func mouseUp(with event: Event) { forward(event, .mouseUp) { $0.mouseUp(with: event) } }
    /// The mouse moved with the left button down (`mouseDragged(with:)`); by default passed to `next`.
    open func mouseDragged(with event: Event) { forward(event, .mouseDragged) { $0.mouseDragged(with: event) } }
    /// The mouse moved with no button down (`mouseMoved(with:)`); by default passed to `next`.
    open func mouseMoved(with event: Event) { forward(event, .mouseMoved) { $0.mouseMoved(with: event) } }
    /// The mouse entered the view (`mouseEntered(with:)`); by default passed to `next`.
    open func mouseEntered(with event: Event) { forward(event, .mouseEntered) { $0.mouseEntered(with: event) } }
    /// The mouse left the view (`mouseExited(with:)`); by default passed to `next`.
    open func mouseExited(with event: Event) { forward(event, .mouseExited) { $0.mouseExited(with: event) } }
    /// The right button went down (`rightMouseDown(with:)`); by default passed to `next`.
    open func rightMouseDown(with event: Event) { forward(event, .rightMouseDown) { $0.rightMouseDown(with: event) } }
    /// The right button went up (`rightMouseUp(with:)`); by default passed to `next`.
    open func rightMouseUp(with event: Event) { forward(event, .rightMouseUp) { $0.rightMouseUp(with: event) } }
    /// The mouse moved with the right button down (`rightMouseDragged(with:)`); by default passed to `next`.
    open func rightMouseDragged(with event: Event) {
        forward(event, .rightMouseDragged) { $0.rightMouseDragged(with: event) }
    }
    /// Another button went down (`otherMouseDown(with:)`); by default passed to `next`.
    open func otherMouseDown(with event: Event) { forward(event, .otherMouseDown) { $0.otherMouseDown(with: event) } }
    /// Another button went up (`otherMouseUp(with:)`); by default passed to `next`.
    open func otherMouseUp(with event: Event) { forward(event, .otherMouseUp) { $0.otherMouseUp(with: event) } }
    /// The mouse moved with another button down (`otherMouseDragged(with:)`); by default passed to `next`.
    open func otherMouseDragged(with event: Event) {
        forward(event, .otherMouseDragged) { $0.otherMouseDragged(with: event) }
    }
    /// The scroll wheel turned (`scrollWheel(with:)`); by default passed to `next`.
    open func scrollWheel(with event: Event) { forward(event, .scrollWheel) { $0.scrollWheel(with: event) } }

    /// Handles `event` if it is a key equivalent of this responder and returns true
    /// (`performKeyEquivalent(with:)`); false by default. `View` offers it to its subviews,
    /// and `Window.sendEvent(_:)` offers a key-down with Command or Control to the window's views
    /// before the main menu, as AppKit does.
    open func performKeyEquivalent(with event: Event) -> Bool { false }

    /// Hands key events to the input system (`interpretKeyEvents(_:)`): each key-down bound in
    /// AppKit's standard key bindings (`StandardKeyBindings`) becomes `doCommand(by:)` with its
    /// command (arrows → `moveLeft`…, Backspace → `deleteBackward`, Return → `insertNewline`…),
    /// and any other key that types characters becomes `insertText(_:)`, both sent to this
    /// responder. Called from a `keyDown(with:)` override, as in AppKit.
    open func interpretKeyEvents(_ eventArray: [Event]) {
        for event in eventArray { StandardKeyBindings.interpret(event, for: self) }
    }

    /// Text typed at this responder (`insertText(_:)`); the default passes it to `next`, and the
    /// end of the chain calls `noResponder(for: .insertText)` (AppKit beeps).
    open func insertText(_ insertString: Any) {
        forwardText { $0.insertText(insertString) }
    }

    /// Performs an editing command (`doCommand(by:)`): the default tries it on this responder and
    /// up the chain (`tryToPerform(_:with:)`, with a nil sender), and when no responder handles
    /// it, the last one gets `noResponder(for:)` with the command (AppKit beeps).
    ///
    /// Deviation: AppKit passes a `Selector`; Baton's commands are typed actions, erased
    /// (`AnyAction`), so an override compares them as AppKit code compares selectors:
    /// `if selector == .insertNewline { … } else { super.doCommand(by: selector) }`.
    open func doCommand(by selector: AnyAction) { selector.perform(from: self) }

    /// A short name for messages: the type, and `identifier` when the subclass has one.
    open var responderDescription: String { "\(type(of: self))" }

    private func chainReaches(_ target: Responder) -> Bool {
        ResponderChain.from(self).contains { $0 === target }
    }
}
