@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// A view that sends the chain to another responder by overriding UIKit's `next`.
final class RedirectingView: View {
    weak var redirect: Responder?
    override var acceptsFirstResponder: Bool { true }
    override var next: Responder? { redirect ?? super.next }
}

/// A view that does the same by overriding AppKit's `nextResponder` getter.
final class AppKitRedirectingView: View {
    weak var redirect: Responder?
    override var acceptsFirstResponder: Bool { true }
    override var nextResponder: Responder? {
        get { redirect ?? super.nextResponder }
        set { super.nextResponder = newValue }
    }
}

/// A responder outside any window that handles `copy` and has an undo manager.
final class SideResponder: Responder, Copying {
    var copies = 0
    let ownUndoManager = UndoManager()
    func copy(_ sender: Any?) { copies += 1 }
    override var undoManager: UndoManager? { ownUndoManager }
}

/// UIKit's `next` (https://developer.apple.com/documentation/uikit/uiresponder/next) and
/// AppKit's `nextResponder` (https://developer.apple.com/documentation/appkit/nsresponder/nextresponder):
/// the chain follows `next`, whose default is `nextResponder`, so overriding either spelling
/// moves the chain.
final class ResponderNextTests: BatonTestCase {
    func testOverridingNextOrNextResponderMovesTheChain() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            for view in [RedirectingView(identifier: "ui"), AppKitRedirectingView(identifier: "appkit")] as [View] {
                let side = SideResponder()
                let root = View(identifier: "root")
                root.addSubview(view)
                let window = Window(title: "w")
                window.contentView = root
                window.makeKeyAndOrderFront(nil)
                window.makeFirstResponder(view)
                XCTAssertTrue(view.next === root, "by default next is nextResponder")
                (view as? RedirectingView)?.redirect = side
                (view as? AppKitRedirectingView)?.redirect = side
                XCTAssertTrue(view.next === side)
                XCTAssertTrue(view.nextResponder === side || view is RedirectingView)
                XCTAssertTrue(Application.shared.sendAction(.copy, to: nil, from: nil))
                XCTAssertEqual(side.copies, 1, "\(view.responderDescription): the action followed the override")
                XCTAssertTrue(view.undoManager === side.ownUndoManager, "undoManager is found through next")
                XCTAssertTrue(ResponderChain.from(view).contains { $0 === side })
                window.close()
            }
        }
    }
}
