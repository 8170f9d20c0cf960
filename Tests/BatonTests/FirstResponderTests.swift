@testable import Baton
import XCTest

final class StubbornView: View {
    var resigns = true
    var becomes = true
    var accepts = true
    override var acceptsFirstResponder: Bool { accepts }
    override func becomeFirstResponder() -> Bool { becomes }
    override func resignFirstResponder() -> Bool { resigns }
}

/// AppKit NSWindow.makeFirstResponder(_:), Discussion.
final class FirstResponderTests: BatonTestCase {
    func testWindowIsItsOwnFirstResponderAtFirst() {
        MainActor.assumeIsolated {
            let window = Window(title: "new")
            XCTAssertTrue(window.firstResponder === window)
        }
    }

    func testCurrentFirstResponderMayRefuseToResign() {
        MainActor.assumeIsolated {
            let window = Window(title: "w")
            let holder = StubbornView(), other = StubbornView()
            let root = View()
            root.addSubview(holder)
            root.addSubview(other)
            window.contentView = root
            XCTAssertTrue(window.makeFirstResponder(holder))
            holder.resigns = false
            XCTAssertFalse(window.makeFirstResponder(other))
            XCTAssertTrue(window.firstResponder === holder)
            XCTAssertFalse(window.makeFirstResponder(nil), "nil still asks the current one to resign")
            XCTAssertTrue(window.firstResponder === holder)
        }
    }

    func testRefusingToBecomeMakesTheWindowFirstResponderAndStillReturnsTrue() {
        MainActor.assumeIsolated {
            let window = Window(title: "w")
            let view = StubbornView()
            window.contentView = view
            view.becomes = false
            XCTAssertTrue(window.makeFirstResponder(view))
            XCTAssertTrue(window.firstResponder === window)
            view.becomes = true
            view.accepts = false
            XCTAssertTrue(window.makeFirstResponder(view))
            XCTAssertTrue(window.firstResponder === window)
        }
    }

    func testNilMakesTheWindowFirstResponder() {
        MainActor.assumeIsolated {
            let window = Window(title: "w")
            let view = StubbornView()
            window.contentView = view
            window.makeFirstResponder(view)
            XCTAssertTrue(window.makeFirstResponder(nil))
            XCTAssertTrue(window.firstResponder === window)
        }
    }

    func testAViewOfAnotherWindowIsRefused() {
        MainActor.assumeIsolated {
            let mine = Window(title: unique("mine")), theirs = Window(title: "theirs")
            let view = StubbornView()
            theirs.contentView = view
            XCTAssertFalse(mine.makeFirstResponder(view))
            XCTAssertTrue(mine.firstResponder === mine)
            assertRefused("firstResponderNotInWindow", mentioning: mine.title)
        }
    }

    func testRemovingTheFirstResponderHandsStatusBackToTheWindow() {
        MainActor.assumeIsolated {
            let window = Window(title: "w")
            let root = View(), view = StubbornView()
            root.addSubview(view)
            window.contentView = root
            window.makeFirstResponder(view)
            view.removeFromSuperview()
            XCTAssertTrue(window.firstResponder === window)
            XCTAssertNil(view.window)
        }
    }
}
