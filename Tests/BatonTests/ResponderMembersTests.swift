@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// A view that refuses to let `refused` become first responder, and records what it was asked.
final class GuardingView: View {
    weak var refused: Responder?
    var asked: [(Responder, Bool)] = []
    override func validateProposedFirstResponder(_ responder: Responder, for event: Event?) -> Bool {
        asked.append((responder, event == nil))
        return responder !== refused
    }
}

/// A responder that hands `copy` to a helper object it owns (AppKit's supplemental target).
final class SupplementingController: ViewController {
    let helper = CopyingHelper()
    var asked: [String] = []
    override func supplementalTarget<Handler>(forAction action: Action<Handler>, sender: Any?) -> Any? {
        asked.append(action.name)
        return action.name == "copy" ? helper : super.supplementalTarget(forAction: action, sender: sender)
    }
}

final class CopyingHelper: Copying {
    var copies = 0
    func copy(_ sender: Any?) { copies += 1 }
}

/// The last responder of the chain: it records the actions nobody handled.
final class NoResponderDelegate: Responder, ApplicationDelegate {
    var unhandled: [String] = []
    override func noResponder<Handler>(for eventSelector: Action<Handler>) { unhandled.append(eventSelector.name) }
}

@MainActor protocol Pasting { func paste(_ sender: Any?) }
extension Action where Handler == any Pasting {
    static let paste = Action("paste") { $0.paste($1) }
}

/// NSResponder's members (https://developer.apple.com/documentation/appkit/nsresponder).
final class ResponderMembersTests: BatonTestCase {
    /// validateProposedFirstResponder(_:for:): true by default; Baton's makeFirstResponder asks
    /// the responders above the proposed one, with a nil event, and a no keeps the current one
    /// (https://developer.apple.com/documentation/appkit/nsresponder/validateproposedfirstresponder(_:for:)).
    func testMakeFirstResponderAsksTheAncestorsToValidate() {
        MainActor.assumeIsolated {
            let table = GuardingView(identifier: "table")
            let cell = FocusView(identifier: "cell"), other = FocusView(identifier: "other")
            table.addSubview(cell)
            table.addSubview(other)
            let window = Window(title: "w")
            window.contentView = table
            XCTAssertTrue(View().validateProposedFirstResponder(cell, for: nil), "true by default")
            table.refused = cell
            XCTAssertTrue(window.makeFirstResponder(other))
            XCTAssertFalse(window.makeFirstResponder(cell))
            XCTAssertTrue(window.firstResponder === other, "the refused change changes nothing")
            XCTAssertEqual(table.asked.map { $0.0 === other ? "other" : "cell" }, ["other", "cell"])
            XCTAssertTrue(table.asked.allSatisfy(\.1), "asked with a nil event")
        }
    }

    /// supplementalTarget(forAction:sender:): asked when the responder itself does not handle
    /// the action; the object it returns handles it
    /// (https://developer.apple.com/documentation/appkit/nsresponder/supplementaltarget(foraction:sender:)).
    func testTheChainWalkUsesASupplementalTarget() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let controller = SupplementingController(title: "c")
            controller.view = FocusView(identifier: "v")
            let window = Window(title: "w", contentViewController: controller)
            window.makeKeyAndOrderFront(nil)
            window.makeFirstResponder(controller.view)
            XCTAssertTrue(Application.shared.target(forAction: .copy) === controller.helper)
            XCTAssertTrue(Application.shared.sendAction(.copy, to: nil, from: nil))
            XCTAssertEqual(controller.helper.copies, 1)
            XCTAssertTrue(controller.view.tryToPerform(.copy, with: nil))
            XCTAssertEqual(controller.helper.copies, 2)
            XCTAssertFalse(Application.shared.sendAction(.paste, to: nil, from: nil), "a nil supplement is no handler")
            XCTAssertEqual(controller.asked, ["copy", "copy", "copy", "paste"])
        }
    }

    /// noResponder(for:): "Handles the case where an event or action message falls off the end
    /// of the responder chain" (https://developer.apple.com/documentation/appkit/nsresponder/noresponder(for:)).
    func testAnActionNobodyHandlesReachesNoResponderAtTheEndOfTheChain() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let delegate = NoResponderDelegate()
            Application.shared.delegate = delegate
            let view = CopyingView()
            let window = Window(title: "w")
            window.contentView = view
            window.makeKeyAndOrderFront(nil)
            window.makeFirstResponder(view)
            XCTAssertTrue(Application.shared.sendAction(.copy, to: nil, from: nil))
            XCTAssertFalse(Application.shared.sendAction(.paste, to: nil, from: nil))
            XCTAssertFalse(Application.shared.sendAction(.paste, to: view, from: nil), "a given target that does not handle it")
            XCTAssertEqual(delegate.unhandled, ["paste"], "only for an action sent up the chain, and only when unhandled")
        }
    }

    /// undoManager: a responder's is its next responder's, up to the window's
    /// (https://developer.apple.com/documentation/appkit/nsresponder/undomanager,
    /// https://developer.apple.com/documentation/appkit/nswindow/undomanager).
    func testUndoManagerIsFoundUpTheChain() {
        MainActor.assumeIsolated {
            let controller = ViewController(title: "c")
            let leaf = View(identifier: "leaf")
            controller.view.addSubview(leaf)
            let window = Window(title: "w", contentViewController: controller)
            let windowController = WindowController(window: window)
            let manager = window.undoManager
            XCTAssertNotNil(manager)
            XCTAssertTrue(window.undoManager === manager, "the window keeps the one it made")
            XCTAssertTrue(leaf.undoManager === manager)
            XCTAssertTrue(controller.undoManager === manager)
            XCTAssertNil(View().undoManager, "a view in no window has none")
            XCTAssertNil(windowController.undoManager, "after the window in the chain: the application has none")
            XCTAssertNil(Application.shared.undoManager)
        }
    }

    /// NSWindowDelegate windowWillReturnUndoManager(_:): the delegate's undo manager is the
    /// window's (https://developer.apple.com/documentation/appkit/nswindowdelegate/windowwillreturnundomanager(_:)).
    func testTheWindowDelegateCanGiveTheUndoManager() {
        MainActor.assumeIsolated {
            final class Giving: WindowDelegate {
                let manager = UndoManager()
                func windowWillReturnUndoManager(_ window: Window) -> UndoManager? { manager }
            }
            let delegate = Giving()
            let window = Window(title: "w")
            window.delegate = delegate
            let view = View()
            window.contentView = view
            XCTAssertTrue(view.undoManager === delegate.manager)
        }
    }
}
