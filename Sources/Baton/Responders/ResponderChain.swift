/// The responder chain: its order, in one place.
///
/// From a first responder, `nextResponder` leads (the walk follows UIKit's `next`, which returns
/// `nextResponder` unless overridden):
///
///     view → its view controller (when the view is that controller's `view`)
///          → the superview (a view controller's next responder is its view's superview)
///          → … → the window's content view → (its content view controller) → the window
///          → the window controller (if the window has one) → the application
///          → the application's delegate (when it is a `Responder`)
///
/// `View.addSubview`, `ViewController.view`, `Window.contentView`/`contentViewController`,
/// `WindowController.window` and `Application.delegate` set these links; an app may insert
/// responders of its own by setting `nextResponder`.
///
/// An action sent to no particular target (`Application.sendAction(_:to: nil, from:)`) is
/// offered, as in AppKit, to the key window's first responder and up its chain to the window
/// and its controller; then, if the main window is another window, to its first responder
/// and up; then to the application; then to the application's delegate.
///
/// A responder handles an action when its class conforms to the action's handler protocol;
/// the answer is cached per class, so a walk costs a dictionary lookup per responder. A
/// responder that does not is asked for a `supplementalTarget(forAction:sender:)`, as in
/// AppKit. When nothing handles an action sent with no target, the last responder of the chain
/// gets `noResponder(for:)`.
@MainActor
public enum ResponderChain {
    /// Longer chains than this are cut: setting `nextResponder` refuses cycles, so only a
    /// bug could make one, and the walk must end even then.
    static let maximumLength = 100_000

    /// The chain from `start` (included).
    public static func from(_ start: Responder) -> some Sequence<Responder> {
        var steps = 0
        return sequence(first: start) { current in
            steps += 1
            return steps < maximumLength ? current.next : nil
        }
    }

    /// The first object from `start` up that handles `action`: a responder that adopts its
    /// handler protocol, or the supplemental target one that does not gives
    /// (`Responder.supplementalTarget(forAction:sender:)`).
    static func handler<Handler>(for action: Action<Handler>, from start: Responder, sender: Any?) -> Handler? {
        for responder in from(start) {
            if let found = handlerObject(responder, for: action, sender: sender) { return found as? Handler }
        }
        return nil
    }

    /// The first object from `start` up to (not including) the application that handles
    /// `action`, as `handler(for:from:sender:)` finds it: the part of the chain that belongs
    /// to one window.
    static func windowHandler<Handler>(for action: Action<Handler>, from start: Responder, sender: Any?) -> AnyObject? {
        for responder in from(start) {
            if responder === Application.shared { return nil }
            if let found = handlerObject(responder, for: action, sender: sender) { return found }
        }
        return nil
    }

    /// `responder` if it handles `action`, else its supplemental target if that does.
    private static func handlerObject<Handler>(_ responder: Responder, for action: Action<Handler>,
                                               sender: Any?) -> AnyObject? {
        if handles(responder, Handler.self) { return responder }
        guard let supplemental = responder.supplementalTarget(forAction: action, sender: sender) else { return nil }
        let object = supplemental as AnyObject
        return handles(object, Handler.self) ? object : nil
    }

    private struct ConformanceKey: Hashable {
        let handler: ObjectIdentifier
        let type: ObjectIdentifier
    }

    /// Whether each class conforms to each action's handler protocol, asked once: a failed
    /// dynamic cast costs several dictionary lookups, and conformances do not change.
    private static var conformances: [ConformanceKey: Bool] = [:]

    static func handles<Handler>(_ object: AnyObject, _ handler: Handler.Type) -> Bool {
        let key = ConformanceKey(handler: ObjectIdentifier(handler), type: ObjectIdentifier(type(of: object)))
        if let known = conformances[key] { return known }
        let conforms = object is Handler
        conformances[key] = conforms
        return conforms
    }
}
