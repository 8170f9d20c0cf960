@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// Records its appearance calls, AppKit's and UIKit's, into a shared journal.
@MainActor
final class AppearanceController: ViewController {
    let journal: AppearanceJournal
    init(_ name: String, journal: AppearanceJournal) {
        self.journal = journal
        super.init(nibName: nil, bundle: nil)
        title = name
    }
    override func loadView() { view = View(identifier: title) }
    override func viewWillAppear() { journal.add("\(title!) willAppear"); super.viewWillAppear() }
    override func viewDidAppear() { journal.add("\(title!) didAppear"); super.viewDidAppear() }
    override func viewWillDisappear() { journal.add("\(title!) willDisappear"); super.viewWillDisappear() }
    override func viewDidDisappear() { journal.add("\(title!) didDisappear"); super.viewDidDisappear() }
    override func viewWillAppear(_ animated: Bool) { journal.add("\(title!) willAppear(\(animated))") }
    override func viewDidDisappear(_ animated: Bool) { journal.add("\(title!) didDisappear(\(animated))") }
}

/// The calls, in order, with what the window looked like at each.
@MainActor
final class AppearanceJournal {
    var entries: [String] = []
    var visibleAt: [String: Bool] = [:]
    weak var window: Window?
    func add(_ entry: String) {
        entries.append(entry)
        visibleAt[entry] = window?.isVisible
    }
    @discardableResult func take() -> [String] { defer { entries = []; visibleAt = [:] }; return entries }
}

@MainActor private var app: Application { .shared }

/// NSViewController's appearance methods
/// (https://developer.apple.com/documentation/appkit/nsviewcontroller/viewwillappear(),
/// .../viewdidappear(), .../viewwilldisappear(), .../viewdiddisappear()): called when the view
/// is about to be added to / was added to a window that shows, when the window comes to the
/// front or is unhidden, and the reverse; UIKit's `…(_ animated:)` forms through the defaults.
final class ViewControllerAppearanceTests: BatonTestCase {
    /// Ordering a window in makes its controllers appear — parent, then child (whose view is a
    /// subview) will, then child, then parent did — with the window not yet visible at
    /// "will" and visible at "did"; ordering it out makes them disappear the same way; a second
    /// orderFront sends nothing.
    func testOrderingInAndOutAppearsAndDisappearsInOrder() {
        MainActor.assumeIsolated {
            app.activate()
            let journal = AppearanceJournal()
            let parent = AppearanceController("parent", journal: journal)
            let child = AppearanceController("child", journal: journal)
            parent.addChild(child)
            parent.view.addSubview(child.view)
            let window = Window(title: "w", contentViewController: parent)
            journal.window = window
            XCTAssertEqual(journal.take(), [], "a window that is not shown makes nothing appear")

            window.makeKeyAndOrderFront(nil)
            XCTAssertEqual(journal.entries, ["parent willAppear", "parent willAppear(false)", "child willAppear",
                                             "child willAppear(false)", "child didAppear", "parent didAppear"])
            XCTAssertEqual(journal.visibleAt["parent willAppear"], false)
            XCTAssertEqual(journal.visibleAt["parent didAppear"], true)
            journal.take()
            window.orderFront(nil)
            XCTAssertEqual(journal.take(), [], "already visible: nothing again")

            window.orderOut(nil)
            XCTAssertEqual(journal.entries, ["parent willDisappear", "child willDisappear", "child didDisappear",
                                             "child didDisappear(false)", "parent didDisappear", "parent didDisappear(false)"])
            XCTAssertEqual(journal.visibleAt["parent willDisappear"], true)
            XCTAssertEqual(journal.visibleAt["parent didDisappear"], false)
            journal.take()
            window.orderOut(nil)
            XCTAssertEqual(journal.take(), [], "already out: nothing again")

            window.orderBack(nil)
            XCTAssertEqual(journal.take().filter { $0.hasSuffix("Appear") },
                           ["parent willAppear", "child willAppear", "child didAppear", "parent didAppear"])
            window.close()
            XCTAssertEqual(journal.take().filter { $0.hasSuffix("Disappear") },
                           ["parent willDisappear", "child willDisappear", "child didDisappear", "parent didDisappear"])
        }
    }

    /// A view added to a visible window appears, and disappears when it leaves it; added to a
    /// window that is not shown, it appears only when the window is shown.
    func testAViewEnteringAVisibleWindowAppears() {
        MainActor.assumeIsolated {
            let journal = AppearanceJournal()
            let root = AppearanceController("root", journal: journal)
            let window = Window(title: "w", contentViewController: root)
            window.orderFront(nil)
            journal.take()
            let late = AppearanceController("late", journal: journal)
            root.view.addSubview(late.view)
            XCTAssertEqual(journal.take().filter { $0.hasSuffix("Appear") }, ["late willAppear", "late didAppear"])
            late.view.removeFromSuperview()
            XCTAssertEqual(journal.take().filter { $0.hasSuffix("Disappear") }, ["late willDisappear", "late didDisappear"])

            let hidden = Window(title: "hidden")
            let content = AppearanceController("content", journal: journal)
            hidden.contentViewController = content
            XCTAssertEqual(journal.take(), [], "in a window not shown: no appearance yet")
            hidden.orderFront(nil)
            XCTAssertEqual(journal.take().filter { $0.hasSuffix("Appear") }, ["content willAppear", "content didAppear"])
            hidden.contentViewController = nil
            XCTAssertEqual(journal.take().filter { $0.hasSuffix("Disappear") }, ["content willDisappear", "content didDisappear"])
        }
    }

