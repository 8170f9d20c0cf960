import BatonLoop
import Foundation
import Logging

/// A user activity (Foundation's `NSUserActivity`): what the user is doing, in a form another
/// device can continue.
///
/// Which activity is current, when saves run and when a managed activity is invalidated is
/// decided in one place, `ActivityRegistry`.
@MainActor
public final class UserActivity {
    /// `userInfo` key under which a document's activity carries its `fileURL`.
    nonisolated public static let documentURLKey = "NSUserActivityDocumentURL"
    /// The activity type of web browsing, for web-to-app and app-to-web handoff.
    nonisolated public static let browsingWebType = "NSUserActivityTypeBrowsingWeb"

    /// The type, a reverse-DNS string the continuing app declares; fixed at creation
    /// (handoff-programming-guide, "Specifying an Activity Type").
    public let activityType: String
    /// A user-visible title.
    public var title: String? { didSet { contentChanged() } }
    /// The keys of `userInfo` that are the minimal information to restore the activity later
    /// (Apple: "should be stored for later restoration"). Carried with the activity; a handoff
    /// still carries the whole `userInfo`, as the seed's own listing relies on
    /// (implementing-handoff-in-your-app: it requires only "shape-type" yet restores from
    /// "activity-version" too).
    public var requiredUserInfoKeys: Set<String>? { didSet { contentChanged() } }
    /// The URL of the page or app that led to this activity (Foundation's `referrerURL`).
    public var referrerURL: URL? { didSet { contentChanged() } }
    /// After this date the activity is no longer advertised.
    public var expirationDate: Date? { didSet { contentChanged() } }
    /// Search keywords (Foundation's `keywords`); carried with the activity.
    public var keywords: Set<String> = [] { didSet { contentChanged() } }
    /// Whether the activity may be continued on another device (default true).
    public var isEligibleForHandoff = true { didSet { contentChanged() } }
    /// Whether the activity may be indexed for search (Foundation's `isEligibleForSearch`);
    /// carried with the activity, Baton has no search index.
    public var isEligibleForSearch = false { didSet { contentChanged() } }
    /// Whether the activity may be indexed publicly (Foundation's `isEligibleForPublicIndexing`);
    /// carried with the activity, Baton has no public index.
    public var isEligibleForPublicIndexing = false { didSet { contentChanged() } }
    /// Identifies the content the activity is about, for choosing a scene or window
    /// (Foundation's `targetContentIdentifier`); carried with the activity.
    public var targetContentIdentifier: String? { didSet { contentChanged() } }
    /// A value that identifies the activity for later deletion with
    /// `deleteSavedUserActivities(withPersistentIdentifiers:completionHandler:)` (Foundation's
    /// `persistentIdentifier`). Carried with the activity; Baton does not persist activities.
    public var persistentIdentifier: UserActivityPersistentIdentifier? { didSet { contentChanged() } }
    /// Whether the system may suggest the activity as a shortcut (Foundation's
    /// `isEligibleForPrediction`, default false). Kept for ported code; Baton has no
    /// predictions, so it changes nothing.
    public var isEligibleForPrediction = false
    /// Whether the continuing side may open streams back to this activity.
    public var supportsContinuationStreams = false { didSet { contentChanged() } }
    /// On a continued activity: opens the channel back to the originating device.
    var streamOpener: (@MainActor () async throws -> any ContinuationStreamChannel)?
    /// The delegate (weak, as in Foundation).
    public weak var delegate: (any UserActivityDelegate)?

    private var storedUserInfo: [AnyHashable: Any]? { didSet { contentChanged() } }
    private var storedWebpageURL: URL? { didSet { contentChanged() } }
    private var storedNeedsSave = false

    /// False once invalidated; an invalid activity never becomes current again.
    public internal(set) var isValid = true
    /// True once a responder or document has held it: the runtime then saves it through
    /// them and invalidates it when none is left.
    var isManaged = false
    /// The responders and documents sharing this activity (weak).
    var owners: [WeakOwner] = []

    /// An activity of type `activityType` (Foundation's `init(activityType:)`).
    public init(activityType: String) {
        self.activityType = activityType
    }

