@testable import Baton
import Foundation
import XCTest

/// The end of the chain for events: records `noResponder(for:)` with the event method's action.
final class EventEndDelegate: Responder, ApplicationDelegate {
    var unhandled: [String] = []
    var unhandledKeyDowns = 0
    override func noResponder<Handler>(for eventSelector: Action<Handler>) {
        unhandled.append(eventSelector.name)
        if AnyAction(eventSelector) == Action<Responder>.keyDown { unhandledKeyDowns += 1 }
    }
}

/// NSResponder's event methods (https://developer.apple.com/documentation/appkit/nsresponder):
/// "Event Handling Basics" (Cocoa Event Handling Guide): an event a responder does not handle
/// goes to its next responder; at the end of the chain `noResponder(for:)` is called
/// (https://developer.apple.com/documentation/appkit/nsresponder/noresponder(for:)).
final class EventResponderTests: BatonTestCase {
    /// GNUstep libs-gui's NSResponder test, ported by renaming: "default keyDown: forwards the
    /// event to nextResponder".
    func testDefaultKeyDownForwardsTheEventToNextResponder() {
        MainActor.assumeIsolated {
            let first = Responder(), second = RecordingView()
            first.nextResponder = second
            let event = keyEvent("a")
            first.keyDown(with: event)
            XCTAssertEqual(second.received, ["keyDown"])
        }
    }

    func testEveryEventMethodPassesUpTheChainAndEndsInNoResponder() {
        MainActor.assumeIsolated {
            let delegate = EventEndDelegate()
            Application.shared.delegate = delegate
            let window = Window(title: "w")
            let root = View(identifier: "root"), leaf = View(identifier: "leaf")
            root.addSubview(leaf)
            window.contentView = root
            let mouse = mouseEvent(.leftMouseDown, at: .zero, in: window)
            let calls: [(Responder) -> Void] = [
                { $0.keyDown(with: keyEvent("a")) }, { $0.keyUp(with: keyEvent("a", type: .keyUp)) },
                { $0.flagsChanged(with: keyEvent("", .shift, type: .flagsChanged)) },
                { $0.mouseDown(with: mouse) }, { $0.mouseUp(with: mouse) }, { $0.mouseDragged(with: mouse) },
                { $0.mouseMoved(with: mouse) }, { $0.mouseEntered(with: mouse) }, { $0.mouseExited(with: mouse) },
                { $0.rightMouseDown(with: mouse) }, { $0.rightMouseUp(with: mouse) },
                { $0.rightMouseDragged(with: mouse) }, { $0.otherMouseDown(with: mouse) },
                { $0.otherMouseUp(with: mouse) }, { $0.otherMouseDragged(with: mouse) },
                { $0.scrollWheel(with: mouse) }, { $0.insertText("x") },
            ]
            for call in calls { call(leaf) }
            XCTAssertEqual(delegate.unhandled, [
                "keyDown(with:)", "keyUp(with:)", "flagsChanged(with:)", "mouseDown(with:)", "mouseUp(with:)",
                "mouseDragged(with:)", "mouseMoved(with:)", "mouseEntered(with:)", "mouseExited(with:)",
                "rightMouseDown(with:)", "rightMouseUp(with:)", "rightMouseDragged(with:)", "otherMouseDown(with:)",
                "otherMouseUp(with:)", "otherMouseDragged(with:)", "scrollWheel(with:)", "insertText(_:)",
            ], "each reached the delegate, the chain's last responder, through view, window and application")
            XCTAssertEqual(delegate.unhandledKeyDowns, 1, "the action compares equal to Action<Responder>.keyDown")
        }
    }

    func testAResponderThatHandlesTheEventStopsIt() {
        MainActor.assumeIsolated {
            let delegate = EventEndDelegate()
            Application.shared.delegate = delegate
            let window = Window(title: "w")
            let root = RecordingView(identifier: "root"), leaf = RecordingView(identifier: "leaf")
            root.addSubview(leaf)
            window.contentView = root
            leaf.handles = false
            leaf.keyDown(with: keyEvent("a"))
            XCTAssertEqual(leaf.received, ["keyDown"])
            XCTAssertEqual(root.received, ["keyDown"], "the superview is the leaf's next responder")
            XCTAssertEqual(delegate.unhandled, [], "the root handled it")
        }
    }

    /// tryToPerform(_:with:) with an event method's action calls the method, as AppKit's does
    /// with `#selector(keyDown(with:))`.
    func testEventActionsPerformTheEventMethod() {
        MainActor.assumeIsolated {
            let view = RecordingView()
            XCTAssertTrue(view.tryToPerform(Action<Responder>.mouseDown, with: keyEvent("a")))
            XCTAssertEqual(view.received, ["mouseDown"])
        }
    }

    /// performKeyEquivalent(with:): NSResponder's returns false; NSView's "passes the message to
    /// each of its subviews" and returns true if one handles it
    /// (https://developer.apple.com/documentation/appkit/nsview/performkeyequivalent(with:)).
    func testPerformKeyEquivalentGoesThroughSubviews() {
        MainActor.assumeIsolated {
            XCTAssertFalse(Responder().performKeyEquivalent(with: keyEvent("s", .command)))
            let root = View(), middle = View(), deep = RecordingView(), hidden = RecordingView()
            root.addSubview(middle)
            middle.addSubview(deep)
            root.addSubview(hidden)
            deep.equivalents = ["s"]
            hidden.equivalents = ["p"]
            hidden.isHidden = true
            XCTAssertTrue(root.performKeyEquivalent(with: keyEvent("s", .command)))
            XCTAssertEqual(deep.received, ["performKeyEquivalent s"])
            XCTAssertFalse(root.performKeyEquivalent(with: keyEvent("p", .command)), "a hidden view is not offered it")
            XCTAssertFalse(root.performKeyEquivalent(with: keyEvent("q", .command)))
        }
    }
}
