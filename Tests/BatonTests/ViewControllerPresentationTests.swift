@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// A presented controller whose view accepts first responder and which handles `copy`.
final class DetailController: ViewController, Copying {
    var copies = 0
    override func loadView() { view = FocusView(identifier: title) }
    func copy(_ sender: Any?) { copies += 1 }
}

/// An animator that records what it was asked.
@MainActor
final class RecordingAnimator: ViewControllerPresentationAnimator {
    var calls: [String] = []
    func animatePresentation(of viewController: ViewController, from fromViewController: ViewController) {
        calls.append("present \(viewController.title ?? "?") from \(fromViewController.title ?? "?")")
    }
    func animateDismissal(of viewController: ViewController, from fromViewController: ViewController) {
        calls.append("dismiss \(viewController.title ?? "?") from \(fromViewController.title ?? "?")")
    }
}

@MainActor private var app: Application { .shared }

/// NSViewController presentation (https://developer.apple.com/documentation/appkit/nsviewcontroller,
/// "Presenting Another View Controller's Content") and UIKit's present/dismiss
/// (https://developer.apple.com/documentation/uikit/uiviewcontroller/present(_:animated:completion:)).
/// A presented controller lives in a window of its own.
final class ViewControllerPresentationTests: BatonTestCase {
    /// presentAsSheet(_:): the sheet is key, its view first responder, actions go up its chain;
    /// the presenting window stays main; dismiss(_:) closes it and gives key back
    /// (https://developer.apple.com/documentation/appkit/nsviewcontroller/presentassheet(_:),
    /// .../dismiss(_:)-6k8t1).
    func testASheetIsKeyWithItsOwnChainAndDismissingGivesKeyBack() {
        MainActor.assumeIsolated {
            app.activate()
            let (home, presenter) = showActivityWindow("home", activity: nil)
            let detail = DetailController(title: "detail")
            presenter.presentAsSheet(detail)

            let sheet = detail.view.window
            XCTAssertNotNil(sheet)
            XCTAssertTrue(sheet is Panel)
            XCTAssertFalse(sheet === home, "a window of its own")
            XCTAssertTrue(app.keyWindow === sheet)
            XCTAssertTrue(app.mainWindow === home, "a sheet does not become main")
            XCTAssertTrue(sheet?.firstResponder === detail.view)
            XCTAssertTrue(ResponderChain.from(detail.view).contains { $0 === sheet })
            XCTAssertFalse(ResponderChain.from(detail.view).contains { $0 === home })
            XCTAssertTrue(app.sendAction(.copy, to: nil, from: nil))
            XCTAssertEqual(detail.copies, 1, "the action went up the sheet's chain")
            XCTAssertEqual(presenter.presentedViewControllers?.count, 1)
            XCTAssertTrue(presenter.presentedViewController === detail)
            XCTAssertTrue(detail.presentingViewController === presenter)

            presenter.dismiss(detail)
            XCTAssertTrue(sheet?.isClosed == true)
            XCTAssertTrue(app.keyWindow === home)
            XCTAssertTrue(home.firstResponder === presenter.view)
            XCTAssertNil(presenter.presentedViewControllers)
            XCTAssertNil(detail.presentingViewController)
        }
    }

    /// presentAsModalWindow(_:): the window is key and main, so the presented controller's
    /// activity becomes current; dismissing makes the presenter's window key and main again
    /// and its activity current (https://developer.apple.com/documentation/appkit/nsviewcontroller/presentasmodalwindow(_:)).
    func testAModalWindowBecomesMainAndItsActivityCurrent() {
        MainActor.assumeIsolated {
            app.activate()
            let browsing = UserActivity(activityType: "com.example.browsing")
            let editing = UserActivity(activityType: "com.example.editing")
            let (home, presenter) = showActivityWindow("home", activity: browsing)
            XCTAssertTrue(browsing.isCurrent)
            let detail = ActivityController(title: "editor")
            detail.userActivity = editing
            presenter.presentAsModalWindow(detail)
            let modal = detail.view.window
            XCTAssertTrue(app.keyWindow === modal)
            XCTAssertTrue(app.mainWindow === modal)
            XCTAssertTrue(modal?.firstResponder === detail.view)
            XCTAssertTrue(editing.isCurrent, "the presented controller's activity is current")
            presenter.dismiss(detail)
            XCTAssertTrue(app.keyWindow === home)
            XCTAssertTrue(app.mainWindow === home)
            XCTAssertTrue(browsing.isCurrent, "back to the presenter's activity")
        }
    }

