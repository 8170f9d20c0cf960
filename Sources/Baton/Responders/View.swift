import Foundation

/// A rectangle of an interface, in a tree of subviews (AppKit's `NSView`). Headless: a view
/// has no pixels, only its place in the hierarchy, its geometry (`frame`, `bounds`; rules in
/// `View+Geometry.swift`) and the responder chain, through which it gets events.
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

    /// Creates a view with `frameRect` as its frame (AppKit's `init(frame:)`).
    public convenience init(frame frameRect: CGRect) {
        self.init(identifier: nil)
        frame = frameRect
    }

    // MARK: Geometry (the rules are in View+Geometry.swift)

    /// The view's rectangle in its superview's coordinates (`frame`); a content view's is in the
    /// window's base coordinates. `.zero` by default. Changing its size changes `bounds`' size.
    open var frame: CGRect = .zero
    /// The origin of `bounds`, the one part of it not taken from `frame`.
    private var boundsOrigin: CGPoint = .zero
    /// The view's rectangle in its own coordinates (`bounds`): `boundsOrigin` with the frame's
    /// size. Setting it moves the origin and sets the frame's size (AppKit would scale
    /// the view's coordinates instead; Baton does not scale).
    open var bounds: CGRect {
        get { CGRect(origin: boundsOrigin, size: frame.size) }
        set {
            boundsOrigin = newValue.origin
            frame.size = newValue.size
        }
    }
    /// Whether the view's y axis goes down from the top (`isFlipped`); false by default, as in
    /// AppKit, so y grows upwards from the bottom-left corner of `bounds`.
    open var isFlipped: Bool { false }
    /// Whether the view and its subviews are hidden (`isHidden`): a hidden view is not hit by
    /// `hitTest(_:)` and not offered key equivalents.
    open var isHidden = false

    /// The farthest descendant of this view, or this view, that contains `point`, given in the
    /// superview's coordinates (`hitTest(_:)`, AppKit's rule); nil when `point` is outside the
    /// frame or the view is hidden. Subviews are searched front to back (the last added first).
    open func hitTest(_ point: CGPoint) -> View? { defaultHitTest(point) }

    /// Whether a click in this view of a window that is not key is delivered to the view as well
    /// as making the window key (`acceptsFirstMouse(for:)`); false by default, as in AppKit.
    open func acceptsFirstMouse(for event: Event?) -> Bool { false }

    /// Offers the key equivalent to each subview, back to front, and returns true as soon as one
    /// handles it (`NSView.performKeyEquivalent(with:)`); false when none does. Hidden subviews
    /// are skipped. Override to handle your own equivalents and call super for the rest.
    override open func performKeyEquivalent(with event: Event) -> Bool {
        subviews.contains { !$0.isHidden && $0.performKeyEquivalent(with: event) }
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
