import Foundation

/// One user activity of an app, as inspection shows it: what it is, who holds it, how its
/// saves went, how big its payload is, and whether it is offered to the other devices (and if
/// not, why).
public struct ActivityInspection: Codable, Sendable, Equatable {
    /// The activity type.
    public var activityType: String
    /// The user-visible title.
    public var title: String?
    /// Who holds it: the descriptions of the responders and documents sharing it (empty for
    /// an activity the app manages itself).
    public var holders: [String]
    /// Whether it is the app's current activity.
    public var isCurrent: Bool
    /// Whether the runtime manages it (a responder or document held it).
    public var isManaged: Bool
    /// Whether a save is pending (`needsSave`).
    public var needsSave: Bool
    /// When the last save ran, or nil if none did.
    public var lastSaved: Date?
    /// How many saves ran.
    public var saveCount: Int
    /// How many `needsSave = true` requests were folded into a save already pending: the
    /// coalescing Apple asks for (handoff-programming-guide, Listing 2-3).
    public var coalescedSaveRequests: Int
    /// The payload's size in bytes as the activity is now (unsaved), or nil when it cannot be
    /// encoded (see `payloadError`).
    public var payloadSize: Int?
    /// Why the payload cannot be encoded, when it cannot.
    public var payloadError: String?
    /// How the payload size compares with Apple's advice and Baton's hard cap.
    public var payloadAssessment: PayloadAssessment
    /// The web page a browser opens where no app continues the activity.
    public var webpageURL: URL?
    /// When the activity stops being advertised, if ever.
    public var expirationDate: Date?
    /// `isEligibleForHandoff`.
    public var isEligibleForHandoff: Bool
    /// Whether the app's own manifest declares the type (nil when the app has no manifest):
    /// Apple lets only an app of the same team that declares the type continue it.
    public var declaredInManifest: Bool?
    /// The team identifier of the app's manifest (activities continue only into apps of the
    /// same team), nil without a manifest.
    public var teamIdentifier: String?
    /// Whether it is offered to the other devices now, or the reason it is not.
    public var advertising: ActivityAdvertising

    /// How a payload's size compares with the limits.
    public enum PayloadAssessment: String, Codable, Sendable, Equatable {
        /// At most `UserActivity.payloadAdvisedSize` (Apple's 3 KB advice).
        case withinAdvice
        /// Over the advice, still sent (with a logged warning).
        case overAdvice
        /// Over `UserActivity.payloadLimit`: a handoff fails with
        /// `userActivityHandoffUserInfoTooLarge`.
        case overLimit
        /// It cannot be encoded at all (see `payloadError`).
        case unencodable

        /// The assessment of a payload of `size` bytes (nil: not encodable).
        public init(size: Int?) {
            guard let size else { self = .unencodable; return }
            if size > UserActivity.payloadLimit { self = .overLimit }
            else if size > UserActivity.payloadAdvisedSize { self = .overAdvice }
            else { self = .withinAdvice }
        }
    }
}

extension ActivityInspection {
    /// Apple's advice for a payload's size, in bytes (handoff-programming-guide, "Best
    /// Practices"): `UserActivity.payloadAdvisedSize`.
    public static var payloadAdvisedSize: Int { UserActivity.payloadAdvisedSize }
    /// Baton's hard cap, in bytes: `UserActivity.payloadLimit`.
    public static var payloadLimit: Int { UserActivity.payloadLimit }

    /// `activity` as it is now in `application`. Measures the payload without saving (a save
    /// would run the app's code and change what is inspected).
    @MainActor
    public init(_ activity: UserActivity, in application: Application = .shared) {
        let registry = ActivityRegistry.shared
        var size: Int?, error: String?
        do { size = try activity.serializedPayload().count } catch let failure { error = "\(failure)" }
        let manifest = application.manifest
        self.init(activityType: activity.activityType, title: activity.title,
                  holders: activity.liveOwners().map(ActivityInspection.describe),
                  isCurrent: registry.current === activity, isManaged: activity.isManaged,
                  needsSave: activity.needsSave, lastSaved: activity.lastSaveDate, saveCount: activity.saveCount,
                  coalescedSaveRequests: activity.coalescedSaveRequests, payloadSize: size, payloadError: error,
                  payloadAssessment: PayloadAssessment(size: size), webpageURL: activity.webpageURL,
                  expirationDate: activity.expirationDate, isEligibleForHandoff: activity.isEligibleForHandoff,
                  declaredInManifest: manifest.map {
                      $0.canContinue(activityType: activity.activityType, fromTeam: $0.teamIdentifier)
                  },
                  teamIdentifier: manifest?.teamIdentifier, advertising: registry.advertising(of: activity))
    }

    @MainActor
    private static func describe(_ owner: any UserActivityOwner) -> String {
        switch owner {
        case let responder as Responder: responder.responderDescription
        case let document as Document: "\(type(of: document)) '\(document.displayName ?? "")'"
        default: "\(type(of: owner))"
        }
    }
}
