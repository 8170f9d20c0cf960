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
    /// The document's file; setting it (re)creates the activity when the type has one.
    public var fileURL: URL? {
        didSet { if fileURL != oldValue { refreshActivity() } }
    }
    /// The manifest's document type name (`CFBundleTypeName`).
    public var fileType: String?
    public private(set) var windowControllers: [WindowController] = []
    public private(set) var isClosed = false

    /// The document's activity, shared with its window controllers.
    public var userActivity: UserActivity? {
        didSet {
            guard oldValue !== userActivity else { return }
            ActivityRegistry.shared.owner(self, changedActivityFrom: oldValue, to: userActivity)
            for controller in windowControllers { controller.userActivity = userActivity }
        }
    }

    public init() {}

    /// Opens the file at `url`: sets `fileURL` and `fileType`, then calls `read(from:ofType:)`.
    public required init(contentsOf url: URL, ofType typeName: String?) throws {
        fileType = typeName ?? Application.shared.manifest?.documentType(for: url)?.name
        try read(from: url, ofType: fileType)
        fileURL = url
        refreshActivity()
    }

    /// Reads the file's contents; the default reads nothing.
    open func read(from url: URL, ofType typeName: String?) throws {}

    /// Creates the window controllers; called when the document controller displays it.
    open func makeWindowControllers() {}

    /// Shows every window of the document.
    public func showWindows() { for controller in windowControllers { controller.showWindow(self) } }

    public func addWindowController(_ controller: WindowController) {
        guard !windowControllers.contains(where: { $0 === controller }) else { return }
        windowControllers.append(controller)
        controller.document = self
        controller.userActivity = userActivity
    }

    public func removeWindowController(_ controller: WindowController) {
        windowControllers.removeAll { $0 === controller }
        if controller.document === self { controller.document = nil }
        if controller.userActivity === userActivity { controller.userActivity = nil }
    }

    /// Puts `fileURL` under `UserActivity.documentURLKey`. Overrides should call super.
    open func updateUserActivityState(_ activity: UserActivity) {
        if let fileURL { activity.addUserInfoEntries(from: [UserActivity.documentURLKey: fileURL]) }
    }

    /// Restores state from a continued activity; the default does nothing.
    open func restoreUserActivityState(_ activity: UserActivity) {}

    /// Closes the document: its windows close, its activity is invalidated, and it leaves
    /// `DocumentController.shared.documents`.
    open func close() {
        guard !isClosed else { return }
        isClosed = true
        for controller in windowControllers { controller.close() }
        userActivity?.invalidate()
        DocumentController.shared.remove(self)
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
