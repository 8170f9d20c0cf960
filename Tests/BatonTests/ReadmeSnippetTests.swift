@testable import Baton
import BatonTestSupport
import XCTest

/// The README's "Handoff inside an app" code is `ReadmeSnippet.swift`, compiled into this target:
/// these tests run it as a user would, and fail when the README's block and the file differ.
final class ReadmeSnippetTests: BatonTestCase {
    /// The README's block that follows `<!-- snippet: Tests/BatonTests/ReadmeSnippet.swift -->`.
    func testTheReadmeBlockIsReadmeSnippetSwift() throws {
        let tests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let root = tests.deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = "<!-- snippet: Tests/BatonTests/ReadmeSnippet.swift -->\n```swift\n"
        let start = try XCTUnwrap(readme.range(of: marker), "README.md has no block marked for ReadmeSnippet.swift")
        let end = try XCTUnwrap(readme.range(of: "\n```\n", range: start.upperBound..<readme.endIndex))
        let block = String(readme[start.upperBound..<end.lowerBound]) + "\n"
        let file = try String(contentsOf: tests.appendingPathComponent("ReadmeSnippet.swift"), encoding: .utf8)
        XCTAssertEqual(block, file, "README.md's \"Handoff inside an app\" block must be Tests/BatonTests/ReadmeSnippet.swift, as is")
    }

    /// The snippet's activity becomes current once the shape view is first responder in the main
    /// window, is saved with the controller's state, and continues into the controller.
    func testTheReadmeSnippetMakesItsActivityCurrentAndContinuesIt() throws {
        try MainActor.assumeIsolated {
            let delegate = ShapesDelegate()
            launchShapes(delegate)
            let activity = try XCTUnwrap(delegate.controller.userActivity)
            XCTAssertTrue(activity.isCurrent, "current: the controller is in the main window's chain")
            spin(until: { !activity.needsSave })
            XCTAssertEqual(activity.userInfo?["shape-type"] as? String, "circle")

            let sent = UserActivity(activityType: createShape)
            sent.userInfo = ["shape-type": "square"]
            let payload = try sent.payload()
            continueShape { payload }
            spin(until: { delegate.controller.shape == "square" })
            XCTAssertEqual(delegate.controller.shape, "square")
        }
    }

    /// Without the shape view as first responder nothing of the controller is in the chain, and
    /// the activity is not current (about-handoff, "Managing a User Activity with Responders").
    func testTheActivityIsNotCurrentWhileTheShapeViewIsNotFirstResponder() throws {
        try MainActor.assumeIsolated {
            let delegate = ShapesDelegate()
            launchShapes(delegate)
            let activity = try XCTUnwrap(delegate.controller.userActivity)
            XCTAssertTrue(activity.isCurrent)
            delegate.window.makeFirstResponder(nil)  // the window itself, as in AppKit
            spin(until: { !activity.isCurrent })
            XCTAssertFalse(activity.isCurrent, "the window alone is not in the controller's chain")
        }
    }
}
