import Baton
import BatonLoop
import CGLib
import Foundation

/// The two interfaces on one app's connection to the agent (docs/PROTOCOL.md, "The agent"):
/// `org.baton.Agent1`, exported by the agent, and `org.baton.App1`, exported by the app.
/// The D-Bus engine (`DBusConnection`) checks every incoming call's arguments against them.
enum AgentInterface {
    /// The version `Join` returns; a new method or signal raises it (2: pairing windows; 3:
    /// `HoldPayload` and `PayloadChanged`; 4: `GetStatus`; 5: `Inspect`, both ways; 6:
    /// `OpenStreamsPipelined`, `App1.WatchInspection` and `Agent1.InspectionChanged`; 7:
    /// `GetStatusWithoutPings`).
    static let version: UInt32 = 7
    /// The largest `InspectionChanged` summary an app may send, in bytes.
    static let maximumSummary = 4096

    static let agentName = "org.baton.Agent1"
    static let agentPath = "/org/baton/Agent"
    static let appName = "org.baton.App1"
    static let appPath = "/org/baton/App"

    /// The introspection XML of each interface, made from its declaration (`AgentMethod`,
    /// `AgentSignal`, `AppMethod`).
    static let agentXML = DBusInterfaceDeclaration.xml(name: agentName, methods: AgentMethod.Member.self, signals: AgentSignal.Member.self)
    static let appXML = DBusInterfaceDeclaration.xml(name: appName, methods: AppMethod.Member.self, signals: NoSignals.self)

    nonisolated(unsafe) static let agentInfo = DBusInterfaceDeclaration.info(agentXML)
    nonisolated(unsafe) static let appInfo = DBusInterfaceDeclaration.info(appXML)

    /// D-Bus error names on the agent connection (`HandoffFailure.AgentErrorName` and
    /// `AppErrorName` hold them and the Handoff code each stands for). Each Handoff failure
    /// code has its own, so the app gets the code the agent saw (never decided from a message's text).
    enum ErrorName {
        static let connectionUnavailable = HandoffFailure.AgentErrorName.connectionUnavailable.rawValue
        static let handoffFailed = HandoffFailure.AgentErrorName.handoffFailed.rawValue
        static let tooLarge = HandoffFailure.AgentErrorName.tooLarge.rawValue
        static let timedOut = HandoffFailure.AgentErrorName.timedOut.rawValue
        static let unsupported = HandoffFailure.AgentErrorName.unsupported.rawValue
        /// A call other than `Join` before `Join`, or a second `Join`.
        static let notJoined = HandoffFailure.AgentErrorName.notJoined.rawValue
        /// Past a cap (pending calls), or bad arguments.
        static let refused = HandoffFailure.AgentErrorName.refused.rawValue
        /// App1 answers: the activity asked for is no longer the one advertised.
        static let notCurrent = HandoffFailure.AppErrorName.notCurrent.rawValue
        static let appTooLarge = HandoffFailure.AppErrorName.tooLarge.rawValue
        static let appFailed = HandoffFailure.AppErrorName.failed.rawValue
    }

    /// The largest string taken from an app (IDs, types, titles), and the most activity types.
    static let maximumText = 1024
    static let maximumTypes = 64
    /// The longest web page URL taken from an app's advertisement; a longer one is dropped.
    static let maximumWebpageURL = 8 * 1024

    /// A nearby activity as `a{sv}`: `device`, `type`, `app`, `team`, `title`, `webpageURL`
    /// (s) and `sequence` (t).
    static func encode(_ activity: NearbyActivity) -> Variant {
        var entries: [String: Variant] = [
            "device": .string(activity.device), "sequence": .uint64(activity.sequence),
            "type": .string(activity.activityType), "app": .string(activity.appID), "team": .string(activity.teamIdentifier),
        ]
        if let title = activity.title { entries["title"] = .string(title) }
        if let page = activity.webpageURL { entries["webpageURL"] = .string(page.absoluteString) }
        return .dictionary(entries)
    }

    static func encode(_ activities: [NearbyActivity]) -> Variant {
        .array(elementType: "a{sv}", activities.map(encode))
    }

    /// The nearby activity in `value`; nil if a field is missing or mistyped.
    static func nearby(from value: Variant) -> NearbyActivity? {
        guard case .dictionary(let entries) = value,
              case .string(let device)? = entries["device"], case .uint64(let sequence)? = entries["sequence"],
              case .string(let type)? = entries["type"], case .string(let app)? = entries["app"],
              case .string(let team)? = entries["team"] else { return nil }
        let title: String? = if case .string(let t)? = entries["title"] { t } else { nil }
        let page: URL? = if case .string(let s)? = entries["webpageURL"] { URL(string: s) } else { nil }
        return NearbyActivity(device: device, sequence: sequence, activityType: type, title: title, appID: app,
                              teamIdentifier: team, webpageURL: page)
    }

    static func nearbyList(from value: Variant) -> [NearbyActivity] {
        guard case .array(_, let items) = value else { return [] }
        return items.compactMap(nearby(from:))
    }
}

/// What an app advertises to the agent (`SetAdvertisement`): its activity's metadata and `id`,
/// which changes when its activity object changes.
struct AppAdvertisement: Sendable, Equatable {
    var id: UInt64
    var activityType: String
    var title: String?
    var webpageURL: URL?
    var supportsContinuationStreams: Bool

    /// `a{sv}` with `id` (t), `type`, `title`, `webpageURL` (s), `streams` (b); empty for none.
    static func encode(_ advertisement: AppAdvertisement?) -> Variant {
        guard let advertisement else { return .dictionary([:]) }
        var entries: [String: Variant] = [
            "id": .uint64(advertisement.id), "type": .string(advertisement.activityType),
            "streams": .bool(advertisement.supportsContinuationStreams),
        ]
        if let title = advertisement.title { entries["title"] = .string(title) }
        if let page = advertisement.webpageURL { entries["webpageURL"] = .string(page.absoluteString) }
        return .dictionary(entries)
    }

    enum Decoded { case none, some(AppAdvertisement), malformed }

    static func decode(_ value: Variant) -> Decoded {
        guard case .dictionary(let entries) = value else { return .malformed }
        if entries.isEmpty { return .none }
        guard case .uint64(let id)? = entries["id"], case .string(let type)? = entries["type"], !type.isEmpty,
              type.utf8.count <= AgentInterface.maximumText else { return .malformed }
        var title: String?
        if case .string(let t)? = entries["title"] { title = t }
        var page: URL?
        if case .string(let s)? = entries["webpageURL"], s.utf8.count <= AgentInterface.maximumWebpageURL, let url = URL(string: s),
           ["http", "https"].contains(url.scheme ?? "") {
            page = url
        }
        let streams: Bool = if case .bool(let b)? = entries["streams"] { b } else { false }
        return .some(AppAdvertisement(id: id, activityType: type, title: title, webpageURL: page, supportsContinuationStreams: streams))
    }
}
