/// An object that can receive actions and take part in the responder chain
/// (AppKit's `NSResponder`).
///
/// The chain's order, and who sets each link, is written in `ResponderChain.swift`.
@MainActor
open class Responder {
    public init() {
        UIThread.check("\(Self.self).init")
    }

    private weak var storedNextResponder: Responder?

    /// The next object in the responder chain (weak, as in AppKit). The view hierarchy,
    /// windows and the application set it; you may insert your own responders.
    ///
    /// A value whose chain leads back to this responder is refused (`Refusal.responderCycle`,
    /// logged) and the previous value kept: AppKit would loop forever on it.
    public var nextResponder: Responder? {
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

    /// Whether this responder can be a window's first responder. False by default, as for
    /// `NSResponder` and `NSView`; a window accepts.
    open var acceptsFirstResponder: Bool { false }

    /// Asked by `Window.makeFirstResponder(_:)` before this becomes first responder; return
    /// false to refuse. Do not call it yourself (AppKit's rule).
    open func becomeFirstResponder() -> Bool { true }

    /// Asked by `Window.makeFirstResponder(_:)` before another becomes first responder;
    /// return false to keep the status. Do not call it yourself.
    open func resignFirstResponder() -> Bool { true }

    /// The user activity this responder represents (`NSResponder.userActivity`). Setting it
    /// hands the activity to the runtime: it becomes current from the main window's chain,
    /// is saved through `updateUserActivityState(_:)`, and is invalidated once no responder
    /// or document holds it (rules in `ActivityRegistry`).
    public var userActivity: UserActivity? {
        didSet { ActivityRegistry.shared.owner(self, changedActivityFrom: oldValue, to: userActivity) }
    }

    /// Called when the runtime saves this responder's activity, after clearing its
    /// `userInfo`: add the state with `addUserInfoEntries(from:)`.
    open func updateUserActivityState(_ activity: UserActivity) {}

    /// Called to restore state from a continued activity.
    open func restoreUserActivityState(_ activity: UserActivity) {}

    /// Performs `action` on the first object from here up the chain that handles it
    /// (`NSResponder.tryToPerform(_:with:)`); true if one did.
    @discardableResult
    public func tryToPerform<Handler>(_ action: Action<Handler>, with sender: Any?) -> Bool {
        guard let handler = ResponderChain.handler(for: action, from: self) else { return false }
        action.perform(handler, sender)
        return true
    }

    /// A short name for messages: the type, and `identifier` when the subclass has one.
    open var responderDescription: String { "\(type(of: self))" }

    private func chainReaches(_ target: Responder) -> Bool {
        ResponderChain.from(self).contains { $0 === target }
    }
}
