import Foundation

/// Opens and tracks documents (AppKit's `NSDocumentController`).
///
/// As in AppKit, it may be subclassed: the first instance created becomes `shared`, so an app
/// that wants its own subclass creates one before anything asks for `shared` (for example in
/// `applicationWillFinishLaunching(_:)`); otherwise `shared` creates a plain
/// `DocumentController`.
///
/// The class of a type's documents comes from the manifest's `NSDocumentClass` (see
/// `documentClass(forType:)`), else from `documentClass`.
@MainActor
open class DocumentController {
    private static var sharedInstance: DocumentController?

    /// The shared document controller (AppKit's `NSDocumentController.shared`): the first
    /// instance created, made on first use if none was.
    public class var shared: DocumentController {
        if let sharedInstance { return sharedInstance }
        return DocumentController()
    }

    /// The open documents, in the order they were opened (AppKit's `documents`).
    open private(set) var documents: [Document] = []

    /// The class of documents whose type names no class in the manifest (no `NSDocumentClass`,
    /// or one that names no `Document` subclass). Baton's addition: AppKit finds every class
    /// through `NSDocumentClass`; this lets an app without a manifest entry choose one in code.
    public var documentClass: Document.Type = Document.self

    /// Creates a document controller; the first one created becomes `shared` (AppKit's rule).
    public init() {
        if DocumentController.sharedInstance == nil { DocumentController.sharedInstance = self }
    }

    /// The open document whose `fileURL` is `url`, if any (AppKit's `document(for:)`).
    open func document(for url: URL) -> Document? {
        documents.first { $0.fileURL?.standardizedFileURL == url.standardizedFileURL }
    }

    /// The document of the main window, if the main window has one (AppKit's
    /// `currentDocument`): its window controller's `document`.
    open var currentDocument: Document? {
        Application.shared.mainWindow?.windowController?.document
    }

    /// The document class for the manifest's document type named `typeName` (AppKit's
    /// `documentClass(forType:)`): the class the type's `NSDocumentClass` names, resolved as
    /// `NSClassFromString` does — a Swift class by its module-qualified name, `Module.Class`,
    /// which is what Xcode's `$(PRODUCT_MODULE_NAME).Document` expands to — if it is a
    /// `Document` subclass; otherwise `documentClass`. Returns nil for a type the manifest does
    /// not declare when `documentClass` is still `Document` itself.
    open func documentClass(forType typeName: String) -> AnyClass? {
        let type = Application.shared.manifest?.documentType(named: typeName)
        if let name = type?.documentClassName, let named = NSClassFromString(name) as? Document.Type {
            return named
        }
        if type == nil && ObjectIdentifier(documentClass) == ObjectIdentifier(Document.self) { return nil }
        return documentClass
    }

    /// The name of the manifest's document type for the file at `url`, by its extension
    /// (AppKit's `typeForContents(of:)`). Throws `CocoaError(.fileReadUnknown)` for a file no
    /// document type claims, unless `documentClass` was set, in which case the extension is
    /// the type name.
    open func typeForContents(of url: URL) throws -> String {
        if let type = Application.shared.manifest?.documentType(for: url) { return type.name }
        if ObjectIdentifier(documentClass) != ObjectIdentifier(Document.self) { return url.pathExtension }
        throw CocoaError(.fileReadUnknown, userInfo: [NSURLErrorKey: url,
                                                      NSLocalizedDescriptionKey: "no document type in the manifest claims \(url.lastPathComponent)"])
    }

    /// Makes a document of type `typeName` from the file at `url` (AppKit's
    /// `makeDocument(withContentsOf:ofType:)`): an instance of `documentClass(forType:)`,
    /// through its `init(contentsOf:ofType:)`. Throws `CocoaError(.fileReadUnknown)` when the
    /// type has no class.
    open func makeDocument(withContentsOf url: URL, ofType typeName: String) throws -> Document {
        guard let type = documentClass(forType: typeName) as? Document.Type else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSURLErrorKey: url,
                                                          NSLocalizedDescriptionKey: "no document class for the type \(typeName)"])
        }
        return try type.init(contentsOf: url, ofType: typeName)
    }

    /// Opens the document at `url` (AppKit's `openDocument(withContentsOf:display:completionHandler:)`):
    /// if `document(for:)` has it, that one; otherwise `typeForContents(of:)`, then
    /// `makeDocument(withContentsOf:ofType:)`, then `addDocument(_:)`. With `displayDocument`,
    /// a new document makes its window controllers, and the document shows its windows. The
    /// handler gets the document (nil on failure), whether it was open already, and the error;
    /// it is called on the main actor, before this method returns (AppKit allows either).
    open func openDocument(withContentsOf url: URL, display displayDocument: Bool,
                           completionHandler: @escaping (Document?, Bool, (any Error)?) -> Void) {
        if let open = document(for: url) {
            if displayDocument { open.showWindows() }
            return completionHandler(open, true, nil)
        }
        do {
            let document = try makeDocument(withContentsOf: url, ofType: try typeForContents(of: url))
            addDocument(document)
            if displayDocument {
                document.makeWindowControllers()
                document.showWindows()
            }
            completionHandler(document, false, nil)
        } catch {
            completionHandler(nil, false, error)
        }
    }

    /// Opens the document at `url` and returns it, or throws why it could not: AppKit's
    /// pre-10.7 `openDocumentWithContentsOfURL:display:error:` in its Swift shape. It calls
    /// `openDocument(withContentsOf:display:completionHandler:)`, so overrides of that apply —
    /// provided an override calls its handler before it returns (as Baton's does); one that
    /// calls it later makes this method throw `CocoaError(.fileReadUnknown)` though the
    /// document still opens. Use the handler form in that case.
    @discardableResult
    public func openDocument(withContentsOf url: URL, display displayDocument: Bool) throws -> Document {
        var outcome: Result<Document, any Error> = .failure(CocoaError(.fileReadUnknown))
        openDocument(withContentsOf: url, display: displayDocument) { document, _, error in
            if let document { outcome = .success(document) } else if let error { outcome = .failure(error) }
        }
        return try outcome.get()
    }

    /// Adds `document` to `documents` (AppKit's `addDocument(_:)`); opening does this.
    open func addDocument(_ document: Document) {
        if !documents.contains(where: { $0 === document }) { documents.append(document) }
    }

    /// Removes `document` from `documents` (AppKit's `removeDocument(_:)`); closing a
    /// document does this.
    open func removeDocument(_ document: Document) {
        documents.removeAll { $0 === document }
    }

    /// Forgets the shared instance, so the next one made (or the next use of `shared`) is
    /// shared. For tests.
    static func forgetShared() {
        sharedInstance?.reset()
        sharedInstance = nil
    }

    /// Closes every document and forgets the class choice. For tests.
    func reset() {
        for document in documents { document.close() }
        documents = []
        documentClass = Document.self
    }
}
