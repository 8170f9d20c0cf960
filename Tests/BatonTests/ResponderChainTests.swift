@testable import Baton
import XCTest

@MainActor protocol Copying { func copy(_ sender: Any?) }
extension Action where Handler == any Copying {
    static let copy = Action("copy") { $0.copy($1) }
}

final class CopyingView: View, Copying {
    var copies = 0
    override var acceptsFirstResponder: Bool { true }
    func copy(_ sender: Any?) { copies += 1 }
}

final class CopyingController: ViewController, Copying {
    var copies = 0
    func copy(_ sender: Any?) { copies += 1 }
}

final class CopyingWindowController: WindowController, Copying {
    var copies = 0
    func copy(_ sender: Any?) { copies += 1 }
}

final class CopyingDelegate: ApplicationDelegate, Copying {
    var copies = 0
    func copy(_ sender: Any?) { copies += 1 }
}

final class ResponderDelegate: Responder, ApplicationDelegate {}

/// The chain's order as ResponderChain.swift documents it (AppKit: "Responder chain",
/// NSViewController in the chain since macOS 10.10, NSWindowController after its window).
final class ResponderChainTests: BatonTestCase {
    func testChainRunsViewControllerSuperviewWindowControllerApplicationDelegate() {
        MainActor.assumeIsolated {
            let root = ViewController(title: "root")
            let child = ViewController(title: "child")
            let leaf = View(identifier: "leaf")
            root.view.addSubview(child.view)
            child.view.addSubview(leaf)
            let window = Window(title: "chain", contentViewController: root)
            let controller = WindowController(window: window)
            let delegate = ResponderDelegate()
            Application.shared.delegate = delegate

            let chain = ResponderChain.from(leaf).map { $0 }
            let expected: [Responder] = [leaf, child.view, child, root.view, root, window, controller,
                                         Application.shared, delegate]
            XCTAssertEqual(chain.map(\.responderDescription), expected.map(\.responderDescription))
            XCTAssertTrue(zip(chain, expected).allSatisfy { $0 === $1 })
        }
    }

    func testViewControllersNextResponderIsItsViewsSuperview() {
        MainActor.assumeIsolated {
            // AppKit NSViewController: its view's next responder is the controller, and the
            // controller's is the view's superview.
            let container = View(identifier: "container")
            let controller = ViewController(title: "inner")
            container.addSubview(controller.view)
            XCTAssertTrue(controller.view.nextResponder === controller)
            XCTAssertTrue(controller.nextResponder === container)
            controller.view.removeFromSuperview()
            XCTAssertNil(controller.nextResponder)
        }
    }

    func testResponderCycleIsRefusedAndTheChainKept() {
        MainActor.assumeIsolated {
            let a = View(identifier: unique("a"))
            let b = View(identifier: unique("b"))
            a.addSubview(b)  // b → a
            a.nextResponder = b  // a → b → a would loop: refused
            XCTAssertNil(a.nextResponder)
            XCTAssertTrue(b.nextResponder === a)
            assertRefused("responderCycle", mentioning: a.identifier!)
            a.nextResponder = a
            XCTAssertNil(a.nextResponder)
        }
    }

    func testAddingAnAncestorAsSubviewIsRefused() {
        MainActor.assumeIsolated {
            let outer = View(identifier: unique("outer"))
            let inner = View(identifier: "inner")
            outer.addSubview(inner)
            inner.addSubview(outer)
            XCTAssertNil(outer.superview)
            XCTAssertEqual(inner.subviews.count, 0)
            assertRefused("viewHierarchyCycle", mentioning: outer.identifier!)
        }
    }

    func testMovingAViewRelinksItsChain() {
        MainActor.assumeIsolated {
            let first = View(identifier: "first"), second = View(identifier: "second")
            let moving = View(identifier: "moving")
            first.addSubview(moving)
            second.addSubview(moving)
            XCTAssertTrue(moving.nextResponder === second)
            XCTAssertTrue(first.subviews.isEmpty)
            XCTAssertEqual(second.subviews.count, 1)
        }
    }
}