    /// An activity of the first type the manifest's `NSUserActivityTypes` declares (Foundation's
    /// `init()`, deprecated as in Apple's SDK), or of the empty type if it declares none.
    @available(*, deprecated, message: "Use init(activityType:) with a specific activity type string")
    public convenience init() {
        self.init(activityType: Application.shared.manifest?.activityTypes.first ?? "")
    }

    // MARK: Saved activities

    /// Deletes the saved activities whose `persistentIdentifier` is one of `persistentIdentifiers`
    /// (Foundation's `deleteSavedUserActivities(withPersistentIdentifiers:completionHandler:)`).
    /// Baton does not persist activities yet, so there is nothing to delete: `handler` is called
    /// on the main actor, from the main loop after this returns, as Apple calls it later.
    public static func deleteSavedUserActivities(withPersistentIdentifiers persistentIdentifiers: [UserActivityPersistentIdentifier],
                                                 completionHandler handler: @escaping @Sendable () -> Void) {
        MainLoop.idle { handler() }
    }

    /// Deletes every saved activity of the app (Foundation's
    /// `deleteAllSavedUserActivities(completionHandler:)`). Baton does not persist activities
    /// yet, so there is nothing to delete: `handler` is called on the main actor, from the main
    /// loop after this returns, as Apple calls it later.
    public static func deleteAllSavedUserActivities(completionHandler handler: @escaping @Sendable () -> Void) {
        MainLoop.idle { handler() }
    }

    /// The `async` form of `deleteSavedUserActivities(withPersistentIdentifiers:completionHandler:)`.
    public static func deleteSavedUserActivities(withPersistentIdentifiers persistentIdentifiers: [UserActivityPersistentIdentifier]) async {
        await withLoopContinuation { (done: CheckedContinuation<Void, Never>) in
            deleteSavedUserActivities(withPersistentIdentifiers: persistentIdentifiers) { done.resume() }
        }
    }

    /// The `async` form of `deleteAllSavedUserActivities(completionHandler:)`.
    public static func deleteAllSavedUserActivities() async {
        await withLoopContinuation { (done: CheckedContinuation<Void, Never>) in
            deleteAllSavedUserActivities { done.resume() }
        }
    }

    // MARK: State

    /// The state needed to continue the activity. Setting a dictionary with a value Handoff
    /// cannot carry is refused: the error is logged and the previous dictionary kept. Use
    /// `setUserInfo(_:)` to get the error instead.
    public var userInfo: [AnyHashable: Any]? {
        get { storedUserInfo }
        set {
            do { try setUserInfo(newValue) } catch { UserActivity.log(error, activity: self) }
        }
    }

    /// Sets `userInfo`, or throws naming the first key whose value Handoff cannot carry and
    /// leaves `userInfo` as it was.
    public func setUserInfo(_ info: [AnyHashable: Any]?) throws(UserActivityError) {
        if let info { _ = try UserInfoCoding.encode(info) }
        storedUserInfo = info
    }

    /// Sets userInfo decoded from a payload, valid by construction.
    func storeDecodedUserInfo(_ info: [String: Any]) { storedUserInfo = info }

    /// Sets userInfo decoded from a payload, already keyed by `AnyHashable` (no conversion).
    func storeDecodedUserInfo(_ info: [AnyHashable: Any]) { storedUserInfo = info }

    /// Merges `entries` into `userInfo` (`addUserInfoEntries(from:)`). An entry Handoff cannot
    /// carry is left out and logged; the others are applied.
    public func addUserInfoEntries(from entries: [AnyHashable: Any]) {
        var merged = storedUserInfo ?? [:]
        for (key, value) in entries {
            do {
                _ = try UserInfoCoding.encode([key: value])
                merged[key] = value
            } catch {
                UserActivity.log(error, activity: self)
            }
        }
        storedUserInfo = merged
    }

    /// Merges `entries` into `userInfo` only if every entry can be carried; otherwise throws
    /// naming the first that cannot, and applies none.
    public func addUserInfoEntries(validating entries: [AnyHashable: Any]) throws(UserActivityError) {
        _ = try UserInfoCoding.encode(entries)
        storedUserInfo = (storedUserInfo ?? [:]).merging(entries) { _, new in new }
    }

    /// The web page to open where no app continues the activity. Only http and https are
    /// accepted; anything else is refused, logged, and the previous value kept.
    public var webpageURL: URL? {
        get { storedWebpageURL }
        set {
            do { try setWebpageURL(newValue) } catch { UserActivity.log(error, activity: self) }
        }
    }

