@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// An NSApplication subclass as AppKit code writes one (`NSPrincipalClass`).
final class RecordingApplication: Application {
    var calls: [String] = []
    override init() { super.init() }
    override func finishLaunching(options: [LaunchOptionsKey: Any] = [:]) {
        calls.append("finishLaunching")
        super.finishLaunching(options: options)
    }
    override func run() { calls.append("run"); super.run() }
    override func terminate(_ sender: Any?) { calls.append("terminate"); super.terminate(sender) }
    override func sendAction<Handler>(_ action: Action<Handler>, to target: AnyObject?, from sender: Any?) -> Bool {
        calls.append("sendAction \(action.name)")
        return super.sendAction(action, to: target, from: sender)
    }
}

/// NSApplication may be subclassed (https://developer.apple.com/documentation/appkit/nsapplication,
/// "Subclassing Notes"): the first application made is `shared`, so a subclass made first is
/// the one the runtime uses, and its overrides are called; `Application.main(delegate:)` runs
/// it on the real GLib loop.
final class ApplicationSubclassTests: BatonTestCase {
    func testASubclassMadeFirstIsSharedAndRuns() {
        MainActor.assumeIsolated {
            let original = Application.shared
            Application.replaceSharedForTesting(with: nil)
            defer { Application.replaceSharedForTesting(with: original) }

            let app = RecordingApplication()
            XCTAssertTrue(Application.shared === app)
            XCTAssertTrue(RecordingApplication.shared === app)
            let late = Application()
            XCTAssertFalse(Application.shared === late, "an application made later is not shared")

            let window = Window(title: "w")
            XCTAssertTrue(app.windows.contains { $0 === window }, "windows register with the subclass")
            MainLoop.idle { Application.shared.terminate(nil) }
            Application.main(delegate: nil)
            XCTAssertEqual(app.calls, ["run", "finishLaunching", "terminate"])
            XCTAssertFalse(app.isRunning)
            XCTAssertFalse(app.sendAction(.copy, to: nil, from: nil))
            XCTAssertEqual(app.calls.last, "sendAction copy")
            app.resetForTesting()
        }
    }
}
