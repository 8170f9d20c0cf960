import Foundation

/// What an app looks like inside, at one moment: its windows in order with key and main, the
/// responder chains of the key and main windows, the current user activity and the other
/// live ones, and optionally where some actions would go. A value: `Codable` (JSON for
/// `baton inspect --json`, documented in docs/INSPECT.md) and `Sendable`, made on the main
/// actor by `Application.inspection(actions:)`.
///
/// Nothing is collected until someone asks: making one walks the windows and measures the
/// activities' payloads, so it is for tools and inspectors, not for every frame.
public struct ApplicationInspection: Codable, Sendable, Equatable {
    /// The app's id from its manifest, or nil without a manifest.
    public var appID: String?
    /// The team identifier from its manifest, or nil.
    public var teamIdentifier: String?
    /// The process id.
    public var processID: Int32
    /// Whether the app is active (only an active app has key and main windows and advertises).
    public var isActive: Bool
    /// Whether the app is hidden.
    public var isHidden: Bool
    /// Whether it finished launching.
    public var isFinishedLaunching: Bool
    /// Every window not closed: the ones on screen front to back, then the others in the
    /// order they were made.
    public var windows: [WindowInspection]
    /// The key window's number, or nil.
    public var keyWindowNumber: Int?
    /// The main window's number, or nil.
    public var mainWindowNumber: Int?
    /// The current activity, or nil.
    public var currentActivity: ActivityInspection?
    /// The activities alive but not current, found through the responders of the windows and
    /// the open documents (an activity only app code holds is not seen), each with
    /// `advertising` saying why it is not offered.
    public var otherActivities: [ActivityInspection]
    /// The answers for the action names asked about, in the order asked.
    public var actions: [ActionInspection]
    /// This app's continuations, live and the last `ContinuationHistory.capacity`, oldest
    /// first (`Application.continuationHistory`); empty when read from an app that kept none.
    public var continuations: [ContinuationRecord]

    /// A snapshot with these facts.
    public init(appID: String?, teamIdentifier: String?, processID: Int32, isActive: Bool, isHidden: Bool,
                isFinishedLaunching: Bool, windows: [WindowInspection], keyWindowNumber: Int?, mainWindowNumber: Int?,
                currentActivity: ActivityInspection?, otherActivities: [ActivityInspection], actions: [ActionInspection],
                continuations: [ContinuationRecord] = []) {
        self.appID = appID
        self.teamIdentifier = teamIdentifier
        self.processID = processID
        self.isActive = isActive
        self.isHidden = isHidden
        self.isFinishedLaunching = isFinishedLaunching
        self.windows = windows
        self.keyWindowNumber = keyWindowNumber
        self.mainWindowNumber = mainWindowNumber
        self.currentActivity = currentActivity
        self.otherActivities = otherActivities
        self.actions = actions
        self.continuations = continuations
    }

    private enum CodingKeys: String, CodingKey {
        case appID, teamIdentifier, processID, isActive, isHidden, isFinishedLaunching, windows, keyWindowNumber,
             mainWindowNumber, currentActivity, otherActivities, actions, continuations
    }

    /// Reads a snapshot; one without `continuations` (an app of agent interface 5) has none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appID = try c.decodeIfPresent(String.self, forKey: .appID)
        teamIdentifier = try c.decodeIfPresent(String.self, forKey: .teamIdentifier)
        processID = try c.decode(Int32.self, forKey: .processID)
        isActive = try c.decode(Bool.self, forKey: .isActive)
        isHidden = try c.decode(Bool.self, forKey: .isHidden)
        isFinishedLaunching = try c.decode(Bool.self, forKey: .isFinishedLaunching)
        windows = try c.decode([WindowInspection].self, forKey: .windows)
        keyWindowNumber = try c.decodeIfPresent(Int.self, forKey: .keyWindowNumber)
        mainWindowNumber = try c.decodeIfPresent(Int.self, forKey: .mainWindowNumber)
        currentActivity = try c.decodeIfPresent(ActivityInspection.self, forKey: .currentActivity)
        otherActivities = try c.decode([ActivityInspection].self, forKey: .otherActivities)
        actions = try c.decode([ActionInspection].self, forKey: .actions)
        continuations = try c.decodeIfPresent([ContinuationRecord].self, forKey: .continuations) ?? []
    }

    /// The key window, if any.
    public var keyWindow: WindowInspection? { windows.first { $0.isKey } }
    /// The main window, if any.
    public var mainWindow: WindowInspection? { windows.first { $0.isMain } }
}

extension Application {
    /// The app as it is now (see `ApplicationInspection`), with where each action named in
    /// `actions` would go (`inspectAction(named:)`).
    public func inspection(actions: [String] = []) -> ApplicationInspection {
        let current = currentUserActivity
        let manifest = self.manifest
        return ApplicationInspection(
            appID: manifest?.appID, teamIdentifier: manifest?.teamIdentifier, processID: getpid(),
            isActive: isActive, isHidden: isHidden, isFinishedLaunching: isFinishedLaunching,
            windows: windowsInOrder.map { WindowInspection($0, in: self) },
            keyWindowNumber: keyWindow?.windowNumber, mainWindowNumber: mainWindow?.windowNumber,
            currentActivity: current.map { ActivityInspection($0, in: self) },
            otherActivities: liveActivities().filter { $0 !== current }.map { ActivityInspection($0, in: self) },
            actions: actions.map(inspectAction(named:)),
            continuations: continuationHistory.records)
    }

    /// The windows on screen front to back (panels too), then the others in creation order.
    private var windowsInOrder: [Window] {
        let stacked = isHidden ? [] : windowStack.windows
        return stacked + windows.filter { window in !stacked.contains { $0 === window } }
    }

    /// The activities the runtime can see: held by a responder of a window (its views, view
    /// controllers, the window and its controller), by the application or its delegate, or by
    /// an open document; each once, in that order.
    private func liveActivities() -> [UserActivity] {
        var found: [UserActivity] = []
        func add(_ activity: UserActivity?) {
            if let activity, !found.contains(where: { $0 === activity }) { found.append(activity) }
        }
        func visit(_ view: View) {
            add(view.userActivity)
            if let controller = view.next as? ViewController { add(controller.userActivity) }
            for subview in view.subviews { visit(subview) }
        }
        for window in windows {
            if let contentView = window.contentView { visit(contentView) }
            add(window.contentViewController?.userActivity)
            add(window.userActivity)
            add(window.windowController?.userActivity)
        }
        add(userActivity)
        add((delegate as? Responder)?.userActivity)
        for document in DocumentController.shared.documents { add(document.userActivity) }
        return found
    }
}