    /// present(_:asPopoverRelativeTo:of:preferredEdge:behavior:): a popover with that behaviour
    /// shows the controller, key; closing the popover dismisses the presentation
    /// (https://developer.apple.com/documentation/appkit/nsviewcontroller/present(_:asPopoverRelativeTo:of:preferredEdge:behavior:)).
    func testAPopoverIsKeyAndClosingItDismisses() {
        MainActor.assumeIsolated {
            app.activate()
            let (home, presenter) = showActivityWindow("map", activity: nil)
            let detail = DetailController(title: "store")
            presenter.present(detail, asPopoverRelativeTo: NSRect(x: 10, y: 10, width: 20, height: 20),
                              of: presenter.view, preferredEdge: .maxY, behavior: .transient)
            let popover = detail.presentationPopover
            XCTAssertEqual(popover?.behavior, .transient)
            XCTAssertEqual(popover?.isShown, true)
            XCTAssertTrue(app.keyWindow === detail.view.window)
            XCTAssertTrue(app.mainWindow === home)
            popover?.close()
            XCTAssertEqual(popover?.isShown, false)
            XCTAssertNil(presenter.presentedViewControllers, "closing the popover dismissed the presentation")
            XCTAssertTrue(app.keyWindow === home)
        }
    }

    /// UIKit present(_:animated:completion:) and dismiss(animated:completion:) called on the
    /// presented controller ("the presenting view controller ... dismisses it"), with a nested
    /// presentation dismissed with it (https://developer.apple.com/documentation/uikit/uiviewcontroller/dismiss(animated:completion:)).
    func testUIKitPresentAndDismissFromThePresented() {
        MainActor.assumeIsolated {
            app.activate()
            let (home, presenter) = showActivityWindow("home", activity: nil)
            let detail = DetailController(title: "detail")
            let nested = DetailController(title: "nested")
            var completions: [String] = []
            presenter.present(detail, animated: true) { completions.append("presented") }
            detail.present(nested, animated: false)
            XCTAssertTrue(app.keyWindow === nested.view.window)
            let windows = [detail.view.window, nested.view.window]
            detail.dismiss(animated: true) { completions.append("dismissed") }  // dismisses what detail presented
            XCTAssertNil(detail.presentedViewController)
            XCTAssertTrue(detail.presentingViewController === presenter)
            XCTAssertTrue(app.keyWindow === detail.view.window)
            detail.dismiss(animated: true)  // now detail itself, through its presenter
            XCTAssertNil(presenter.presentedViewController)
            XCTAssertTrue(windows.allSatisfy { $0?.isClosed == true })
            XCTAssertTrue(app.keyWindow === home)
            XCTAssertEqual(completions, ["presented", "dismissed"])
        }
    }

    /// dismiss(_ sender:) on the presented controller, and dismissing a presenter's chain at
    /// once: dismissing a controller first dismisses what it presents
    /// (https://developer.apple.com/documentation/appkit/nsviewcontroller/dismiss(_:)-4unti).
    func testDismissWithASenderAndNestedPresentations() {
        MainActor.assumeIsolated {
            app.activate()
            let (home, presenter) = showActivityWindow("home", activity: nil)
            let detail = DetailController(title: "detail")
            let nested = DetailController(title: "nested")
            presenter.presentAsSheet(detail)
            detail.presentAsSheet(nested)
            let nestedWindow = nested.view.window
            presenter.dismiss(detail)
            XCTAssertTrue(nestedWindow?.isClosed == true)
            XCTAssertNil(nested.presentingViewController)
            XCTAssertTrue(app.keyWindow === home)
            presenter.presentAsModalWindow(detail)
            detail.dismiss(nil as Any?)
            XCTAssertNil(presenter.presentedViewControllers)
            XCTAssertTrue(app.keyWindow === home)
        }
    }

    /// present(_:animator:): the animator presents and dismisses; no window is made
    /// (https://developer.apple.com/documentation/appkit/nsviewcontroller/present(_:animator:)).
    func testAnAnimatorPresentsAndDismisses() {
        MainActor.assumeIsolated {
            let presenter = ViewController(title: "p")
            let detail = ViewController(title: "d")
            let animator = RecordingAnimator()
            presenter.present(detail, animator: animator)
            XCTAssertNil(detail.view.window)
            XCTAssertTrue(presenter.presentedViewController === detail)
            presenter.dismiss(detail)
            XCTAssertEqual(animator.calls, ["present d from p", "dismiss d from p"])
        }
    }

    /// Presenting a controller that is already presented is refused (AppKit raises).
    func testPresentingAPresentedControllerIsRefused() {
        MainActor.assumeIsolated {
            let presenter = ViewController(title: unique("p"))
            let detail = DetailController(title: "twice")
            presenter.presentAsSheet(detail)
            presenter.presentAsModalWindow(detail)
            XCTAssertEqual(presenter.presentedViewControllers?.count, 1)
            assertRefused("viewControllerAlreadyPresented", mentioning: presenter.title!)
        }
    }

