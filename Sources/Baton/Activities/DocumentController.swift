import Foundation

/// Opens and tracks documents (AppKit's `NSDocumentController`).
@MainActor
public final class DocumentController {
    public static let shared = DocumentController()

    /// The open documents, in the order they were opened.
    public private(set) var documents: [Document] = []

    /// The class of documents this controller opens (AppKit reads it from `NSDocumentClass`).
    public var documentClass: Document.Type = Document.self

    private init() {}

    /// The open document for `url`, if any.
    public func document(for url: URL) -> Document? {
        documents.first { $0.fileURL?.standardizedFileURL == url.standardizedFileURL }
    }

    /// Opens the document at `url`, or returns it if it is open already; with `display`, its
    /// window controllers are made and shown (`openDocument(withContentsOf:display:)`).
    @discardableResult
    public func openDocument(withContentsOf url: URL, display: Bool) throws -> Document {
        if let open = document(for: url) {
            if display { open.showWindows() }
            return open
        }
        let document = try documentClass.init(contentsOf: url, ofType: nil)
        addDocument(document)
        if display {
            document.makeWindowControllers()
            document.showWindows()
        }
        return document
    }

    public func addDocument(_ document: Document) {
        if !documents.contains(where: { $0 === document }) { documents.append(document) }
    }

    func remove(_ document: Document) { documents.removeAll { $0 === document } }

    func reset() {
        for document in documents { document.close() }
        documents = []
        documentClass = Document.self
    }
}
