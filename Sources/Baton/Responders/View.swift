/// A rectangle of an interface, in a tree of subviews (AppKit's `NSView`). Headless: a view
/// has no pixels, only its place in the hierarchy and the responder chain.
@MainActor
open class View: Responder {
    /// A name for messages and for finding the view.
    public var identifier: String?

    /// The view's subviews, back to front (`subviews`).
    public private(set) var subviews: [View] = []
    /// The view this one is a subview of (`superview`, weak).
    public private(set) weak var superview: View?

    /// The window the view is in, through its superviews; nil when it is in none.
    public private(set) weak var window: Window?

    /// The view controller whose `view` this is.
    weak var owningViewController: ViewController?
    /// Set on a window's content view only: the window above it in the chain.
    weak var hostingWindow: Window?

    /// Creates a view in no window and no superview, named `identifier`.
    public init(identifier: String? = nil) {
        self.identifier = identifier
        super.init()
    }

    /// Adds `view` on top of the subviews, removing it from its old superview first.
    /// A view that is this view or one of its ancestors is refused (`Refusal.viewHierarchyCycle`).
    open func addSubview(_ view: View) {
        if view === self || isDescendant(of: view) {
            Refusal.viewHierarchyCycle(view: view.responderDescription, superview: responderDescription).log()
            return
        }
        view.removeFromSuperview()
        subviews.append(view)
        view.superview = self
        view.relinkResponderChain()
        view.move(toWindow: window)
        if window != nil { Application.shared.responderStateDidChange() }
    }

    /// Takes the view out of its superview (and so out of its window).
    open func removeFromSuperview() {
        guard let parent = superview else { return }
        parent.subviews.removeAll { $0 === self }
        superview = nil
        let oldWindow = window
        relinkResponderChain()
        move(toWindow: nil)
        if oldWindow != nil { Application.shared.responderStateDidChange() }
    }

    /// True if `view` is this view or one of its ancestors.
    public func isDescendant(of view: View) -> Bool {
        var current: View? = self
        while let candidate = current {
            if candidate === view { return true }
            current = candidate.superview
        }
        return false
    }

    /// Called before the view (with its subviews) moves into or out of a window.
    open func viewWillMove(toWindow newWindow: Window?) {}
    /// Called after the view moved into or out of a window.
    open func viewDidMoveToWindow() {}

    /// The type and the identifier, for messages.
    override open var responderDescription: String {
        identifier.map { "\(type(of: self)) '\($0)'" } ?? "\(type(of: self))"
    }

    /// Sets the links of `ResponderChain`: the view → its controller → the superview (or, for
    /// a content view, the window).
    func relinkResponderChain() {
        let above: Responder? = superview ?? hostingWindow
        if let controller = owningViewController {
            controller.nextResponder = above
            nextResponder = controller
        } else {
            nextResponder = above
        }
    }

    /// Moves this subtree into `newWindow`; a first responder that leaves its window hands
    /// first-responder status back to that window, as in AppKit. Entering or leaving a visible
    /// window makes the subtree's view controllers appear or disappear
    /// (`ViewControllerAppearance`).
    func move(toWindow newWindow: Window?) {
        guard window !== newWindow else { return }
        let leaving = window?.isVisible == true, entering = newWindow?.isVisible == true
        guard leaving != entering else { return moveSubtree(toWindow: newWindow) }
        ViewControllerAppearance.transition(of: self, appearing: entering) { moveSubtree(toWindow: newWindow) }
    }

    private func moveSubtree(toWindow newWindow: Window?) {
        let oldWindow = window
        visitSubtree { $0.viewWillMove(toWindow: newWindow) }
        visitSubtree { $0.window = newWindow }
        if let oldWindow, let first = oldWindow.firstResponder as? View, first.isDescendant(of: self) {
            oldWindow.resetFirstResponderToWindow()
        }
        visitSubtree { $0.viewDidMoveToWindow() }
    }

    private func visitSubtree(_ body: (View) -> Void) {
        body(self)
        for child in subviews { child.visitSubtree(body) }
    }
}
