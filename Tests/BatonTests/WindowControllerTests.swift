@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// NSWindowController's members (https://developer.apple.com/documentation/appkit/nswindowcontroller).
final class WindowControllerTests: BatonTestCase {
    /// contentViewController: the window's content view controller, read and set through the
    /// controller (https://developer.apple.com/documentation/appkit/nswindowcontroller/contentviewcontroller).
    func testContentViewControllerIsTheWindows() {
        MainActor.assumeIsolated {
            let first = ViewController(title: "first")
            let window = Window(title: "w", contentViewController: first)
            let controller = WindowController(window: window)
            XCTAssertTrue(controller.contentViewController === first)
            let second = ViewController(title: "second")
            controller.contentViewController = second
            XCTAssertTrue(window.contentViewController === second)
            XCTAssertTrue(window.contentView === second.view)
            XCTAssertNil(WindowController().contentViewController, "no window, no content")
        }
    }

    /// showWindow(_:): shows the window in front and makes it key
    /// (https://developer.apple.com/documentation/appkit/nswindowcontroller/showwindow(_:)).
    func testShowWindowMakesItKeyAndFront() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let other = Window(title: "other")
            other.makeKeyAndOrderFront(nil)
            let window = Window(title: "w")
            let controller = WindowController(window: window)
            controller.showWindow(nil)
            XCTAssertTrue(window.isVisible)
            XCTAssertTrue(window.isKeyWindow)
            XCTAssertEqual(Application.shared.orderedWindows.first?.title, "w")
        }
    }

    /// close(): closes the window without asking windowShouldClose(_:)
    /// (https://developer.apple.com/documentation/appkit/nswindowcontroller/close()).
    func testCloseClosesTheWindow() {
        MainActor.assumeIsolated {
            let window = Window(title: "w")
            let delegate = RecordingWindowDelegate()
            delegate.allowsClose = false
            window.delegate = delegate
            let controller = WindowController(window: window)
            controller.showWindow(nil)
            controller.close()
            XCTAssertTrue(window.isClosed)
            XCTAssertEqual(delegate.calls.filter { $0.hasPrefix("shouldClose") }, [])
            controller.close()  // closing again does nothing, and is not refused
            XCTAssertEqual(CapturedLog.shared.refusals(mentioning: "'w'").count, 0)
        }
    }

    /// document: settable, weak; Document.addWindowController(_:) sets it
    /// (https://developer.apple.com/documentation/appkit/nswindowcontroller/document).
    func testDocumentIsSettableAndSetByTheDocument() {
        MainActor.assumeIsolated {
            let controller = WindowController(window: Window(title: "w"))
            let document = Document()
            document.addWindowController(controller)
            XCTAssertTrue(controller.document === document)
            controller.document = nil
            XCTAssertNil(controller.document)
            do {
                let other = Document()
                controller.document = other
                XCTAssertTrue(controller.document === other)
            }
            XCTAssertNil(controller.document, "weak: the controller does not keep its document")
        }
    }
}
