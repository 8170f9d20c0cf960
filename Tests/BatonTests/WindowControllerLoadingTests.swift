@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// A window controller that makes its window in `loadWindow()`, recording the sequence,
/// its document's calls included.
@MainActor
final class LoadingWindowController: WindowController {
    var calls: [String] = []
    var makesWindow = true
    override func windowWillLoad() { calls.append("windowWillLoad loaded=\(isWindowLoaded)") }
    override func loadWindow() {
        calls.append("loadWindow")
        XCTAssertNil(window, "reading window inside the sequence does not load again")
        if makesWindow { window = Window(title: windowNibName ?? "made") }
    }
    override func windowDidLoad() { calls.append("windowDidLoad loaded=\(isWindowLoaded)") }
}

@MainActor
final class LoadingDocument: Document {
    weak var controller: LoadingWindowController?
    override func windowControllerWillLoadNib(_ windowController: WindowController) {
        controller?.calls.append("document willLoadNib")
    }
    override func windowControllerDidLoadNib(_ windowController: WindowController) {
        controller?.calls.append("document didLoadNib")
    }
}

/// NSWindowController's window loading
/// (https://developer.apple.com/documentation/appkit/nswindowcontroller/window,
/// .../loadwindow(), .../windowwillload(), .../windowdidload(), .../iswindowloaded,
/// .../windownibname): the `window` getter loads the window when it is not loaded.
final class WindowControllerLoadingTests: BatonTestCase {
    /// The first read of `window` runs windowWillLoad, the document's willLoadNib, loadWindow,
    /// windowDidLoad, the document's didLoadNib, once; the loaded window is shown by
    /// showWindow(_:) on the real loop's application and is managed by the controller.
    func testTheWindowGetterLoadsTheWindowOnce() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let controller = LoadingWindowController(windowNibName: "Editor")
            let document = LoadingDocument()
            document.controller = controller
            document.addWindowController(controller)
            XCTAssertEqual(controller.windowNibName, "Editor")
            XCTAssertFalse(controller.isWindowLoaded)
            XCTAssertEqual(controller.calls, [], "nothing is loaded before the window is asked for")

            controller.showWindow(nil)
            XCTAssertEqual(controller.calls, ["windowWillLoad loaded=false", "document willLoadNib", "loadWindow",
                                              "windowDidLoad loaded=true", "document didLoadNib"])
            XCTAssertTrue(controller.isWindowLoaded)
            let window = controller.window
            XCTAssertEqual(window?.title, "Editor")
            XCTAssertTrue(window?.windowController === controller)
            XCTAssertTrue(window?.isKeyWindow == true, "showWindow(_:) showed the loaded window")
            _ = controller.window
            XCTAssertEqual(controller.calls.count, 5, "loaded once")
        }
    }

    /// A loadWindow() that makes no window: no windowDidLoad, not loaded, and the next read
    /// tries again (AppKit's getter loads whenever no window is loaded). close() does not load.
    func testNoWindowMadeMeansNotLoaded() {
        MainActor.assumeIsolated {
            let controller = LoadingWindowController()
            controller.makesWindow = false
            controller.close()
            XCTAssertEqual(controller.calls, [], "close() does not load the window")
            XCTAssertNil(controller.window)
            XCTAssertEqual(controller.calls, ["windowWillLoad loaded=false", "loadWindow"])
            XCTAssertFalse(controller.isWindowLoaded)
            XCTAssertNil(controller.windowNibName)
            controller.makesWindow = true
            XCTAssertNotNil(controller.window)
            XCTAssertEqual(controller.calls.suffix(3), ["windowWillLoad loaded=false", "loadWindow", "windowDidLoad loaded=true"])
        }
    }

    /// A window given to init(window:) is loaded: no load sequence runs.
    func testAGivenWindowIsLoaded() {
        MainActor.assumeIsolated {
            let controller = LoadingWindowController(window: Window(title: "given"))
            XCTAssertTrue(controller.isWindowLoaded)
            XCTAssertEqual(controller.window?.title, "given")
            XCTAssertEqual(controller.calls, [])
        }
    }
}
