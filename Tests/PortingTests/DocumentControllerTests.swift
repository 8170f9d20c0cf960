import Baton
import BatonTestSupport
import XCTest

// AppKit's NSDocumentController members, and NSDocument's subclassing rules, on Baton's
// DocumentController and Document (about-handoff, "Supporting a User Activity in
// Document-Based Apps"; handoff-programming-guide, "Adopting Handoff in Document-Based Apps").

/// A document subclass written as Xcode's AppKit template writes one: `override init()`, and
/// `read(from:ofType:)` with AppKit's non-optional type name.
final class SketchDocument: Document {
    var text = ""
    var initialized = false

    override init() {
        super.init()
        initialized = true
    }

    override func read(from url: URL, ofType typeName: String) throws {
        text = try String(contentsOf: url, encoding: .utf8)
    }
}

/// A subclass of the controller (AppKit allows it; the first instance made becomes `shared`).
final class CountingDocumentController: DocumentController {
    var made: [String] = []
    override func makeDocument(withContentsOf url: URL, ofType typeName: String) throws -> Document {
        made.append(typeName)
        return try super.makeDocument(withContentsOf: url, ofType: typeName)
    }
}

/// The manifest of a sketch app, whose document type names its class with NSDocumentClass as
/// Xcode writes it, `$(PRODUCT_MODULE_NAME).SketchDocument`.
private let sketchManifest = AppManifest(
    appID: "com.example.sketch", teamIdentifier: "TEAM1",
    documentTypes: [.init(name: "Sketch", extensions: ["sketch"], activityType: "com.example.sketch.editing",
                          documentClassName: "PortingTests.SketchDocument")])

private func sketchFile(_ text: String = "lines") throws -> URL {
    let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(UUID().uuidString).sketch")
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
}

final class DocumentControllerTests: PortingTestCase {
    func testTheManifestsDocumentClassIsTheClassOfItsDocuments() throws {
        try MainActor.assumeIsolated {
            Application.shared.manifest = sketchManifest
            XCTAssertTrue(DocumentController.shared.documentClass(forType: "Sketch") == SketchDocument.self)
            XCTAssertNil(DocumentController.shared.documentClass(forType: "Unknown"))
            let url = try sketchFile("three lines")
            let document = try DocumentController.shared.makeDocument(withContentsOf: url, ofType: "Sketch")
            let sketch = try XCTUnwrap(document as? SketchDocument)
            XCTAssertTrue(sketch.initialized, "init(contentsOf:ofType:) runs the subclass's init()")
            XCTAssertEqual(sketch.text, "three lines")
            XCTAssertEqual(sketch.fileURL, url)
            XCTAssertEqual(sketch.fileType, "Sketch")
            XCTAssertEqual(sketch.userActivity?.activityType, "com.example.sketch.editing",
                           "the document's activity comes from NSUbiquitousDocumentUserActivityType")
            XCTAssertTrue(DocumentController.shared.documents.isEmpty, "makeDocument does not add it")
        }
    }

    /// `openDocument(withContentsOf:display:completionHandler:)`: the handler gets the document
    /// and whether it was open already; `document(for:)` finds it; `removeDocument(_:)` forgets it.
    func testOpenDocumentWithACompletionHandler() throws {
        try MainActor.assumeIsolated {
            Application.shared.manifest = sketchManifest
            let url = try sketchFile()
            var results: [(Document?, Bool, (any Error)?)] = []
            DocumentController.shared.openDocument(withContentsOf: url, display: false) { document, documentWasAlreadyOpen, error in
                results.append((document, documentWasAlreadyOpen, error))
            }
            DocumentController.shared.openDocument(withContentsOf: url, display: false) { document, documentWasAlreadyOpen, error in
                results.append((document, documentWasAlreadyOpen, error))
            }
            XCTAssertEqual(results.count, 2)
            let opened = try XCTUnwrap(results.first?.0 as? SketchDocument)
            XCTAssertEqual(results.map(\.1), [false, true])
            XCTAssertTrue(results[1].0 === opened)
            XCTAssertNil(results[0].2)
            XCTAssertTrue(DocumentController.shared.document(for: url) === opened)
            DocumentController.shared.removeDocument(opened)
            XCTAssertNil(DocumentController.shared.document(for: url))
        }
    }

    func testOpeningAFileNoTypeClaimsFailsWithAnError() throws {
        MainActor.assumeIsolated {
            Application.shared.manifest = sketchManifest
            let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(UUID().uuidString).unknown")
            var failure: (any Error)?
            var handled = false
            DocumentController.shared.openDocument(withContentsOf: url, display: false) { document, _, error in
                XCTAssertNil(document)
                failure = error
                handled = true
            }
            XCTAssertTrue(handled)
            XCTAssertEqual((failure as? CocoaError)?.code, .fileReadUnknown)
        }
    }

    /// `currentDocument`: the document of the main window.
    func testCurrentDocumentIsTheMainWindowsDocument() throws {
        try MainActor.assumeIsolated {
            Application.shared.manifest = sketchManifest
            Application.shared.finishLaunching()
            let document = try DocumentController.shared.openDocument(withContentsOf: try sketchFile(), display: false)
            XCTAssertNil(DocumentController.shared.currentDocument)
            let controller = WindowController(window: Window(title: "sketch"))
            document.addWindowController(controller)
            controller.showWindow(nil)
            XCTAssertTrue(DocumentController.shared.currentDocument === document)
        }
    }
}

/// Subclassing the controller (AppKit's rule): the first instance made is `shared`, and the
/// subclass's overrides are what opening uses.
final class DocumentControllerSubclassTests: PortingTestCase {
    func testASubclassMadeFirstIsSharedAndItsOverridesAreUsed() throws {
        try MainActor.assumeIsolated {
            forgetSharedDocumentController()  // as in a fresh process
            defer { forgetSharedDocumentController() }
            let counting = CountingDocumentController()
            XCTAssertTrue(DocumentController.shared === counting)
            XCTAssertFalse(DocumentController() === DocumentController.shared, "only the first one made is shared")
            Application.shared.manifest = sketchManifest
            let url = try sketchFile()
            var opened: Document?
            DocumentController.shared.openDocument(withContentsOf: url, display: false) { document, _, _ in opened = document }
            XCTAssertEqual(counting.made, ["Sketch"], "the subclass's makeDocument is used")
            XCTAssertTrue(opened is SketchDocument)
            opened?.close()
            XCTAssertNil(counting.document(for: url), "closing removes the document from the shared controller")
        }
    }
}
