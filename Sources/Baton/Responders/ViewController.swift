/// Manages a view and its part of the interface (AppKit's `NSViewController`).
///
/// In the responder chain it sits between its view and the view's superview.
@MainActor
open class ViewController: Responder {
    private var loadedView: View?

    /// A title for messages and for the example apps.
    open var title: String?

    public private(set) var children: [ViewController] = []
    public private(set) weak var parent: ViewController?

    public init(title: String? = nil) {
        self.title = title
        super.init()
    }

    /// The controller's view, loaded on first use by `loadView()` and then `viewDidLoad()`.
    public var view: View {
        get {
            if let loadedView { return loadedView }
            loadView()
            guard let loadedView else {
                preconditionFailure("Baton: \(type(of: self)).loadView() did not set `view`")
            }
            viewDidLoad()
            return loadedView
        }
        set {
            if let old = loadedView, old !== newValue {
                old.owningViewController = nil
                old.relinkResponderChain()
            }
            loadedView = newValue
            newValue.owningViewController = self
            newValue.relinkResponderChain()
        }
    }

    /// True once `view` exists.
    public var isViewLoaded: Bool { loadedView != nil }

    /// Creates the view. The default makes a plain `View` named after the title; override to
    /// build your own and assign it to `view`.
    open func loadView() { view = View(identifier: title) }

    /// Called once, after the view is loaded.
    open func viewDidLoad() {}

    /// Adds `child` as a child controller, moving it from any previous parent.
    public func addChild(_ child: ViewController) {
        guard child !== self else { return }
        child.removeFromParent()
        children.append(child)
        child.parent = self
    }

    public func removeFromParent() {
        parent?.children.removeAll { $0 === self }
        parent = nil
    }

    override open var responderDescription: String {
        title.map { "\(type(of: self)) '\($0)'" } ?? "\(type(of: self))"
    }
}
