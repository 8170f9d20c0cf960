import Foundation

/// A document (AppKit's `NSDocument`): a file the user works on, its window controllers, and
/// the user activity the runtime gives it.
///
/// When the document has a `fileURL` whose type the manifest gives an activity type, the
/// document gets a `UserActivity` of that type automatically, shared with its window
/// controllers so it becomes current when one of their windows is main. Saving it puts the
/// `fileURL` under `UserActivity.documentURLKey`; closing the document invalidates it
/// (about-handoff, "Supporting a User Activity in Document-Based Apps";
/// handoff-programming-guide, "Adopting Handoff in Document-Based Apps").
@MainActor
open class Document: UserActivityRestoring, UserActivityOwner {
    /// The document's file (AppKit's `fileURL`); setting it (re)creates the activity when the
    /// manifest gives its type one.
    open var fileURL: URL? {
        didSet { if fileURL != oldValue { refreshActivity() } }
    }
    /// The manifest's document type name, `CFBundleTypeName` (AppKit's `fileType`).
    open var fileType: String?
    /// The document's window controllers (AppKit's `windowControllers`).
    open private(set) var windowControllers: [WindowController] = []
    /// True once `close()` ran (Baton's addition: AppKit releases a closed document instead).
    public private(set) var isClosed = false

    /// The document's activity, shared with its window controllers (AppKit's `userActivity`).
    /// Made automatically for a document whose type has an `NSUbiquitousDocumentUserActivityType`
    /// in the manifest.
    open var userActivity: UserActivity? {
        didSet {
            guard oldValue !== userActivity else { return }
            ActivityRegistry.shared.owner(self, changedActivityFrom: oldValue, to: userActivity)
            for controller in windowControllers { controller.userActivity = userActivity }
        }
    }

    /// An empty document, with no file (AppKit's designated `init()`); subclasses override it
    /// for their own set-up and still inherit `init(contentsOf:ofType:)`.
    public init() {}

    /// Opens the file at `url` as a document of type `typeName` (AppKit's
    /// `init(contentsOf:ofType:)`): sets `fileType`, calls `read(from:ofType:)`, then sets
    /// `fileURL`, which makes the document's activity. Required (AppKit calls it through the
    /// class, as `DocumentController.makeDocument(withContentsOf:ofType:)` does here), and
    /// inherited by a subclass that overrides `init()`.
    public required convenience init(contentsOf url: URL, ofType typeName: String) throws {
        self.init()
        fileType = typeName
        try read(from: url, ofType: typeName)
        fileURL = url
        refreshActivity()  // an initializer's own set skips fileURL's observer
    }

    /// Reads the document from the file at `url` (AppKit's `read(from:ofType:)` taking a URL):
    /// the default reads the regular file's bytes, at most `Document.maximumReadSize`, and
    /// passes them to `read(from:ofType:)` taking `Data`, as AppKit's default does through a
    /// file wrapper. A missing file throws `CocoaError(.fileReadNoSuchFile)`, a larger one
    /// `.fileReadTooLarge`, one that cannot be read (or is no regular file)
    /// `.fileReadUnknown`. Override this to read the file yourself (nothing is read
    /// first), or override the `Data` form.
    open func read(from url: URL, ofType typeName: String) throws {
        let data: Data
        do {
            data = try FileContents.read(url.path, limit: Document.maximumReadSize)
        } catch {
            switch error {
            case .missing: throw CocoaError(.fileReadNoSuchFile, userInfo: [NSURLErrorKey: url])
            case .tooLarge: throw CocoaError(.fileReadTooLarge, userInfo: [NSURLErrorKey: url])
            case .unreadable, .notARegularFile, .readableByOthers:
                throw CocoaError(.fileReadUnknown, userInfo: [NSURLErrorKey: url])
            }
        }
        try read(from: data, ofType: typeName)
    }

    /// The largest file the default `read(from:ofType:)` taking a URL reads: 1 GiB. The size
    /// is checked on the open file before a byte is read. (AppKit has no such limit; override
    /// the URL form to read larger files in parts.)
    public static let maximumReadSize = 1 << 30

    /// Sets the document's contents from `data` of type `typeName` (AppKit's
    /// `read(from:ofType:)` taking `Data`), called by the default URL form with the file's
    /// bytes. Override it, as AppKit's guide advises for documents read whole.
    ///
    /// Deviation: AppKit's default throws, since a subclass must override a reading method;
    /// Baton's accepts the data and does nothing, so that `Document` itself — the
    /// `DocumentController`'s class for types that name none — opens any readable file.
    open func read(from data: Data, ofType typeName: String) throws {}

