@testable import Baton
import Foundation
import XCTest

/// A container that records the event its ancestors were asked to validate a first responder with.
final class ValidatingContainer: View {
    var proposedWith: [Event.EventType?] = []
    override func validateProposedFirstResponder(_ responder: Responder, for event: Event?) -> Bool {
        proposedWith.append(event?.type)
        return true
    }
}

/// A window whose content view is 200×100, with a left and a right view.
@MainActor
private func makeWindow(_ title: String) -> (Window, root: ValidatingContainer, left: RecordingView, right: RecordingView) {
    let window = Window(title: title)
    let root = ValidatingContainer(frame: CGRect(x: 0, y: 0, width: 200, height: 100))
    let left = RecordingView(frame: CGRect(x: 0, y: 0, width: 100, height: 100))
    let right = RecordingView(frame: CGRect(x: 100, y: 0, width: 100, height: 100))
    left.identifier = "left"
    right.identifier = "right"
    root.addSubview(left)
    root.addSubview(right)
    window.contentView = root
    return (window, root, left, right)
}

/// Event routing: NSApplication.sendEvent(_:) (https://developer.apple.com/documentation/appkit/nsapplication/sendevent(_:)),
/// NSWindow.sendEvent(_:) (https://developer.apple.com/documentation/appkit/nswindow/sendevent(_:)),
/// "Handling Key Events" and "Handling Mouse Events" (Cocoa Event Handling Guide).
final class EventRoutingTests: BatonTestCase {
    /// "Handling Key Events": key events go to the first responder of the key window.
    func testKeyEventsGoToTheKeyWindowsFirstResponder() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let (one, _, oneLeft, _) = makeWindow("one")
            let (two, _, twoLeft, _) = makeWindow("two")
            oneLeft.accepts = true
            twoLeft.accepts = true
            one.makeKeyAndOrderFront(nil)
            one.makeFirstResponder(oneLeft)
            two.orderFront(nil)
            two.makeFirstResponder(twoLeft)
            Application.shared.sendEvent(keyEvent("a", in: two))
            Application.shared.sendEvent(keyEvent("a", type: .keyUp, in: two))
            Application.shared.sendEvent(keyEvent("", .shift, type: .flagsChanged, in: two))
            XCTAssertEqual(oneLeft.received, ["keyDown", "keyUp", "flagsChanged"], "to the key window, whatever the event names")
            XCTAssertEqual(twoLeft.received, [])
        }
    }

    /// "Handling Key Events": a key equivalent is offered through the key window's view hierarchy
    /// (performKeyEquivalent(with:)) before the first responder gets keyDown(with:).
    func testKeyEquivalentsGoThroughTheViewTreeFirst() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let (window, _, left, right) = makeWindow("w")
            left.accepts = true
            right.equivalents = ["s"]
            window.makeKeyAndOrderFront(nil)
            window.makeFirstResponder(left)
            Application.shared.sendEvent(keyEvent("s", .command, in: window))
            XCTAssertEqual(right.received, ["performKeyEquivalent s"])
            XCTAssertEqual(left.received, [], "handled as an equivalent: no keyDown")
            Application.shared.sendEvent(keyEvent("x", .control, in: window))
            XCTAssertEqual(left.received, ["keyDown"], "not an equivalent of any view: the first responder gets it")
            Application.shared.sendEvent(keyEvent("s", in: window))
            XCTAssertEqual(left.received, ["keyDown", "keyDown"], "without Command or Control it is no equivalent")
            XCTAssertEqual(right.received, ["performKeyEquivalent s"])
        }
    }

    /// An unhandled key-down travels from the first responder to the end of the chain.
    func testAnUnhandledKeyDownReachesNoResponder() {
        MainActor.assumeIsolated {
            let delegate = EventEndDelegate()
            Application.shared.delegate = delegate
            Application.shared.activate()
            let (window, _, left, _) = makeWindow("w")
            left.accepts = true
            left.handles = false
            window.makeKeyAndOrderFront(nil)
            window.makeFirstResponder(left)
            window.sendEvent(keyEvent("z", in: window))
            XCTAssertEqual(left.received, ["keyDown"])
            XCTAssertEqual(delegate.unhandledKeyDowns, 1)
        }
    }

    /// "Handling Mouse Events": the window sends a mouse-down to the view under it (hitTest(_:)),
    /// which becomes first responder when it accepts; the drags and the mouse-up go to that view.
    func testAClickGoesToTheHitViewWhichBecomesFirstResponder() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let (window, root, left, right) = makeWindow("w")
            right.accepts = true
            window.makeKeyAndOrderFront(nil)
            Application.shared.sendEvent(mouseEvent(.leftMouseDown, at: CGPoint(x: 150, y: 50), in: window))
            XCTAssertEqual(right.received, ["mouseDown"])
            XCTAssertTrue(window.firstResponder === right)
            XCTAssertEqual(root.proposedWith, [.leftMouseDown], "ancestors validate with the mouse-down")
            Application.shared.sendEvent(mouseEvent(.leftMouseDragged, at: CGPoint(x: 20, y: 50), in: window))
            Application.shared.sendEvent(mouseEvent(.leftMouseUp, at: CGPoint(x: 20, y: 50), in: window))
            XCTAssertEqual(right.received, ["mouseDown", "mouseDragged", "mouseUp"], "even over another view")
            XCTAssertEqual(left.received, [])
            Application.shared.sendEvent(mouseEvent(.leftMouseDown, at: CGPoint(x: 20, y: 50), in: window))
            XCTAssertEqual(left.received, ["mouseDown"])
            XCTAssertTrue(window.firstResponder === right, "a view that refuses first responder leaves it")
        }
    }

    /// "Handling Mouse Events": a mouse-down in a window that is not key makes it key; the view
    /// gets the click only if acceptsFirstMouse(for:) returns true.
    func testAClickInAWindowThatIsNotKeyMakesItKeyAndAsksAcceptsFirstMouse() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let (one, _, _, _) = makeWindow("one")
            let (two, _, twoLeft, twoRight) = makeWindow("two")
            one.makeKeyAndOrderFront(nil)
            two.orderFront(nil)
            one.makeKeyAndOrderFront(nil)
            twoLeft.accepts = true
            Application.shared.sendEvent(mouseEvent(.leftMouseDown, at: CGPoint(x: 20, y: 20), in: two))
            XCTAssertTrue(two.isKeyWindow)
            XCTAssertEqual(twoLeft.received, [], "the first click only made the window key")
            XCTAssertTrue(two.firstResponder === two)
            one.makeKeyAndOrderFront(nil)
            twoRight.firstMouse = true
            Application.shared.sendEvent(mouseEvent(.leftMouseDown, at: CGPoint(x: 120, y: 20), in: two))
            XCTAssertTrue(two.isKeyWindow)
            XCTAssertEqual(twoRight.received, ["mouseDown"], "acceptsFirstMouse: the click is delivered too")
        }
    }

    func testScrollAndRightClicksGoToTheHitViewWithoutChangingTheFirstResponder() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let (window, _, left, right) = makeWindow("w")
            right.accepts = true
            window.makeKeyAndOrderFront(nil)
            let scroll = Event.scrollEvent(location: CGPoint(x: 150, y: 10), modifierFlags: [], timestamp: 0,
                                           windowNumber: window.windowNumber, deltaX: 0, deltaY: -3)
            Application.shared.sendEvent(scroll)
            Application.shared.sendEvent(mouseEvent(.rightMouseDown, at: CGPoint(x: 150, y: 10), in: window))
            Application.shared.sendEvent(mouseEvent(.rightMouseUp, at: CGPoint(x: 10, y: 10), in: window))
            XCTAssertEqual(right.received, ["scrollWheel", "rightMouseDown", "rightMouseUp"])
            XCTAssertEqual(left.received, [])
            XCTAssertTrue(window.firstResponder === window)
        }
    }

    /// acceptsMouseMovedEvents (https://developer.apple.com/documentation/appkit/nswindow/acceptsmousemovedevents):
    /// false by default; when true, mouse-moved events go to the first responder.
    func testMouseMovedOnlyWhenTheWindowAcceptsThem() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let (window, _, left, _) = makeWindow("w")
            left.accepts = true
            window.makeKeyAndOrderFront(nil)
            window.makeFirstResponder(left)
            let moved = mouseEvent(.mouseMoved, at: CGPoint(x: 150, y: 10), in: window)
            Application.shared.sendEvent(moved)
            XCTAssertEqual(left.received, [])
            window.acceptsMouseMovedEvents = true
            Application.shared.sendEvent(moved)
            XCTAssertEqual(left.received, ["mouseMoved"])
        }
    }

    /// A mouse event that names no window is dropped; a key event with no key window goes to the
    /// application and its delegate (Baton's rule, written in Application+Events.swift).
    func testWithoutAWindowMouseEventsAreDroppedAndKeysGoToTheApplication() {
        MainActor.assumeIsolated {
            let delegate = EventEndDelegate()
            Application.shared.delegate = delegate
            let (window, _, left, _) = makeWindow("w")
            window.orderFront(nil)
            let stray = Event.mouseEvent(with: .leftMouseDown, location: .zero, modifierFlags: [], timestamp: 0,
                                         windowNumber: 0, context: nil, eventNumber: 0, clickCount: 1, pressure: 1)!
            Application.shared.sendEvent(stray)
            XCTAssertEqual(delegate.unhandled, [], "a mouse event of no window reaches nobody")
            XCTAssertNil(Application.shared.keyWindow, "the application is not active")
            Application.shared.sendEvent(keyEvent("a"))
            XCTAssertEqual(left.received, [])
            XCTAssertEqual(delegate.unhandled, ["keyDown(with:)"], "application → delegate → noResponder(for:)")
        }
    }
}
