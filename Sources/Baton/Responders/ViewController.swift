import Foundation

/// Manages a view and its part of the interface (AppKit's `NSViewController`).
///
/// In the responder chain it sits between its view and the view's superview.
@MainActor
open class ViewController: Responder {
    private var loadedView: View?

    /// The controller's title (`title`), also used in messages and as the title of a window
    /// made to present it.
    open var title: String?

    /// The child view controllers, in the order added (`children`).
    open private(set) var children: [ViewController] = []
    /// The controller this one is a child of (`parent`, weak).
    open private(set) weak var parent: ViewController?

    /// Creates a controller whose view is not loaded yet (AppKit's designated
    /// `init(nibName:bundle:)`, UIKit's the same with `String?`): the one designated
    /// initializer, so a subclass overrides it and calls it as in AppKit
    /// (`super.init(nibName: nil, bundle: nil)`), and then inherits `init(title:)`.
    ///
    /// Deviation: Baton has no nib files, so `nibNameOrNil` and `nibBundleOrNil` are ignored
    /// (kept in `nibName` and `nibBundle`); the view always comes from `loadView()`.
    public init(nibName nibNameOrNil: Nib.Name?, bundle nibBundleOrNil: Bundle?) {
        nibName = nibNameOrNil
        nibBundle = nibBundleOrNil
        super.init()
    }

    /// Creates a controller with `title` whose view is not loaded yet; the same as
    /// `init(nibName: nil, bundle: nil)` followed by setting `title`. A subclass that overrides
    /// `init(nibName:bundle:)`, or defines no initializer, inherits it.
    public convenience init(title: String? = nil) {
        self.init(nibName: nil, bundle: nil)
        self.title = title
    }

    /// The name given to `init(nibName:bundle:)` (`nibName`); Baton loads no nib from it.
    open private(set) var nibName: Nib.Name?
    /// The bundle given to `init(nibName:bundle:)` (`nibBundle`); Baton loads nothing from it.
    open private(set) var nibBundle: Bundle?

