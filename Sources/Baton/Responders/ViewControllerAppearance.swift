/// When view controllers appear and disappear (AppKit's `viewWillAppear()` …
/// `viewDidDisappear()`), in one place.
///
/// A controller's view appears when it is in a visible window (`Window.isVisible`): the window
/// is ordered in (`orderFront(_:)`, `orderBack(_:)`, and so `makeKeyAndOrderFront(_:)`,
/// `WindowController.showWindow(_:)` and the presentations, which show a window of their
/// own), the hidden application is unhidden, or the view enters such a window
/// (`addSubview(_:)`, `Window.contentView`). It disappears when that window is ordered out or
/// closed (a dismissed presentation's window closes), the application is hidden, or the view
/// leaves the window. AppKit's rule: `viewWillAppear()` comes when "the view is about to be
/// added to the view hierarchy" or "the window is about to become visible, such as coming to
/// the front or becoming unhidden".
///
/// Every controller whose view is in the subtree that changes takes part: "will" is sent
/// outer controller first (a parent before the children whose views are its subviews), the
/// change is made, then "did" inner controller first. Each controller gets one "will"/"did"
/// pair per change, and none when it already is in the wanted state.
@MainActor
enum ViewControllerAppearance {
    /// Makes `change`, which makes the views from `root` appear (`appearing`) or disappear,
    /// telling their controllers before and after. Nil: just `change`.
    static func transition(of root: View?, appearing: Bool, _ change: () -> Void) {
        transition(of: root.map { [$0] } ?? [], appearing: appearing, change)
    }

    /// The same for several subtrees (the windows of a hidden or unhidden application).
    static func transition(of roots: [View], appearing: Bool, _ change: () -> Void) {
        let controllers = roots.flatMap(controllers(from:)).filter { $0.hasAppeared != appearing }
        for controller in controllers {
            controller.hasAppeared = appearing
            if appearing { controller.viewWillAppear() } else { controller.viewWillDisappear() }
        }
        change()
        for controller in controllers.reversed() {
            if appearing { controller.viewDidAppear() } else { controller.viewDidDisappear() }
        }
    }

    /// The controllers of the views from `root` down, outer first.
    private static func controllers(from root: View) -> [ViewController] {
        var found: [ViewController] = []
        var pending = [root]
        while let view = pending.popLast() {
            if let controller = view.owningViewController { found.append(controller) }
            pending.append(contentsOf: view.subviews.reversed())
        }
        return found
    }
}
