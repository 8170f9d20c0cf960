@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// A window delegate that records what it is told, and may refuse to close.
@MainActor
final class RecordingWindowDelegate: WindowDelegate {
    var calls: [String] = []
    var allowsClose = true
    var notificationObjects: [Window] = []

    private func record(_ name: String, _ notification: Notification) {
        nonisolated(unsafe) let object = notification.object
        let window = object as? Window
        if let window { notificationObjects.append(window) }
        calls.append("\(name) \(window?.title ?? "?")")
    }
    func windowShouldClose(_ sender: Window) -> Bool {
        calls.append("shouldClose \(sender.title)")
        return allowsClose
    }
    func windowWillClose(_ notification: Notification) { record("willClose", notification) }
    func windowDidBecomeKey(_ notification: Notification) { record("becomeKey", notification) }
    func windowDidResignKey(_ notification: Notification) { record("resignKey", notification) }
    func windowDidBecomeMain(_ notification: Notification) { record("becomeMain", notification) }
    func windowDidResignMain(_ notification: Notification) { record("resignMain", notification) }
}

@MainActor private var app: Application { .shared }

/// NSWindow's members and NSWindowDelegate
/// (https://developer.apple.com/documentation/appkit/nswindow,
/// https://developer.apple.com/documentation/appkit/nswindowdelegate).
final class WindowDelegateTests: BatonTestCase {
    /// NSWindowDelegate windowDidBecomeKey/ResignKey/BecomeMain/ResignMain: the delegate is
    /// told with the notification that is posted, the window as its object.
    func testTheDelegateIsToldOfKeyAndMainChangesWithTheNotification() {
        MainActor.assumeIsolated {
            app.activate()
            let a = Window(title: "A"), b = Window(title: "B")
            let delegateA = RecordingWindowDelegate(), delegateB = RecordingWindowDelegate()
            a.delegate = delegateA
            b.delegate = delegateB
            let log = FocusLog()
            a.makeKeyAndOrderFront(nil)
            b.makeKeyAndOrderFront(nil)
            XCTAssertEqual(delegateA.calls, ["becomeMain A", "becomeKey A", "resignKey A", "resignMain A"])
            XCTAssertEqual(delegateB.calls, ["becomeMain B", "becomeKey B"])
            XCTAssertTrue(delegateA.notificationObjects.allSatisfy { $0 === a })
            XCTAssertEqual(log.take(), ["becomeMain A", "becomeKey A", "resignKey A", "resignMain A",
                                        "becomeMain B", "becomeKey B"], "the notifications are still posted")
        }
    }

    /// NSWindow performClose(_:): "If the window's delegate ... implements windowShouldClose(_:)
    /// ... If the windowShouldClose method returns false, the window isn't closed"
    /// (https://developer.apple.com/documentation/appkit/nswindow/performclose(_:)).
    func testPerformCloseAsksTheDelegateAndKeepsTheWindowWhenItSaysNo() {
        MainActor.assumeIsolated {
            app.activate()
            let window = Window(title: "doc")
            let delegate = RecordingWindowDelegate()
            window.delegate = delegate
            window.makeKeyAndOrderFront(nil)
            delegate.calls = []
            delegate.allowsClose = false
            window.performClose(nil)
            XCTAssertFalse(window.isClosed)
            XCTAssertTrue(window.isVisible)
            XCTAssertTrue(window.isKeyWindow)
            XCTAssertEqual(delegate.calls, ["shouldClose doc"])
            delegate.allowsClose = true
            window.performClose(nil)
            XCTAssertTrue(window.isClosed)
            XCTAssertEqual(delegate.calls, ["shouldClose doc", "shouldClose doc", "willClose doc", "resignKey doc", "resignMain doc"])
            XCTAssertFalse(app.windows.contains { $0 === window })
        }
    }

    /// NSWindow close(): it does not ask windowShouldClose(_:); the delegate gets
    /// windowWillClose(_:) (https://developer.apple.com/documentation/appkit/nswindow/close()).
    func testCloseDoesNotAskTheDelegate() {
        MainActor.assumeIsolated {
            let window = Window(title: "w")
            let delegate = RecordingWindowDelegate()
            delegate.allowsClose = false
            window.delegate = delegate
            window.orderFront(nil)
            window.close()
            XCTAssertTrue(window.isClosed)
            XCTAssertEqual(delegate.calls, ["willClose w"])
        }
    }

    /// NSWindow delegate is weak: the window does not keep it alive.
    func testTheDelegateIsWeak() {
        MainActor.assumeIsolated {
            let window = Window(title: "w")
            do {
                let delegate = RecordingWindowDelegate()
                window.delegate = delegate
                XCTAssertNotNil(window.delegate)
            }
            XCTAssertNil(window.delegate)
        }
    }

    /// orderFront(_:), orderBack(_:), orderOut(_:), orderFrontRegardless(): order without
    /// changing key or main (https://developer.apple.com/documentation/appkit/nswindow/orderback(_:),
    /// .../orderfrontregardless()).
    func testOrderingFormsMoveWindowsWithoutChangingKeyOrMain() {
        MainActor.assumeIsolated {
            app.activate()
            let a = Window(title: "A"), b = Window(title: "B"), c = Window(title: "C")
            a.makeKeyAndOrderFront(nil)
            let log = FocusLog()
            b.orderFront(nil)
            c.orderBack(nil)
            XCTAssertEqual(app.orderedWindows.map(\.title), ["B", "A", "C"])
            XCTAssertTrue(c.isVisible)
            c.orderFrontRegardless()
            XCTAssertEqual(app.orderedWindows.map(\.title), ["C", "B", "A"])
            b.orderBack(nil)
            XCTAssertEqual(app.orderedWindows.map(\.title), ["C", "A", "B"])
            XCTAssertTrue(a.isKeyWindow && a.isMainWindow)
            XCTAssertEqual(log.take(), [], "ordering alone changes neither key nor main")
            c.orderOut(nil)
            XCTAssertFalse(c.isVisible)
            XCTAssertEqual(app.orderedWindows.map(\.title), ["A", "B"])
            a.orderOut(nil)
            XCTAssertTrue(b.isKeyWindow && b.isMainWindow, "ordering the key window out passes key and main on")
        }
    }

    /// orderBack(_:) of a closed window is refused as orderFront(_:) is.
    func testOrderingAClosedWindowBackIsRefused() {
        MainActor.assumeIsolated {
            let window = Window(title: unique("closed"))
            window.close()
            window.orderBack(nil)
            XCTAssertFalse(window.isVisible)
            assertRefused("windowClosed", mentioning: window.title)
        }
    }

    /// initialFirstResponder: "The view that's made first responder ... the first time the
    /// window is placed onscreen" (https://developer.apple.com/documentation/appkit/nswindow/initialfirstresponder).
    func testInitialFirstResponderBecomesFirstResponderTheFirstTimeTheWindowIsShown() {
        MainActor.assumeIsolated {
            let root = View(identifier: "root")
            let field = FocusView(identifier: "field"), other = FocusView(identifier: "other")
            root.addSubview(field)
            root.addSubview(other)
            let window = Window(title: "w")
            window.contentView = root
            window.initialFirstResponder = field
            XCTAssertTrue(window.firstResponder === window, "not before the window is shown")
            window.makeKeyAndOrderFront(nil)
            XCTAssertTrue(window.firstResponder === field)
            window.makeFirstResponder(other)
            window.orderOut(nil)
            window.orderFront(nil)
            XCTAssertTrue(window.firstResponder === other, "only the first time")
        }
    }
}