    /// The controller's view, loaded on first use by `loadView()` and then `viewDidLoad()`.
    open var view: View {
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
    open var isViewLoaded: Bool { loadedView != nil }

    /// Creates the view. The default makes a plain `View` named after the title; override to
    /// build your own and assign it to `view`.
    open func loadView() { view = View(identifier: title) }

    /// Called once, after the view is loaded.
    open func viewDidLoad() {}

    // MARK: Appearance

    /// Called when the view is about to appear (AppKit's `viewWillAppear()`): it is about to be
    /// added to a window that is ordered in, or its window is about to be ordered in
    /// (`orderFront(_:)`, `makeKeyAndOrderFront(_:)`, `showWindow(_:)`, a presentation). Every
    /// controller whose view is in the appearing views gets it, outer controllers first (a
    /// parent before the child whose view is its subview); `viewDidAppear()` then goes to inner
    /// controllers first. Called once per appearance (rules in `ViewControllerAppearance`). The default calls UIKit's `viewWillAppear(_:)` with false.
    open func viewWillAppear() { viewWillAppear(false) }

    /// Called after the view appeared (AppKit's `viewDidAppear()`): after `viewWillAppear()`,
    /// once the view is in a window that is ordered in; inner controllers before outer ones.
    /// The default calls UIKit's `viewDidAppear(_:)` with false.
    open func viewDidAppear() { viewDidAppear(false) }

    /// Called when the view is about to disappear (AppKit's `viewWillDisappear()`): its window
    /// is about to be ordered out or closed (a dismissed presentation's window closes), or the
    /// view is about to leave its window; outer controllers first. The default calls UIKit's
    /// `viewWillDisappear(_:)` with false.
    open func viewWillDisappear() { viewWillDisappear(false) }

    /// Called after the view disappeared (AppKit's `viewDidDisappear()`): the window is
    /// ordered out or closed, or the view left it; inner controllers first. The default calls
    /// UIKit's `viewDidDisappear(_:)` with false.
    open func viewDidDisappear() { viewDidDisappear(false) }

    /// UIKit's `viewWillAppear(_:)`, called by the default `viewWillAppear()` with
    /// `animated` false (Baton does not animate); the default does nothing. The two spellings
    /// have different names, so an override of either is unambiguous; override one.
    open func viewWillAppear(_ animated: Bool) {}
    /// UIKit's `viewDidAppear(_:)`, called by the default `viewDidAppear()` with false.
    open func viewDidAppear(_ animated: Bool) {}
    /// UIKit's `viewWillDisappear(_:)`, called by the default `viewWillDisappear()` with false.
    open func viewWillDisappear(_ animated: Bool) {}
    /// UIKit's `viewDidDisappear(_:)`, called by the default `viewDidDisappear()` with false.
    open func viewDidDisappear(_ animated: Bool) {}

    /// Whether `viewWillAppear()` was sent and `viewWillDisappear()` not since.
    var hasAppeared = false

    /// Adds `child` as a child controller, moving it from any previous parent (`addChild(_:)`).
    open func addChild(_ child: ViewController) {
        guard child !== self else { return }
        child.removeFromParent()
        children.append(child)
        child.parent = self
    }

    /// Removes this controller from its parent's children (`removeFromParent()`).
    open func removeFromParent() {
        parent?.children.removeAll { $0 === self }
        parent = nil
    }

    /// The type and the title, for messages.
    override open var responderDescription: String {
        title.map { "\(type(of: self)) '\($0)'" } ?? "\(type(of: self))"
    }

    // MARK: Window delegate of a presentation

    // A controller presented as a sheet or in a modal window is that window's delegate
    // (`presentAsSheet(_:)`, `presentAsModalWindow(_:)`). The methods are in the class, not
    // in the conformance's extension, so a subclass overrides them as in AppKit.

    /// Whether the window presenting this controller may close (`windowShouldClose(_:)`);
    /// true by default.
    open func windowShouldClose(_ sender: Window) -> Bool { true }
    /// The window presenting this controller is about to close; does nothing by default.
    open func windowWillClose(_ notification: Notification) {}
    /// The window presenting this controller became key; does nothing by default.
    open func windowDidBecomeKey(_ notification: Notification) {}
    /// The window presenting this controller resigned key; does nothing by default.
    open func windowDidResignKey(_ notification: Notification) {}
    /// The window presenting this controller became main; does nothing by default.
    open func windowDidBecomeMain(_ notification: Notification) {}
    /// The window presenting this controller resigned main; does nothing by default.
    open func windowDidResignMain(_ notification: Notification) {}
    /// The window presenting this controller was updated; does nothing by default.
    open func windowDidUpdate(_ notification: Notification) {}
    /// The undo manager of the window presenting this controller; nil by default, so the
    /// window makes its own.
    open func windowWillReturnUndoManager(_ window: Window) -> UndoManager? { nil }

    // MARK: Presentation

    /// The controllers this one presents, oldest first, or nil when it presents none
    /// (`presentedViewControllers`).
    open private(set) var presentedViewControllers: [ViewController]?

    /// The controller that presented this one, or nil (`presentingViewController`, weak).
    open private(set) weak var presentingViewController: ViewController?

    /// The controller this one presented last, or nil (UIKit's `presentedViewController`).
    open var presentedViewController: ViewController? { presentedViewControllers?.last }

    /// How this controller is presented, while it is.
    private(set) var presentation: Presentation?

    /// The popover showing this controller, when it is presented as one.
    var presentationPopover: Popover? {
        if case .popover(let popover) = presentation?.style { return popover }
        return nil
    }

    /// Presents `viewController` through `animator` (`present(_:animator:)`): Baton makes no
    /// window; the animator's `animatePresentation(of:from:)` shows it, and
    /// `dismiss(_:)` calls its `animateDismissal(of:from:)`.
    open func present(_ viewController: ViewController, animator: any ViewControllerPresentationAnimator) {
        guard accepts(viewController) else { return }
        record(viewController, Presentation(style: .animator(animator), window: nil))
        animator.animatePresentation(of: viewController, from: self)
    }

    /// Presents `viewController` as a sheet (`presentAsSheet(_:)`): it becomes the content
    /// view controller and the delegate of a `Panel` of its own (AppKit: "The presented view
    /// controller is the delegate and the content view controller of its sheet"), ordered
    /// front and made key (never main, so this controller's window stays main); the view is that panel's first responder when it
    /// accepts, so actions go up the presented controller's chain. `dismiss(_:)` closes the
    /// panel and makes this controller's window key again.
    open func presentAsSheet(_ viewController: ViewController) {
        guard accepts(viewController) else { return }
        show(viewController, in: Panel(title: viewController.title ?? "Sheet", contentViewController: viewController),
             style: .sheet)
    }

    /// Presents `viewController` in a modal window (`presentAsModalWindow(_:)`): it becomes
    /// the content view controller and the delegate of a `Window` of its own, ordered front
    /// and made key and main, so the presented controller's activity, if any, becomes current. `dismiss(_:)` closes it
    /// and makes this controller's window key and main again. Baton has no events, so nothing
    /// else is blocked while it shows (AppKit runs a modal session).
    open func presentAsModalWindow(_ viewController: ViewController) {
        guard accepts(viewController) else { return }
        show(viewController, in: Window(title: viewController.title ?? "", contentViewController: viewController),
             style: .modalWindow)
    }

    /// Presents `viewController` in a popover next to `positioningRect` of `positioningView`
    /// (`present(_:asPopoverRelativeTo:of:preferredEdge:behavior:)`): a `Popover` with that
    /// behaviour shows it in a `Panel` made key, as a sheet is. `dismiss(_:)`, or closing the
    /// popover (by the app, or by itself as its behaviour says), closes it and makes this
    /// controller's window key again.
    open func present(_ viewController: ViewController, asPopoverRelativeTo positioningRect: NSRect,
                      of positioningView: View, preferredEdge: NSRectEdge, behavior: Popover.Behavior) {
        guard accepts(viewController) else { return }
        let popover = Popover()
        popover.behavior = behavior
        popover.contentViewController = viewController
        record(viewController, Presentation(style: .popover(popover), window: nil))
        popover.show(relativeTo: positioningRect, of: positioningView, preferredEdge: preferredEdge)
    }

    /// Presents `viewControllerToPresent` as UIKit does (`present(_:animated:completion:)`):
    /// as a sheet (UIKit's default style), then calls `completion`. Baton does not animate.
    open func present(_ viewControllerToPresent: ViewController, animated flag: Bool, completion: (() -> Void)? = nil) {
        presentAsSheet(viewControllerToPresent)
        completion?()
    }

    /// Dismisses `viewController`, which this controller presented (`dismiss(_:)`, called on
    /// the presenting controller): first whatever it presents in turn, then its window (or
    /// popover) closes, or its animator takes it away, and this controller's window, when
    /// visible, becomes key again. Called on another controller than the presenter, it is
    /// passed to the presenter; a controller that is not presented is left alone.
    open func dismiss(_ viewController: ViewController) {
        guard let index = presentedViewControllers?.firstIndex(where: { $0 === viewController }) else {
            if let presenter = viewController.presentingViewController, presenter !== self { presenter.dismiss(viewController) }
            return
        }
        for nested in (viewController.presentedViewControllers ?? []).reversed() { viewController.dismiss(nested) }
        presentedViewControllers?.remove(at: index)
        if presentedViewControllers?.isEmpty == true { presentedViewControllers = nil }
        let presentation = viewController.presentation
        viewController.presentation = nil
        viewController.presentingViewController = nil
        switch presentation?.style {
        case .animator(let animator): animator.animateDismissal(of: viewController, from: self)
        case .popover(let popover): popover.closeWindow()
        case .sheet, .modalWindow, nil:
            if let window = presentation?.window, !window.isClosed { window.close() }
        }
        if isViewLoaded, let home = view.window, home.isVisible, home.canBecomeKey { home.makeKey() }
    }

    /// Dismisses this controller if it is presented (`dismiss(_:)` with a sender, AppKit's
    /// action form): its presenter's `dismiss(_:)` with this controller.
    open func dismiss(_ sender: Any?) {
        presentingViewController?.dismiss(self)
    }

    /// UIKit's `dismiss(animated:completion:)`: dismisses what this controller presented, or,
    /// if it presents nothing, this controller itself through its presenter (UIKit asks the
    /// presenter); then calls `completion`. Baton does not animate.
    open func dismiss(animated flag: Bool, completion: (() -> Void)? = nil) {
        if let presented = presentedViewController {
            dismiss(presented)
        } else if let presenter = presentingViewController {
            presenter.dismiss(self)
        }
        completion?()
    }

    /// A window closed by other means than `dismiss(_:)` (its close button, `close()`) that
    /// was showing this presented controller: the presentation is dismissed with it.
    func presentationWindowDidClose(_ window: Window) {
        guard let presenter = presentingViewController, let presentation else { return }
        if presentation.window === window || presentationPopover?.window === window { presenter.dismiss(self) }
    }

    /// Refuses presenting this controller itself, or one that is already presented.
    private func accepts(_ viewController: ViewController) -> Bool {
        guard viewController !== self, viewController.presentingViewController == nil else {
            Refusal.viewControllerAlreadyPresented(viewController: viewController.responderDescription,
                                                   presenter: responderDescription).log()
            return false
        }
        return true
    }

    private func record(_ viewController: ViewController, _ presentation: Presentation) {
        presentedViewControllers = (presentedViewControllers ?? []) + [viewController]
        viewController.presentingViewController = self
        viewController.presentation = presentation
    }

    private func show(_ viewController: ViewController, in window: Window, style: Presentation.Style) {
        window.delegate = viewController
        record(viewController, Presentation(style: style, window: window))
        if viewController.view.acceptsFirstResponder { window.initialFirstResponder = viewController.view }
        window.makeKeyAndOrderFront(self)
    }
}