    /// The document's contents as data of type `typeName` (AppKit's `data(ofType:)`), for
    /// `write(to:ofType:)`. Override it with `read(from:ofType:)` taking `Data`. The default
    /// throws `CocoaError(.featureUnsupported)`: a document that saves must override this or
    /// `write(to:ofType:)` (AppKit's default raises for the same reason).
    open func data(ofType typeName: String) throws -> Data {
        throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey:
            "\(type(of: self)) overrides neither data(ofType:) nor write(to:ofType:)"])
    }

    /// Writes the document to `url` as type `typeName` (AppKit's `write(to:ofType:)`): the
    /// default writes `data(ofType:)` to the file atomically (a temporary file, then renamed),
    /// and throws what `data(ofType:)` or the write throws. It changes neither `fileURL` nor
    /// `fileType`; `save(to:ofType:for:completionHandler:)` does.
    open func write(to url: URL, ofType typeName: String) throws {
        try data(ofType: typeName).write(to: url, options: .atomic)
    }

    /// What kind of save `save(to:ofType:for:completionHandler:)` makes
    /// (AppKit's `NSDocument.SaveOperationType`), with AppKit's raw values.
    public enum SaveOperationType: UInt, Sendable {
        /// Save to the document's own file, which it keeps (`saveOperation`).
        case saveOperation = 0
        /// Save to a new file, which becomes the document's (`saveAsOperation`).
        case saveAsOperation = 1
        /// Save a copy; the document keeps its file (`saveToOperation`).
        case saveToOperation = 2
        /// Autosave elsewhere; the document keeps its file (`autosaveElsewhereOperation`).
        case autosaveElsewhereOperation = 3
        /// Autosave over the document's own file (`autosaveInPlaceOperation`).
        case autosaveInPlaceOperation = 4
        /// Autosave to a new file, which becomes the document's (`autosaveAsOperation`).
        case autosaveAsOperation = 5
    }

    /// Saves the document to `url` as `typeName` (AppKit's
    /// `save(to:ofType:for:completionHandler:)`): calls `write(to:ofType:)`; on success, a
    /// save, save-as, autosave in place or autosave-as makes `url` the document's `fileURL`
    /// and `typeName` its `fileType` (a save-to or autosave elsewhere leaves them), and the
    /// handler gets nil; on failure it gets the error and nothing changes. The handler is
    /// called before this returns, on the main actor (AppKit allows either).
    open func save(to url: URL, ofType typeName: String, for saveOperation: SaveOperationType,
                   completionHandler: @escaping ((any Error)?) -> Void) {
        do {
            try write(to: url, ofType: typeName)
        } catch {
            return completionHandler(error)
        }
        switch saveOperation {
        case .saveOperation, .saveAsOperation, .autosaveInPlaceOperation, .autosaveAsOperation:
            fileType = typeName
            fileURL = url
        case .saveToOperation, .autosaveElsewhereOperation:
            break
        }
        completionHandler(nil)
    }

    /// The name shown for the document (AppKit's `displayName`): one you set, else the file's
    /// name without its extension, else "Untitled" (AppKit numbers untitled documents; Baton
    /// does not). Setting nil goes back to the default, as in AppKit.
    open var displayName: String! {
        get {
            if let customDisplayName { return customDisplayName }
            if let fileURL { return fileURL.deletingPathExtension().lastPathComponent }
            return "Untitled"
        }
        set { customDisplayName = newValue }
    }
    private var customDisplayName: String?

    /// Called by a window controller of this document before it loads its window (AppKit's
    /// `windowControllerWillLoadNib(_:)`, after the controller's `windowWillLoad()`); the
    /// default does nothing.
    open func windowControllerWillLoadNib(_ windowController: WindowController) {}

    /// Called by a window controller of this document after it loaded its window (AppKit's
    /// `windowControllerDidLoadNib(_:)`, after the controller's `windowDidLoad()`); the
    /// default does nothing.
    open func windowControllerDidLoadNib(_ windowController: WindowController) {}

    /// Creates the window controllers (AppKit's `makeWindowControllers()`); called when the
    /// document controller displays a new document. The default makes none.
    open func makeWindowControllers() {}

    /// Shows every window of the document (AppKit's `showWindows()`).
    open func showWindows() { for controller in windowControllers { controller.showWindow(self) } }

    /// Adds a window controller (AppKit's `addWindowController(_:)`): its `document` becomes
    /// this document and it shares the document's activity.
    open func addWindowController(_ controller: WindowController) {
        guard !windowControllers.contains(where: { $0 === controller }) else { return }
        windowControllers.append(controller)
        controller.document = self
        controller.userActivity = userActivity
    }

    /// Removes a window controller (AppKit's `removeWindowController(_:)`): it no longer has
    /// the document or its activity.
    open func removeWindowController(_ controller: WindowController) {
        windowControllers.removeAll { $0 === controller }
        if controller.document === self { controller.document = nil }
        if controller.userActivity === userActivity { controller.userActivity = nil }
    }

    /// Brings the activity up to date before it is saved (AppKit's `updateUserActivityState(_:)`):
    /// puts `fileURL` under `UserActivity.documentURLKey`. Overrides should call super.
    open func updateUserActivityState(_ activity: UserActivity) {
        if let fileURL { activity.addUserInfoEntries(from: [UserActivity.documentURLKey: fileURL]) }
    }

    /// Restores state from a continued activity (AppKit's `restoreUserActivityState(_:)`, from
    /// `NSUserActivityRestoring`); the default does nothing.
    open func restoreUserActivityState(_ activity: UserActivity) {}

    /// Closes the document (AppKit's `close()`): its windows close, its activity is
    /// invalidated, and `DocumentController.shared.removeDocument(_:)` takes it out of
    /// `documents`.
    open func close() {
        guard !isClosed else { return }
        isClosed = true
        for controller in windowControllers { controller.close() }
        userActivity?.invalidate()
        DocumentController.shared.removeDocument(self)
    }

    private func refreshActivity() {
        let manifest = Application.shared.manifest
        let type = fileType.flatMap { manifest?.documentType(named: $0) } ?? fileURL.flatMap { manifest?.documentType(for: $0) }
        guard fileURL != nil, let activityType = type?.activityType else { return }
        if userActivity?.activityType != activityType || userActivity?.isValid != true {
            userActivity?.invalidate()
            userActivity = UserActivity(activityType: activityType)
        }
        userActivity?.title = fileURL?.lastPathComponent
        userActivity?.needsSave = true
    }
}