    /// Sets `webpageURL` or throws `UserActivityError.webpageURLNotHTTP`, keeping the old one.
    public func setWebpageURL(_ url: URL?) throws(UserActivityError) {
        if let url, !["http", "https"].contains(url.scheme?.lowercased() ?? "") {
            throw .webpageURLNotHTTP(url: url.absoluteString)
        }
        storedWebpageURL = url
    }

    /// Set to true when the activity's state changed; any number of sets in one turn of the
    /// main loop make one save, run from a GLib idle source (about-handoff, "User Activity
    /// Delegate"; handoff-programming-guide Listing 2-3). A save sets it back to false.
    public var needsSave: Bool {
        get { storedNeedsSave }
        set {
            if newValue && storedNeedsSave { coalescedSaveRequests += 1 }
            guard newValue != storedNeedsSave else { return }
            storedNeedsSave = newValue
            if newValue {
                contentChanged()
                ActivityRegistry.shared.scheduleSave(of: self)
            }
        }
    }

    /// Clears the flag without scheduling anything and counts the save: the registry's save
    /// does this.
    func markSaved() {
        storedNeedsSave = false
        saveCount += 1
        lastSaveDate = Date()
    }

    /// How many saves ran (for inspection).
    private(set) var saveCount = 0
    /// When the last save ran (for inspection).
    private(set) var lastSaveDate: Date?
    /// How many times `needsSave` was set to true while a save was already pending: requests
    /// folded into a save already scheduled (for inspection).
    private(set) var coalescedSaveRequests = 0

    // MARK: Held payloads

    /// Told, once after each `payloadWasHeld()`, that the activity may no longer encode to the
    /// payload held then: a property or `userInfo` was set, or `needsSave` became true. The
    /// agent connection uses it to tell the agent that holds the payload to ask the app again.
    package static var contentDidChange: (@MainActor (UserActivity) -> Void)?
    /// False from `payloadWasHeld()` until the next change (see `contentDidChange`).
    package private(set) var changedSincePayloadHeld = true

    /// The payload just encoded from this activity is held elsewhere (by the agent): the next
    /// change is reported through `contentDidChange`.
    package func payloadWasHeld() { changedSincePayloadHeld = false }

    private func contentChanged() {
        guard !changedSincePayloadHeld else { return }
        changedSincePayloadHeld = true
        UserActivity.contentDidChange?(self)
    }

    // MARK: Current

    /// True while this is the app's current activity.
    public var isCurrent: Bool { ActivityRegistry.shared.current === self }

    /// Makes this the current activity; the previous one stops being current. Does nothing
    /// once invalidated (handoff-programming-guide, "User Activity Object").
    public func becomeCurrent() { ActivityRegistry.shared.makeCurrent(self) }

    /// Stops being current; `becomeCurrent()` may make it current again.
    public func resignCurrent() { ActivityRegistry.shared.resignCurrent(self) }

    /// Ends the activity for good: it stops being current, its pending save is dropped, and
    /// `becomeCurrent()` does nothing from now on.
    public func invalidate() { ActivityRegistry.shared.invalidate(self) }

    // MARK: Owners

    func addOwner(_ owner: any UserActivityOwner) {
        isManaged = true
        if !owners.contains(where: { $0.object === owner }) { owners.append(WeakOwner(owner)) }
    }

    func removeOwner(_ owner: any UserActivityOwner) {
        owners.removeAll { $0.object === owner || $0.object == nil }
        if isManaged && owners.isEmpty { invalidate() }
    }

    /// The owners still alive; dead ones are dropped.
    func liveOwners() -> [any UserActivityOwner] {
        owners.removeAll { $0.object == nil }
        return owners.compactMap(\.object)
    }

    static func log(_ error: Error, activity: UserActivity) {
        Logger(label: "baton").error("\(error)", error: error, metadata: ["activityType": "\(activity.activityType)"])
    }
}

/// The persistent identifier of a user activity (Foundation's `NSUserActivityPersistentIdentifier`).
public typealias UserActivityPersistentIdentifier = String

/// A weak reference to a responder or document sharing an activity.
@MainActor
struct WeakOwner {
    weak var object: (any UserActivityOwner)?
    init(_ object: any UserActivityOwner) { self.object = object }
}