    /// Hiding the application makes its windows' controllers disappear, unhiding makes them
    /// appear ("becoming unhidden").
    func testHidingAndUnhidingTheApplication() {
        MainActor.assumeIsolated {
            app.activate()
            let journal = AppearanceJournal()
            let root = AppearanceController("root", journal: journal)
            let window = Window(title: "w", contentViewController: root)
            journal.window = window
            window.makeKeyAndOrderFront(nil)
            journal.take()
            app.hide(nil)
            XCTAssertEqual(journal.entries.filter { $0.hasSuffix("Disappear") }, ["root willDisappear", "root didDisappear"])
            XCTAssertEqual(journal.visibleAt["root didDisappear"], false)
            journal.take()
            window.orderFront(nil)
            XCTAssertEqual(journal.take(), [], "ordered in while hidden: not visible, no appearance")
            app.unhide(nil)
            XCTAssertEqual(journal.entries.filter { $0.hasSuffix("Appear") }, ["root willAppear", "root didAppear"])
            XCTAssertEqual(journal.visibleAt["root didAppear"], true)
        }
    }

    /// A presented controller appears when presented (its window is shown) and disappears when
    /// dismissed (its window closes); a transient popover closed by the loop, when another
    /// window becomes key, disappears on that turn of the real GLib loop.
    func testPresentedControllersAppearAndDisappear() {
        MainActor.assumeIsolated {
            app.activate()
            let journal = AppearanceJournal()
            let presenter = AppearanceController("presenter", journal: journal)
            let home = Window(title: "home", contentViewController: presenter)
            home.makeKeyAndOrderFront(nil)
            journal.take()

            let sheet = AppearanceController("sheet", journal: journal)
            presenter.presentAsSheet(sheet)
            XCTAssertEqual(journal.take().filter { $0.hasSuffix("Appear") }, ["sheet willAppear", "sheet didAppear"],
                           "the presenter does not disappear: its window stays")
            presenter.dismiss(sheet)
            XCTAssertEqual(journal.take().filter { $0.hasSuffix("Disappear") }, ["sheet willDisappear", "sheet didDisappear"])

            let popover = AppearanceController("popover", journal: journal)
            presenter.present(popover, asPopoverRelativeTo: .zero, of: presenter.view, preferredEdge: .maxY,
                              behavior: .transient)
            XCTAssertEqual(journal.take().filter { $0.hasSuffix("Appear") }, ["popover willAppear", "popover didAppear"])
            let other = Window(title: "other")
            other.makeKeyAndOrderFront(nil)
            XCTAssertEqual(journal.entries, [], "the popover closes on the next turn of the loop")
            spin(until: { journal.entries.contains("popover didDisappear") })
            XCTAssertEqual(journal.take().filter { $0.hasSuffix("Disappear") }, ["popover willDisappear", "popover didDisappear"])
            XCTAssertNil(presenter.presentedViewControllers)
        }
    }

    /// UIKit's forms alone, overridden without AppKit's: called by the defaults with false.
    func testUIKitFormsAreCalledByTheDefaults() {
        MainActor.assumeIsolated {
            final class UIKitStyle: ViewController {
                var calls: [String] = []
                override func viewWillAppear(_ animated: Bool) { super.viewWillAppear(animated); calls.append("willAppear \(animated)") }
                override func viewDidAppear(_ animated: Bool) { super.viewDidAppear(animated); calls.append("didAppear \(animated)") }
                override func viewWillDisappear(_ animated: Bool) { super.viewWillDisappear(animated); calls.append("willDisappear \(animated)") }
                override func viewDidDisappear(_ animated: Bool) { super.viewDidDisappear(animated); calls.append("didDisappear \(animated)") }
            }
            let controller = UIKitStyle(title: "ui")
            let window = Window(title: "w", contentViewController: controller)
            window.orderFront(nil)
            window.orderOut(nil)
            XCTAssertEqual(controller.calls, ["willAppear false", "didAppear false", "willDisappear false", "didDisappear false"])
        }
    }

    /// init(nibName:bundle:) is the designated initializer a subclass overrides and calls;
    /// the nib is ignored (kept in nibName); init(title:) is inherited and still works.
    func testInitNibNameBundleIsTheDesignatedInitializer() {
        MainActor.assumeIsolated {
            final class Overriding: ViewController {
                var initialized = false
                override init(nibName nibNameOrNil: Nib.Name?, bundle nibBundleOrNil: Bundle?) {
                    super.init(nibName: nibNameOrNil, bundle: nibBundleOrNil)
                    initialized = true
                }
            }
            let named = Overriding(nibName: "Main", bundle: nil)
            XCTAssertTrue(named.initialized)
            XCTAssertEqual(named.nibName, "Main")
            XCTAssertEqual(named.view.identifier, nil, "no nib is loaded: loadView() made the view")
            let titled = Overriding(title: "t")
            XCTAssertTrue(titled.initialized, "init(title:) goes through the overridden designated initializer")
            XCTAssertEqual(titled.title, "t")
            XCTAssertNil(ViewController().title)
        }
    }
}
