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
    /// no to a text field in a row it will not edit). Baton has no events: `Window`'s
    /// `makeFirstResponder(_:)` asks every responder above the proposed one, up to the window,
    /// with `event` nil, and refuses the change if one returns false.
    open func validateProposedFirstResponder(_ responder: Responder, for event: Event?) -> Bool { true }

    /// Called on the last responder of the chain when an action sent up it found no handler
    /// (`noResponder(for:)`): `Application.sendAction(_:to: nil, from:)` calls it on the
    /// application's delegate when that is a `Responder`, else on the application. The default
    /// logs the action's name at debug level (AppKit's beeps for a key-down; Baton has no
    /// keys and no sound).
    ///
    /// Deviation: AppKit passes a `Selector`; Baton's actions are typed (`Action<Handler>`),
    /// so this takes the action, whose `name` says which it was. Override it generically:
    /// `override func noResponder<Handler>(for eventSelector: Action<Handler>)`.
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

    /// A short name for messages: the type, and `identifier` when the subclass has one.
    open var responderDescription: String { "\(type(of: self))" }

    private func chainReaches(_ target: Responder) -> Bool {
        ResponderChain.from(self).contains { $0 === target }
    }
}
