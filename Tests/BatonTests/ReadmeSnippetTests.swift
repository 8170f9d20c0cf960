@testable import Baton
import BatonTestSupport
import XCTest

/// The README's "Handoff inside an app" code is `ReadmeSnippet.swift`, compiled into this target:
/// these tests run it as a user would. Every Swift block in the README and in the DocC articles
/// follows `<!-- snippet: PATH -->` and is the file at PATH as it is, a file the sample package
/// `Tests/DocSamples` builds as a user's package does (`make test`), so what the docs show is
/// what is compiled — and, for `ReadmeSnippet.swift` here and `Examples/Hello/main.swift` in
/// `make demo`, run.
final class ReadmeSnippetTests: BatonTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// The README and every DocC article.
    static var documents: [String] {
        let articles = (FileManager.default.enumerator(atPath: root.appendingPathComponent("Sources").path)?.allObjects as? [String] ?? [])
            .filter { $0.contains(".docc/") && $0.hasSuffix(".md") }.map { "Sources/" + $0 }.sorted()
        return ["README.md"] + articles
    }

    /// The files the sample package (Tests/DocSamples, built by `make test` as a user's package
    /// that depends on Baton by path) compiles, by the path the docs name them with.
    static var builtSamples: Set<String> {
        let sources = root.appendingPathComponent("Tests/DocSamples/Sources")
        var built = Set<String>()
        for case let file as String in FileManager.default.enumerator(atPath: sources.path)?.allObjects ?? [] where file.hasSuffix(".swift") {
            let url = sources.appendingPathComponent(file)
            built.insert("Tests/DocSamples/Sources/" + file)
            // A sample kept elsewhere (the 20-line app, the README's snippet) is linked in.
            let target = url.resolvingSymlinksInPath().path
            if target.hasPrefix(root.path + "/") { built.insert(String(target.dropFirst(root.path.count + 1))) }
        }
        return built
    }

    /// Every Swift block in the README and the DocC articles is a file the sample package
    /// builds, shown whole (`<!-- snippet: PATH -->`), or a line of a `Package.swift` that the
    /// sample package's own manifest has: no sample in the docs goes unbuilt.
    func testEveryMarkedBlockIsItsFileAsItIsAndEverySampleIsBuilt() throws {
        var checked: [String] = []
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Tests/DocSamples/Package.swift"), encoding: .utf8)
        let built = Self.builtSamples
        for document in Self.documents {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            var rest = text[...]
            while let fence = rest.range(of: "```swift\n") {
                let blockEnd = try XCTUnwrap(rest.range(of: "\n```\n", range: fence.upperBound..<rest.endIndex), "\(document): a block does not end")
                let block = String(rest[fence.upperBound..<blockEnd.lowerBound]) + "\n"
                let before = rest[..<fence.lowerBound]
                if block.hasPrefix("// Package.swift\n") {
                    for line in block.split(separator: "\n").dropFirst() where !line.hasPrefix("//") {
                        XCTAssertTrue(manifest.contains(line), "\(document): the sample package's manifest has \(line)")
                    }
                    checked.append("\(document): Package.swift")
                } else {
                    let markerLine = try XCTUnwrap(before.split(separator: "\n", omittingEmptySubsequences: false).dropLast().last,
                                                   "\(document): a Swift block with nothing before it")
                    guard markerLine.hasPrefix("<!-- snippet: "), markerLine.hasSuffix(" -->") else {
                        XCTFail("\(document): a Swift block that is not a sample file (mark it <!-- snippet: PATH -->): \(block.prefix(80))")
                        rest = rest[blockEnd.upperBound...]
                        continue
                    }
                    let path = String(markerLine.dropFirst("<!-- snippet: ".count).dropLast(" -->".count))
                    let file = try String(contentsOf: Self.root.appendingPathComponent(path), encoding: .utf8)
                    XCTAssertEqual(block, file, "\(document)'s block marked \(path) must be that file, as it is")
                    XCTAssertTrue(built.contains(path), "\(document): \(path) is not built by Tests/DocSamples")
                    checked.append("\(document): \(path)")
                }
                rest = rest[blockEnd.upperBound...]
            }
        }
        XCTAssertEqual(checked, [
            "README.md: Examples/Hello/main.swift",
            "README.md: Tests/DocSamples/Sources/JoinTheAgent/main.swift",
            "README.md: Tests/DocSamples/Sources/EmbeddedNode/main.swift",
            "README.md: Tests/DocSamples/Sources/ContinuationStreams/ContinuationStreams.swift",
            "README.md: Tests/BatonTests/ReadmeSnippet.swift",
            "Sources/Baton/Baton.docc/GettingStarted.md: Package.swift",
            "Sources/Baton/Baton.docc/GettingStarted.md: Examples/Hello/main.swift",
            "Sources/Baton/Baton.docc/GettingStarted.md: Tests/BatonTests/ReadmeSnippet.swift",
            "Sources/Baton/Baton.docc/ThreadingAndTheGLibLoop.md: Tests/DocSamples/Sources/EmbeddedLoop/main.swift",
            "Sources/BatonContinuity/BatonContinuity.docc/HandoffBetweenDevices.md: Tests/DocSamples/Sources/JoinTheAgent/main.swift",
            "Sources/BatonContinuity/BatonContinuity.docc/HandoffBetweenDevices.md: Tests/DocSamples/Sources/EmbeddedNode/main.swift",
            "Sources/BatonGtk/BatonGtk.docc/BatonGtk.md: Tests/DocSamples/Sources/GtkWindows/main.swift",
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