    /// Popover behaviours (https://developer.apple.com/documentation/appkit/nspopover/behavior-swift.enum):
    /// a transient popover closes when the user interacts outside it — in Baton, when another
    /// window becomes key; a semitransient one when its own window (the positioning view's)
    /// does; an application-defined one only when the app closes it. Closing dismisses the
    /// presentation.
    func testPopoverBehaviours() {
        MainActor.assumeIsolated {
            app.activate()
            let (home, presenter) = showActivityWindow("home", activity: nil)
            let elsewhere = Window(title: "elsewhere")
            @MainActor func present(_ behavior: Popover.Behavior) -> DetailController {
                let detail = DetailController(title: "\(behavior)")
                presenter.present(detail, asPopoverRelativeTo: .zero, of: presenter.view, preferredEdge: .minX, behavior: behavior)
                return detail
            }

            let transient = present(.transient)
            elsewhere.makeKeyAndOrderFront(nil)
            spin(until: { presenter.presentedViewControllers == nil })
            XCTAssertNil(transient.presentingViewController)

            let semi = present(.semitransient)
            elsewhere.makeKeyAndOrderFront(nil)
            drainIdle()
            XCTAssertTrue(presenter.presentedViewController === semi, "another window: a semitransient popover stays")
            home.makeKeyAndOrderFront(nil)
            spin(until: { presenter.presentedViewControllers == nil })

            let defined = present(.applicationDefined)
            elsewhere.makeKeyAndOrderFront(nil)
            home.makeKeyAndOrderFront(nil)
            app.deactivate()
            drainIdle()
            XCTAssertTrue(presenter.presentedViewController === defined, "application-defined: only the app closes it")
            presenter.dismiss(defined)
        }
    }

    /// Dismissing gives key back to the presenting controller's window even when that is not
    /// the main window (here a panel, which can be key but not main).
    func testDismissingGivesKeyBackToAPresentingPanel() {
        MainActor.assumeIsolated {
            app.activate()
            let (home, _) = showActivityWindow("home", activity: nil)
            let inspector = DetailController(title: "inspector")
            let panel = Panel(title: "inspector", contentViewController: inspector)
            panel.makeKeyAndOrderFront(nil)
            let detail = DetailController(title: "detail")
            inspector.presentAsSheet(detail)
            XCTAssertTrue(app.keyWindow === detail.view.window)
            inspector.dismiss(detail)
            XCTAssertTrue(app.keyWindow === panel, "key goes back to the presenter's window, not the main window")
            XCTAssertTrue(app.mainWindow === home)
        }
    }

    /// Closing a presented controller's window by its close button (performClose) dismisses
    /// the presentation, as the user closing a modal window does in AppKit.
    func testClosingThePresentedWindowDismisses() {
        MainActor.assumeIsolated {
            app.activate()
            let (home, presenter) = showActivityWindow("home", activity: nil)
            let detail = DetailController(title: "detail")
            presenter.presentAsModalWindow(detail)
            detail.view.window?.performClose(nil)
            XCTAssertNil(presenter.presentedViewControllers)
            XCTAssertNil(detail.presentingViewController)
            XCTAssertTrue(app.keyWindow === home)
            let popoverContent = DetailController(title: "popover")
            presenter.present(popoverContent, asPopoverRelativeTo: .zero, of: presenter.view, preferredEdge: .maxX,
                              behavior: .applicationDefined)
            let popover = popoverContent.presentationPopover
            popoverContent.view.window?.close()
            XCTAssertNil(presenter.presentedViewControllers)
            XCTAssertEqual(popover?.isShown, false)
        }
    }

    /// presentAsSheet(_:) and presentAsModalWindow(_:): "The presented view controller is the
    /// delegate and the content view controller of its sheet" (window), so it is asked
    /// windowShouldClose(_:) and hears windowWillClose(_:)
    /// (https://developer.apple.com/documentation/appkit/nsviewcontroller/presentassheet(_:),
    /// .../presentasmodalwindow(_:)).
    func testThePresentedControllerIsTheContentControllerAndDelegateOfItsWindow() {
        MainActor.assumeIsolated {
            app.activate()
            let (_, presenter) = showActivityWindow("home", activity: nil)
            let sheetContent = ClosingController(title: "sheet")
            presenter.presentAsSheet(sheetContent)
            let sheet = sheetContent.view.window
            XCTAssertTrue(sheet?.contentViewController === sheetContent)
            XCTAssertTrue(sheet?.delegate === sheetContent)

            let modalContent = ClosingController(title: "modal")
            presenter.presentAsModalWindow(modalContent)
            let modal = modalContent.view.window
            XCTAssertTrue(modal?.contentViewController === modalContent)
            XCTAssertTrue(modal?.delegate === modalContent)

            modalContent.allowsClose = false
            modal?.performClose(nil)
            XCTAssertEqual(modal?.isClosed, false, "the presented controller, as delegate, kept it open")
            XCTAssertEqual(modalContent.asked, 1)
            modalContent.allowsClose = true
            modal?.performClose(nil)
            XCTAssertEqual(modal?.isClosed, true)
            XCTAssertEqual(modalContent.closings, 1)
            XCTAssertNil(modalContent.presentingViewController)

            presenter.dismiss(sheetContent)
            XCTAssertEqual(sheetContent.closings, 1, "the sheet's delegate heard it close")
        }
    }
}

/// A presented controller that answers, as its window's delegate, whether it may close.
final class ClosingController: ViewController {
    var allowsClose = true
    var asked = 0
    var closings = 0
    override func windowShouldClose(_ sender: Window) -> Bool {
        asked += 1
        return allowsClose
    }
    override func windowWillClose(_ notification: Notification) { closings += 1 }
}
