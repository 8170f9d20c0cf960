import BatonLoop
import Foundation

/// An observer of an app's inspection (`Application.observeInspection(_:)`), ended by
/// `cancel()` or when released.
@MainActor
public final class InspectionObservation {
    private var end: (@MainActor () -> Void)?
    init(end: @escaping @MainActor () -> Void) { self.end = end }
    /// Stops the observer; nothing is called after this returns.
    public func cancel() { end?(); end = nil }
    isolated deinit { end?() }
}

extension Application {
    /// Calls `handler` with a new `inspection()` each time what it shows may have changed: the
    /// key or main window, a first responder, activation or hiding, a window closing, the
    /// current or advertised activity, a save of an activity, or a step of a continuation. Changes in one turn of the
    /// loop are reported once, from an idle source, and only when the snapshot differs from
    /// the last one given. The first call comes after the next such change, not at once
    /// (call `inspection()` for the state now).
    ///
    /// Costs nothing while nobody observes: the notifications are watched only between the
    /// first observer and the cancel of the last.
    public func observeInspection(_ handler: @escaping @MainActor (ApplicationInspection) -> Void) -> InspectionObservation {
        let changes = InspectionChanges.of(self)
        let id = changes.add(handler)
        return InspectionObservation { [weak changes] in changes?.remove(id) }
    }
}

/// The observers of one application's inspection and the notifications watched for them.
@MainActor
final class InspectionChanges {
    private static var all: [ObjectIdentifier: InspectionChanges] = [:]

    /// The observers of `application`, made on first use.
    static func of(_ application: Application) -> InspectionChanges {
        if let known = all[ObjectIdentifier(application)] { return known }
        let made = InspectionChanges(application)
        all[ObjectIdentifier(application)] = made
        return made
    }

    /// The notifications after which the snapshot may differ. A first responder change has
    /// none of its own; it schedules `updateWindows()`, which posts `didUpdateNotification`.
    /// The app's continuation history is followed through `ContinuationHistory.observe(_:)`.
    private static let watched: [Notification.Name] = [
        Window.didBecomeKeyNotification, Window.didResignKeyNotification, Window.didBecomeMainNotification,
        Window.didResignMainNotification, Window.willCloseNotification, Application.didUpdateNotification,
        Application.didBecomeActiveNotification, Application.didResignActiveNotification,
        Application.didHideNotification, Application.didUnhideNotification,
        Application.currentUserActivityDidChangeNotification, UserActivity.didSaveNotification,
    ]

    private weak var application: Application?
    private var handlers: [Int: @MainActor (ApplicationInspection) -> Void] = [:]
    private var summaryHandlers: [Int: @MainActor (InspectionSummary) -> Void] = [:]
    private var nextID = 0
    private var tokens: [any NSObjectProtocol] = []
    private var history: InspectionObservation?
    private var pending: LoopSource?
    private var last: ApplicationInspection?
    private var lastSummary: InspectionSummary?

    private init(_ application: Application) { self.application = application }

    func add(_ handler: @escaping @MainActor (ApplicationInspection) -> Void) -> Int {
        nextID += 1
        handlers[nextID] = handler
        if handlers.count == 1 { last = application?.inspection() }
        if tokens.isEmpty { startWatching() }
        return nextID
    }

    func addSummary(_ handler: @escaping @MainActor (InspectionSummary) -> Void) -> Int {
        nextID += 1
        summaryHandlers[nextID] = handler
        if summaryHandlers.count == 1 { lastSummary = application?.inspectionSummary() }
        if tokens.isEmpty { startWatching() }
        return nextID
    }

    func remove(_ id: Int) {
        handlers[id] = nil
        summaryHandlers[id] = nil
        if handlers.isEmpty { last = nil }
        if summaryHandlers.isEmpty { lastSummary = nil }
        guard handlers.isEmpty && summaryHandlers.isEmpty else { return }
        for token in tokens { NotificationCenter.default.removeObserver(token) }
        tokens = []
        history?.cancel()
        history = nil
        pending?.cancel()
        pending = nil
    }

    private func startWatching() {
        history = application?.continuationHistory.observe { [weak self] _ in self?.changed() }
        tokens = Self.watched.map { name in
            NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] _ in
                MainActor.assumeIsolated { self?.changed() }
            }
        }
    }

    /// Schedules one report for the loop's next idle turn.
    private func changed() {
        guard pending == nil, !handlers.isEmpty || !summaryHandlers.isEmpty else { return }
        pending = MainLoop.idle { [weak self] in
            guard let self else { return }
            pending = nil
            report()
        }
    }

    private func report() {
        guard let application else { return }
        if !summaryHandlers.isEmpty {
            let summary = application.inspectionSummary()
            if summary != lastSummary {
                lastSummary = summary
                for handler in summaryHandlers.values { handler(summary) }
            }
        }
        guard !handlers.isEmpty else { return }
        let now = application.inspection()
        guard now != last else { return }
        last = now
        for handler in handlers.values { handler(now) }
    }
}
