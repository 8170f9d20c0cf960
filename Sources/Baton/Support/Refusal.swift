import Logging

/// A call Baton refused because its input was wrong. The state is left as it was.
///
/// Where AppKit traps (UI API off the main thread) Baton traps too; where AppKit ignores the
/// call or returns false, Baton does the same and logs one of these at error level, with the
/// refusal itself as the log event's `error` and its case name under the `refusal` metadata
/// key, so handlers and tools can match on it.
public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// `close()` on a window that is already closed.
    case windowAlreadyClosed(window: String)
    /// `makeKey()`/`makeMain()` on a window that is ordered out.
    case windowNotVisible(window: String, wanted: String)
    /// `makeKey()`/`makeMain()`/`orderFront(_:)`/`orderBack(_:)` on a closed window.
    case windowClosed(window: String, wanted: String)
    /// `makeKey()` on a window whose `canBecomeKey` is false (a panel may; a plain window
    /// subclass may say no), or `makeMain()` where `canBecomeMain` is false (every panel).
    case windowCannotBecome(window: String, wanted: String)
    /// Setting `nextResponder` to something whose chain leads back to the responder.
    case responderCycle(responder: String, proposedNext: String)
    /// `addSubview(_:)` of a view that contains the would-be superview, or the view itself.
    case viewHierarchyCycle(view: String, superview: String)
    /// `makeFirstResponder(_:)` with a view that is not in that window.
    case firstResponderNotInWindow(responder: String, window: String)
    /// Presenting a view controller that is already presented, or the presenter itself.
    case viewControllerAlreadyPresented(viewController: String, presenter: String)
    /// Adding a menu item to a menu while it is in another menu (AppKit raises).
    case menuItemInAnotherMenu(item: String, menu: String)

    public var description: String {
        switch self {
        case .windowAlreadyClosed(let w):
            "refused close() of window \(w): it is already closed"
        case .windowNotVisible(let w, let wanted):
            "refused \(wanted) of window \(w): it is not visible (order it front first)"
        case .windowClosed(let w, let wanted):
            "refused \(wanted) of window \(w): it is closed"
        case .windowCannotBecome(let w, let wanted):
            "refused \(wanted) of window \(w): the window says it cannot"
        case .responderCycle(let r, let next):
            "refused nextResponder = \(next) on \(r): the chain from \(next) leads back to \(r)"
        case .viewHierarchyCycle(let v, let s):
            "refused adding view \(v) to \(s): \(v) is \(s) or one of its ancestors"
        case .firstResponderNotInWindow(let r, let w):
            "refused makeFirstResponder(\(r)) in window \(w): the view is not in that window"
        case .viewControllerAlreadyPresented(let v, let p):
            "refused presenting \(v) from \(p): it is already presented, or it is the presenter"
        case .menuItemInAnotherMenu(let i, let m):
            "refused adding menu item \(i): it is already in menu \(m); remove it from there first"
        }
    }

    /// The case name, for log metadata.
    public var kind: String {
        switch self {
        case .windowAlreadyClosed: "windowAlreadyClosed"
        case .windowNotVisible: "windowNotVisible"
        case .windowClosed: "windowClosed"
        case .windowCannotBecome: "windowCannotBecome"
        case .responderCycle: "responderCycle"
        case .viewHierarchyCycle: "viewHierarchyCycle"
        case .firstResponderNotInWindow: "firstResponderNotInWindow"
        case .viewControllerAlreadyPresented: "viewControllerAlreadyPresented"
        case .menuItemInAnotherMenu: "menuItemInAnotherMenu"
        }
    }

    /// Logs the refusal under the `baton` label.
    func log() {
        Logger(label: "baton").error("\(description)", error: self, metadata: ["refusal": "\(kind)"])
    }
}
