import Foundation

/// The few facts of an app that change as a person works in it, as `baton inspect --watch`
/// follows them: whether it is active, its key and main windows, the key window's first
/// responder, and the current activity. Cheap to make (nothing is measured or encoded), so an
/// app can send it each time it changes while someone watches (`observeInspectionSummary(_:)`).
public struct InspectionSummary: Codable, Sendable, Equatable {
    /// Whether the app is active.
    public var isActive: Bool
    /// The key window: its type and title, or nil.
    public var keyWindow: String?
    /// The main window: its type and title, or nil.
    public var mainWindow: String?
    /// The key window's first responder (its description), or nil.
    public var firstResponder: String?
    /// The current activity's type, or nil.
    public var currentActivityType: String?
    /// The current activity's title, or nil.
    public var currentActivityTitle: String?

    /// A summary with these facts.
    public init(isActive: Bool, keyWindow: String?, mainWindow: String?, firstResponder: String?,
                currentActivityType: String?, currentActivityTitle: String?) {
        self.isActive = isActive
        self.keyWindow = keyWindow
        self.mainWindow = mainWindow
        self.firstResponder = firstResponder
        self.currentActivityType = currentActivityType
        self.currentActivityTitle = currentActivityTitle
    }

    /// The summary in words (strings as they are: escape them before printing).
    public var words: String {
        let key = keyWindow.map { "key window \($0)" } ?? "no key window"
        let first = firstResponder.map { ", first responder \($0)" } ?? ""
        let main = mainWindow.map { $0 == keyWindow ? "" : ", main window \($0)" } ?? ""
        let title = currentActivityTitle.map { " '\($0)'" } ?? ""
        let activity = currentActivityType.map { ", current activity \($0)\(title)" } ?? ", no current activity"
        return (isActive ? "active, " : "inactive, ") + key + first + main + activity
    }
}

extension Application {
    /// The app's summary now (see `InspectionSummary`).
    public func inspectionSummary() -> InspectionSummary {
        func name(_ window: Window?) -> String? { window.map { "\(String(describing: type(of: $0))) '\($0.title)'" } }
        let current = currentUserActivity
        return InspectionSummary(isActive: isActive, keyWindow: name(keyWindow), mainWindow: name(mainWindow),
                                 firstResponder: keyWindow?.firstResponder?.responderDescription,
                                 currentActivityType: current?.activityType, currentActivityTitle: current?.title)
    }

    /// Calls `handler` with a new `inspectionSummary()` each time it changed, at most once per
    /// turn of the loop, after the same changes `observeInspection(_:)` follows; nothing is
    /// watched while nobody observes.
    public func observeInspectionSummary(_ handler: @escaping @MainActor (InspectionSummary) -> Void) -> InspectionObservation {
        let changes = InspectionChanges.of(self)
        let id = changes.addSummary(handler)
        return InspectionObservation { [weak changes] in changes?.remove(id) }
    }
}
