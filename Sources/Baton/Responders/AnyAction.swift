/// An action with its handler protocol erased: what a `Selector` value is to AppKit, for the
/// places that hold actions of any kind side by side (a validated item's `action`).
///
/// Two erased actions are equal when they have the same name and the same handler protocol,
/// as two selectors are equal when they name the same method. Compare one with a typed action
/// directly: `item.action == .copy`.
public struct AnyAction: Hashable, Sendable {
    /// The action's name, for messages and logs.
    public let name: String
    /// The handler protocol, by identity.
    private let handlerType: ObjectIdentifier
    /// `Application.target(forAction:to:from:)` for the typed action.
    private let findTarget: @MainActor @Sendable (Application, AnyObject?, Any?) -> AnyObject?
    /// `Responder.doCommand(by:)`'s default for the typed action.
    private let performUpChain: @MainActor @Sendable (Responder) -> Void
    /// `Application.sendAction(_:to:from:)` for the typed action.
    private let sendTyped: @MainActor @Sendable (Application, AnyObject?, Any?) -> Bool

    /// `action`, erased.
    public init<Handler>(_ action: Action<Handler>) {
        name = action.name
        handlerType = ObjectIdentifier(Handler.self)
        findTarget = { application, target, sender in application.target(forAction: action, to: target, from: sender) }
        performUpChain = { responder in
            if !responder.tryToPerform(action, with: nil) { responder.lastInChain.noResponder(for: action) }
        }
        sendTyped = { application, target, sender in application.sendAction(action, to: target, from: sender) }
    }

    /// Sends the typed action through `application.sendAction(_:to:from:)` (to `target`, or
    /// along the responder chain when it is nil), as a menu item sends its action; returns
    /// whether an object handled it.
    @MainActor @discardableResult
    public func send(in application: Application, to target: AnyObject?, from sender: Any?) -> Bool {
        sendTyped(application, target, sender)
    }

    /// The object `application` would send the action to from `sender`, as
    /// `Application.target(forAction:to:from:)` finds it for the typed action.
    @MainActor
    public func target(in application: Application, to target: AnyObject? = nil, from sender: Any? = nil) -> AnyObject? {
        findTarget(application, target, sender)
    }

    /// Performs the action on `responder` or the first responder up its chain that handles it,
    /// with a nil sender; if none does, the chain's last responder gets `noResponder(for:)`
    /// (AppKit's `doCommand(by:)`).
    @MainActor
    func perform(from responder: Responder) { performUpChain(responder) }

    /// Whether `lhs` and `rhs` are the same action: same name, same handler protocol.
    public static func == (lhs: AnyAction, rhs: AnyAction) -> Bool {
        lhs.name == rhs.name && lhs.handlerType == rhs.handlerType
    }

    /// Hashes the name and the handler protocol.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(handlerType)
    }
}

extension Action {
    /// Whether the erased action `lhs` is `rhs` (`item.action == .copy`, as AppKit's
    /// `item.action == #selector(copy(_:))`); false when `lhs` is nil.
    public static func == (lhs: AnyAction?, rhs: Action<Handler>) -> Bool {
        lhs == AnyAction(rhs)
    }
}
