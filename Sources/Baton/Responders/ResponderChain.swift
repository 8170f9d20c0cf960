/// The responder chain: its order, in one place.
///
/// From a first responder, `nextResponder` leads:
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
@MainActor
public enum ResponderChain {
    /// The chain from `start` (included), each responder once even if the links loop.
    public static func from(_ start: Responder) -> some Sequence<Responder> {
        var seen: Set<ObjectIdentifier> = []
        return sequence(first: start) { current in
            seen.insert(ObjectIdentifier(current))
            guard let next = current.nextResponder, !seen.contains(ObjectIdentifier(next)) else { return nil }
            return next
        }
    }

    /// The first responder from `start` up that handles `action`.
    static func handler<Handler>(for action: Action<Handler>, from start: Responder) -> Handler? {
        for responder in from(start) {
            if let handler = responder as? Handler { return handler }
        }
        return nil
    }

    /// The first responder from `start` up to (not including) the application that handles
    /// `action`: the part of the chain that belongs to one window.
    static func windowHandler<Handler>(for action: Action<Handler>, from start: Responder) -> Responder? {
        for responder in from(start) {
            if responder is Application { return nil }
            if responder is Handler { return responder }
        }
        return nil
    }
}