/// AppKit NSApplication.sendAction(_:to:from:): with a nil target the search begins with the
/// key window's first responder, follows its chain to the window (and its controller), then
/// the main window's first responder and chain, then the application and its delegate.
final class ActionDispatchTests: BatonTestCase {
    func testNilTargetReachesTheKeyWindowsFirstResponder() {
        MainActor.assumeIsolated {
            let view = CopyingView(identifier: "editor")
            let window = Window(title: "doc")
            window.contentView = view
            window.makeKeyAndOrderFront(nil)
            Application.shared.activate()
            XCTAssertTrue(window.makeFirstResponder(view))
            XCTAssertTrue(Application.shared.sendAction(.copy, to: nil, from: nil))
            XCTAssertEqual(view.copies, 1)
            XCTAssertTrue(Application.shared.target(forAction: Action.copy) === view)
        }
    }

    func testUpTheChainToTheViewControllerAndWindowController() {
        MainActor.assumeIsolated {
            let controller = CopyingController(title: "list")
            let window = Window(title: "doc", contentViewController: controller)
            let windowController = CopyingWindowController(window: window)
            let field = View(identifier: "field")
            controller.view.addSubview(field)
            window.makeKeyAndOrderFront(nil)
            Application.shared.activate()
            window.makeFirstResponder(field)  // a plain View refuses: the window is first responder
            XCTAssertTrue(window.firstResponder === window)
            // From the window the chain goes to its controller, not down into the views.
            XCTAssertTrue(Application.shared.sendAction(.copy, to: nil, from: nil))
            XCTAssertEqual(windowController.copies, 1)
            XCTAssertEqual(controller.copies, 0)
            XCTAssertTrue(field.tryToPerform(Action.copy, with: nil))
            XCTAssertEqual(controller.copies, 1)
        }
    }

    func testThenTheMainWindowWhenAPanelIsKey() {
        MainActor.assumeIsolated {
            let view = CopyingView(identifier: "canvas")
            let document = Window(title: "document")
            document.contentView = view
            document.makeKeyAndOrderFront(nil)
            document.makeFirstResponder(view)
            let panel = Panel(title: "inspector")
            panel.makeKeyAndOrderFront(nil)
            Application.shared.activate()
            XCTAssertTrue(Application.shared.keyWindow === panel)
            XCTAssertTrue(Application.shared.mainWindow === document)
            XCTAssertTrue(Application.shared.sendAction(.copy, to: nil, from: nil))
            XCTAssertEqual(view.copies, 1)
        }
    }

    func testThenTheApplicationDelegateEvenWhenNotAResponder() {
        MainActor.assumeIsolated {
            let delegate = CopyingDelegate()
            Application.shared.delegate = delegate
            let window = Window(title: "plain")
            window.makeKeyAndOrderFront(nil)
            Application.shared.activate()
            XCTAssertTrue(Application.shared.sendAction(.copy, to: nil, from: nil))
            XCTAssertEqual(delegate.copies, 1)
        }
    }

    func testNoHandlerReturnsFalseAndAnExplicitTargetMustHandle() {
        MainActor.assumeIsolated {
            let window = Window(title: "plain")
            window.makeKeyAndOrderFront(nil)
            Application.shared.activate()
            XCTAssertFalse(Application.shared.sendAction(.copy, to: nil, from: nil))
            XCTAssertNil(Application.shared.target(forAction: Action.copy))
            let handler = CopyingView()
            XCTAssertTrue(Application.shared.sendAction(.copy, to: handler, from: nil))
            XCTAssertEqual(handler.copies, 1)
            XCTAssertFalse(Application.shared.sendAction(.copy, to: window, from: nil))
        }
    }

    func testInactiveAppSendsOnlyToApplicationAndDelegate() {
        MainActor.assumeIsolated {
            let view = CopyingView()
            let window = Window(title: "doc")
            window.contentView = view
            window.makeKeyAndOrderFront(nil)
            window.makeFirstResponder(view)
            XCTAssertFalse(Application.shared.isActive)
            XCTAssertFalse(Application.shared.sendAction(.copy, to: nil, from: nil))
            XCTAssertEqual(view.copies, 0)
        }
    }
}
