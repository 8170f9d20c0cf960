@testable import Baton
import BatonTestSupport
import XCTest

/// The README's "Handoff inside an app" code is `ReadmeSnippet.swift`, compiled into this target:
/// these tests run it as a user would. Code blocks in the README and in the DocC articles that
/// follow `<!-- snippet: PATH -->` must be the file at PATH as it is, so what the docs show is
/// what is compiled and run (`ReadmeSnippet.swift` here, `Examples/Hello/main.swift` by `make
/// demo`).
final class ReadmeSnippetTests: BatonTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let documents = ["README.md", "Sources/Baton/Baton.docc/GettingStarted.md"]

    func testEveryMarkedBlockIsItsFileAsItIs() throws {
        var checked: [String] = []
        for document in Self.documents {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            var rest = text[...]
            while let marker = rest.range(of: "<!-- snippet: ") {
                let pathEnd = try XCTUnwrap(rest.range(of: " -->\n```swift\n", range: marker.upperBound..<rest.endIndex),
                                            "\(document): a snippet marker must be followed by a ```swift block")
                let path = String(rest[marker.upperBound..<pathEnd.lowerBound])
                let blockEnd = try XCTUnwrap(rest.range(of: "\n```\n", range: pathEnd.upperBound..<rest.endIndex),
                                             "\(document): the block of \(path) does not end")
                let block = String(rest[pathEnd.upperBound..<blockEnd.lowerBound]) + "\n"
                let file = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
                XCTAssertEqual(block, file, "\(document)'s block marked \(path) must be that file, as it is")
                checked.append("\(document): \(path)")
                rest = rest[blockEnd.upperBound...]
            }
        }
        XCTAssertEqual(checked, [
            "README.md: Examples/Hello/main.swift",
            "README.md: Tests/BatonTests/ReadmeSnippet.swift",
            "Sources/Baton/Baton.docc/GettingStarted.md: Examples/Hello/main.swift",
            "Sources/Baton/Baton.docc/GettingStarted.md: Tests/BatonTests/ReadmeSnippet.swift",
        ])
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
