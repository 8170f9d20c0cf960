import Baton
import BatonLoop
import CGLib
import Foundation

/// The two interfaces on one app's connection to the agent (docs/PROTOCOL.md, "The agent"):
/// `org.baton.Agent1`, exported by the agent, and `org.baton.App1`, exported by the app.
/// The D-Bus engine (`DBusConnection`) checks every incoming call's arguments against them.
enum AgentInterface {
    /// The version `Join` returns; a new method or signal raises it (2: pairing windows; 3:
    /// `HoldPayload` and `PayloadChanged`; 4: `GetStatus`).
    static let version: UInt32 = 4

    static let agentName = "org.baton.Agent1"
    static let agentPath = "/org/baton/Agent"
    static let appName = "org.baton.App1"
    static let appPath = "/org/baton/App"

    static let agentXML = """
        <node>
          <interface name="org.baton.Agent1">
            <method name="Join">
              <arg name="app" type="s" direction="in"/><arg name="team" type="s" direction="in"/>
              <arg name="types" type="as" direction="in"/><arg name="version" type="u" direction="out"/>
            </method>
            <method name="SetAdvertisement">
              <arg name="activity" type="a{sv}" direction="in"/><arg name="active" type="b" direction="in"/>
            </method>
            <method name="HoldPayload">
              <arg name="id" type="t" direction="in"/><arg name="payload" type="ay" direction="in"/>
            </method>
            <method name="PayloadChanged"><arg name="id" type="t" direction="in"/></method>
            <method name="GetNearby"><arg name="activities" type="aa{sv}" direction="out"/></method>
            <method name="GetStatus"><arg name="status" type="s" direction="out"/></method>
            <method name="FetchPayload">
              <arg name="device" type="s" direction="in"/><arg name="sequence" type="t" direction="in"/>
              <arg name="payload" type="ay" direction="out"/>
            </method>
            <method name="Continued">
              <arg name="device" type="s" direction="in"/><arg name="sequence" type="t" direction="in"/>
            </method>
            <method name="OpenStreams">
              <arg name="device" type="s" direction="in"/><arg name="sequence" type="t" direction="in"/>
              <arg name="token" type="ay" direction="out"/>
            </method>
            <method name="ContinueNearby">
              <arg name="device" type="s" direction="in"/><arg name="sequence" type="t" direction="in"/>
              <arg name="activationToken" type="s" direction="in"/><arg name="app" type="s" direction="out"/>
            </method>
            <signal name="NearbyChanged"><arg name="activities" type="aa{sv}"/></signal>
            <method name="OpenPairingWindow">
              <arg name="seconds" type="u" direction="in"/><arg name="host" type="s" direction="in"/>
              <arg name="port" type="u" direction="in"/><arg name="listening" type="u" direction="out"/>
            </method>
            <method name="AnswerPairing">
              <arg name="request" type="t" direction="in"/><arg name="confirmed" type="b" direction="in"/>
            </method>
            <method name="ClosePairingWindow"/>
            <signal name="PairingRequest">
              <arg name="request" type="t"/><arg name="code" type="s"/><arg name="peer" type="s"/>
              <arg name="newcomerTypes" type="b"/><arg name="group" type="s"/>
            </signal>
            <signal name="PairingRequestEnded"><arg name="request" type="t"/></signal>
            <signal name="PairingEvent"><arg name="text" type="s"/></signal>
            <signal name="PairingWindowClosed"><arg name="paired" type="b"/><arg name="text" type="s"/></signal>
          </interface>
        </node>
        """

    static let appXML = """
        <node>
          <interface name="org.baton.App1">
            <method name="FetchPayload">
              <arg name="id" type="t" direction="in"/><arg name="payload" type="ay" direction="out"/>
            </method>
            <method name="Continued"><arg name="id" type="t" direction="in"/></method>
            <method name="StreamsArrived">
              <arg name="id" type="t" direction="in"/><arg name="token" type="ay" direction="in"/>
            </method>
            <method name="ContinueNearby"><arg name="activity" type="a{sv}" direction="in"/></method>
          </interface>
        </node>
        """

    nonisolated(unsafe) static let agentInfo = parse(agentXML)
    nonisolated(unsafe) static let appInfo = parse(appXML)

    private static func parse(_ xml: String) -> UnsafeMutablePointer<GDBusInterfaceInfo> {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(xml, &error), let interface = node.pointee.interfaces[0] else {
            fatalError("Baton: an agent introspection XML does not parse: \(String(cString: error!.pointee.message))")
        }
        return g_dbus_interface_info_ref(interface)
    }

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
