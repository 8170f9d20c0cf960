/// Presents and dismisses a view controller in a way of its own
/// (AppKit's `NSViewControllerPresentationAnimator`), for
/// `ViewController.present(_:animator:)`: Baton makes no window for such a presentation, the
/// animator shows the view as it likes.
@MainActor
public protocol ViewControllerPresentationAnimator: AnyObject {
    /// Shows `viewController`, presented by `fromViewController`
    /// (`animatePresentation(of:from:)`).
    func animatePresentation(of viewController: ViewController, from fromViewController: ViewController)
    /// Takes `viewController` away (`animateDismissal(of:from:)`).
    func animateDismissal(of viewController: ViewController, from fromViewController: ViewController)
}

/// How a view controller was presented, and the window made for it.
@MainActor
struct Presentation {
    enum Style {
        case sheet
        case modalWindow
        case popover(Popover)
        case animator(any ViewControllerPresentationAnimator)
    }

    let style: Style
    /// The window showing the presented controller (none for an animator's presentation).
    let window: Window?
}

/// A view controller presented as a sheet or in a modal window is its window's delegate, as
/// in AppKit (`presentAsSheet(_:)`, `presentAsModalWindow(_:)`); its methods are in
/// `ViewController`'s class body, so subclasses override them.
extension ViewController: WindowDelegate {}
