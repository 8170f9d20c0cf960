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

    /// Reads the file's contents (AppKit's `read(from:ofType:)`); the default reads nothing.
    open func read(from url: URL, ofType typeName: String) throws {}

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
