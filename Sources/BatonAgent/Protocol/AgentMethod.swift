import Baton
import BatonContinuity
import BatonLoop
import Foundation

/// A call of `org.baton.Agent1`, the agent's interface to the apps (docs/PROTOCOL.md, "The
/// agent"), with its arguments: the one declaration of its methods. The app makes it
/// (`AgentConnection`), the agent reads it from the call it got (`Agent.answer`), and the
/// interface XML the engine checks calls against is made from `Member` (`AgentInterface.agentXML`).
enum AgentMethod: DBusMethodValue, Equatable {
    typealias ErrorName = HandoffFailure.AgentErrorName
    static let interface = AgentInterface.agentName
    static let path = AgentInterface.agentPath

    /// Joins with the app's ID, team and activity types; the reply is the interface version (`u`).
    case join(app: String, team: String, types: [String])
    /// The app's advertisement (`AppAdvertisement.encode`) and whether the app is active.
    case setAdvertisement(activity: Variant, active: Bool)
    /// The payload of advertisement `id`, for the agent to hold (version 3).
    case holdPayload(id: UInt64, payload: Data)
    /// The payload of advertisement `id` changed: the agent stops answering from the one it holds.
    case payloadChanged(id: UInt64)
    /// The nearby activities (`aa{sv}`, `AgentInterface.encode`).
    case getNearby
    /// The agent's status as JSON (`s`, version 4), each link's round trip measured first (one
    /// ping over each, bounded by `ContinuityNode.roundTripDeadline`).
    case getStatus
    /// The agent's status as JSON (`s`, version 7) at once, without pinging the links: no
    /// round trips (for callers that do not show them: `baton nearby`, `baton agent stop`).
    case getStatusWithoutPings
    /// The payload (`ay`) of `device`'s activity `sequence`.
    case fetchPayload(device: String, sequence: UInt64)
    /// `device`'s activity `sequence` was continued here.
    case continued(device: String, sequence: UInt64)
    /// A relay token (`ay`) for the continuation streams of `device`'s activity `sequence`.
    case openStreams(device: String, sequence: UInt64)
    /// Opens the continuation streams of `device`'s activity `sequence` for the app's stream
    /// connection that sends `token` (`StreamRelay.tokenSize` bytes the app picked), which the
    /// app makes at once, without waiting for this reply (version 6).
    case openStreamsPipelined(device: String, sequence: UInt64, token: Data)
    /// Continues `device`'s activity `sequence` in the app here that declares it; the reply is its ID (`s`).
    case continueNearby(device: String, sequence: UInt64, activationToken: String)
    /// Opens a pairing window for `seconds` on `host:port`; the reply is the port it listens on (`u`).
    case openPairingWindow(seconds: UInt32, host: String, port: UInt32)
    /// Answers pairing request `request`.
    case answerPairing(request: UInt64, confirmed: Bool)
    /// Closes the pairing window.
    case closePairingWindow
    /// What this device and its apps look like inside (`AgentInspection` as JSON, `s`,
    /// version 5): every joined app, or only `app` when it is not empty, each asked for where
    /// each of `actions` would go.
    case inspect(app: String, actions: [String])
    /// Starts (`on`) or stops sending this app `InspectionEvent` signals (version 5).
    case watchInspection(on: Bool)
    /// The calling app's `InspectionSummary` changed (JSON, `s`, at most
    /// `AgentInterface.maximumSummary` bytes): sent only while the agent asked it to
    /// (`App1.WatchInspection`), at most once per turn of the app's loop (version 6).
    case inspectionChanged(summary: String)

    enum Member: String, DBusMember {
        case join = "Join"
        case setAdvertisement = "SetAdvertisement"
        case holdPayload = "HoldPayload"
        case payloadChanged = "PayloadChanged"
        case getNearby = "GetNearby"
        case getStatus = "GetStatus"
        case getStatusWithoutPings = "GetStatusWithoutPings"
        case fetchPayload = "FetchPayload"
        case continued = "Continued"
        case openStreams = "OpenStreams"
        case openStreamsPipelined = "OpenStreamsPipelined"
        case continueNearby = "ContinueNearby"
        case openPairingWindow = "OpenPairingWindow"
        case answerPairing = "AnswerPairing"
        case closePairingWindow = "ClosePairingWindow"
        case inspect = "Inspect"
        case watchInspection = "WatchInspection"
        case inspectionChanged = "InspectionChanged"

        var inArguments: [DBusArgument] {
            let activity = [DBusArgument("device", "s"), DBusArgument("sequence", "t")]
            return switch self {
            case .join: [DBusArgument("app", "s"), DBusArgument("team", "s"), DBusArgument("types", "as")]
            case .setAdvertisement: [DBusArgument("activity", "a{sv}"), DBusArgument("active", "b")]
            case .holdPayload: [DBusArgument("id", "t"), DBusArgument("payload", "ay")]
            case .payloadChanged: [DBusArgument("id", "t")]
            case .getNearby, .getStatus, .getStatusWithoutPings, .closePairingWindow: []
            case .fetchPayload, .continued, .openStreams: activity
            case .continueNearby: activity + [DBusArgument("activationToken", "s")]
            case .openStreamsPipelined: activity + [DBusArgument("token", "ay")]
            case .openPairingWindow: [DBusArgument("seconds", "u"), DBusArgument("host", "s"), DBusArgument("port", "u")]
            case .answerPairing: [DBusArgument("request", "t"), DBusArgument("confirmed", "b")]
            case .inspect: [DBusArgument("app", "s"), DBusArgument("actions", "as")]
            case .watchInspection: [DBusArgument("on", "b")]
            case .inspectionChanged: [DBusArgument("summary", "s")]
            }
        }

        var outArguments: [DBusArgument] {
            switch self {
            case .join: [DBusArgument("version", "u")]
            case .getNearby: [DBusArgument("activities", "aa{sv}")]
            case .getStatus, .getStatusWithoutPings: [DBusArgument("status", "s")]
            case .inspect: [DBusArgument("inspection", "s")]
            case .fetchPayload: [DBusArgument("payload", "ay")]
            case .openStreams: [DBusArgument("token", "ay")]
            case .continueNearby: [DBusArgument("app", "s")]
            case .openPairingWindow: [DBusArgument("listening", "u")]
            case .setAdvertisement, .holdPayload, .payloadChanged, .continued, .openStreamsPipelined, .answerPairing, .closePairingWindow,
                 .watchInspection, .inspectionChanged: []
            }
        }
    }

    var member: Member {
        switch self {
        case .join: .join
        case .setAdvertisement: .setAdvertisement
        case .holdPayload: .holdPayload
        case .payloadChanged: .payloadChanged
        case .getNearby: .getNearby
        case .getStatus: .getStatus
        case .getStatusWithoutPings: .getStatusWithoutPings
        case .fetchPayload: .fetchPayload
        case .continued: .continued
        case .openStreams: .openStreams
        case .openStreamsPipelined: .openStreamsPipelined
        case .continueNearby: .continueNearby
        case .openPairingWindow: .openPairingWindow
        case .answerPairing: .answerPairing
        case .closePairingWindow: .closePairingWindow
        case .inspect: .inspect
        case .watchInspection: .watchInspection
        case .inspectionChanged: .inspectionChanged
        }
    }

    var arguments: [Variant] {
        switch self {
        case .join(let app, let team, let types): [.string(app), .string(team), .array(elementType: "s", types.map(Variant.string))]
        case .setAdvertisement(let activity, let active): [activity, .bool(active)]
        case .holdPayload(let id, let payload): [.uint64(id), .bytes(payload)]
        case .payloadChanged(let id): [.uint64(id)]
        case .getNearby, .getStatus, .getStatusWithoutPings, .closePairingWindow: []
        case .fetchPayload(let device, let sequence), .continued(let device, let sequence), .openStreams(let device, let sequence):
            [.string(device), .uint64(sequence)]
        case .continueNearby(let device, let sequence, let token): [.string(device), .uint64(sequence), .string(token)]
        case .openStreamsPipelined(let device, let sequence, let token): [.string(device), .uint64(sequence), .bytes(token)]
        case .openPairingWindow(let seconds, let host, let port): [.uint32(seconds), .string(host), .uint32(port)]
        case .answerPairing(let request, let confirmed): [.uint64(request), .bool(confirmed)]
        case .inspect(let app, let actions): [.string(app), .array(elementType: "s", actions.map(Variant.string))]
        case .watchInspection(let on): [.bool(on)]
        case .inspectionChanged(let summary): [.string(summary)]
        }
    }

    init?(checked member: Member, arguments a: [Variant]) {
        switch member {
        case .join:
            guard case .string(let app) = a[0], case .string(let team) = a[1], case .array(_, let items) = a[2] else { return nil }
            let types = items.compactMap { if case .string(let type) = $0 { type } else { nil } }
            guard types.count == items.count else { return nil }
            self = .join(app: app, team: team, types: types)
        case .setAdvertisement:
            guard case .bool(let active) = a[1] else { return nil }
            self = .setAdvertisement(activity: a[0], active: active)
        case .holdPayload:
            guard case .uint64(let id) = a[0], case .bytes(let payload) = a[1] else { return nil }
            self = .holdPayload(id: id, payload: payload)
        case .payloadChanged:
            guard case .uint64(let id) = a[0] else { return nil }
            self = .payloadChanged(id: id)
        case .getNearby: self = .getNearby
        case .getStatus: self = .getStatus
        case .getStatusWithoutPings: self = .getStatusWithoutPings
        case .closePairingWindow: self = .closePairingWindow
        case .fetchPayload, .continued, .openStreams:
            guard case .string(let device) = a[0], case .uint64(let sequence) = a[1] else { return nil }
            self = switch member {
            case .fetchPayload: .fetchPayload(device: device, sequence: sequence)
            case .continued: .continued(device: device, sequence: sequence)
            default: .openStreams(device: device, sequence: sequence)
            }
        case .continueNearby:
            guard case .string(let device) = a[0], case .uint64(let sequence) = a[1], case .string(let token) = a[2] else { return nil }
            self = .continueNearby(device: device, sequence: sequence, activationToken: token)
        case .openStreamsPipelined:
            guard case .string(let device) = a[0], case .uint64(let sequence) = a[1], case .bytes(let token) = a[2] else { return nil }
            self = .openStreamsPipelined(device: device, sequence: sequence, token: token)
        case .openPairingWindow:
            guard case .uint32(let seconds) = a[0], case .string(let host) = a[1], case .uint32(let port) = a[2] else { return nil }
            self = .openPairingWindow(seconds: seconds, host: host, port: port)
        case .answerPairing:
            guard case .uint64(let request) = a[0], case .bool(let confirmed) = a[1] else { return nil }
            self = .answerPairing(request: request, confirmed: confirmed)
        case .inspect:
            guard case .string(let app) = a[0], case .array(_, let items) = a[1] else { return nil }
            let actions = items.compactMap { if case .string(let name) = $0 { name } else { nil } }
            guard actions.count == items.count else { return nil }
            self = .inspect(app: app, actions: actions)
        case .watchInspection:
            guard case .bool(let on) = a[0] else { return nil }
            self = .watchInspection(on: on)
        case .inspectionChanged:
            guard case .string(let summary) = a[0] else { return nil }
            self = .inspectionChanged(summary: summary)
        }
    }
}

/// `org.baton.Agent1`'s calls with their replies' types (`DBusConnection.call(_:timeout:)`).
extension DBusCall where Method == AgentMethod, Reply == UInt32 {
    /// Joins; the reply is the agent's interface version.
    static func join(app: String, team: String, types: [String]) -> Self {
        Self(.join(app: app, team: team, types: types), one: \.uint32Value, as: Variant.uint32)
    }
    /// Opens a pairing window; the reply is the port it listens on.
    static func openPairingWindow(seconds: UInt32, host: String, port: UInt32) -> Self {
        Self(.openPairingWindow(seconds: seconds, host: host, port: port), one: \.uint32Value, as: Variant.uint32)
    }
}

extension DBusCall where Method == AgentMethod, Reply == String {
    /// The agent's status as JSON.
    static var getStatus: Self { Self(.getStatus, one: \.stringValue, as: Variant.string) }
    /// The agent's status as JSON, without its links' round trips (no ping).
    static var getStatusWithoutPings: Self { Self(.getStatusWithoutPings, one: \.stringValue, as: Variant.string) }
    /// What the device and its apps (all, or only `app`) look like inside, as JSON.
    static func inspect(app: String, actions: [String]) -> Self {
        Self(.inspect(app: app, actions: actions), one: \.stringValue, as: Variant.string)
    }
    /// Continues `device`'s activity `sequence` here; the reply is the ID of the app that took it.
    static func continueNearby(device: String, sequence: UInt64, activationToken: String) -> Self {
        Self(.continueNearby(device: device, sequence: sequence, activationToken: activationToken), one: \.stringValue, as: Variant.string)
    }
}

extension DBusCall where Method == AgentMethod, Reply == Variant {
    /// The nearby activities (`aa{sv}`; `AgentInterface.nearbyList(from:)` reads them).
    static var getNearby: Self { Self(.getNearby, one: { if case .array = $0 { $0 } else { nil } }, as: { $0 }) }
}

extension DBusCall where Method == AgentMethod, Reply == Data {
    /// The payload of `device`'s activity `sequence`.
    static func fetchPayload(device: String, sequence: UInt64) -> Self { Self(.fetchPayload(device: device, sequence: sequence), one: \.bytesValue, as: Variant.bytes) }
    /// A relay token for the continuation streams of `device`'s activity `sequence`.
    static func openStreams(device: String, sequence: UInt64) -> Self { Self(.openStreams(device: device, sequence: sequence), one: \.bytesValue, as: Variant.bytes) }
}

extension DBusCall where Method == AgentMethod, Reply == Void {
    /// `device`'s activity `sequence` was continued here.
    static func continued(device: String, sequence: UInt64) -> Self { Self(.continued(device: device, sequence: sequence)) }
    /// Opens the continuation streams of `device`'s activity `sequence` for the stream
    /// connection that sends `token`.
    static func openStreamsPipelined(device: String, sequence: UInt64, token: Data) -> Self {
        Self(.openStreamsPipelined(device: device, sequence: sequence, token: token))
    }
    /// The app's advertisement, and whether it is active.
    static func setAdvertisement(activity: Variant, active: Bool) -> Self { Self(.setAdvertisement(activity: activity, active: active)) }
    /// The payload of advertisement `id`, for the agent to hold.
    static func holdPayload(id: UInt64, payload: Data) -> Self { Self(.holdPayload(id: id, payload: payload)) }
    /// The payload of advertisement `id` changed.
    static func payloadChanged(id: UInt64) -> Self { Self(.payloadChanged(id: id)) }
    /// Starts or stops `InspectionEvent` signals to this app.
    static func watchInspection(on: Bool) -> Self { Self(.watchInspection(on: on)) }
    /// The app's `InspectionSummary` changed (JSON).
    static func inspectionChanged(summary: String) -> Self { Self(.inspectionChanged(summary: summary)) }
    /// Answers pairing request `request`.
    static func answerPairing(request: UInt64, confirmed: Bool) -> Self { Self(.answerPairing(request: request, confirmed: confirmed)) }
    /// Closes the pairing window the caller opened.
    static var closePairingWindow: Self { Self(.closePairingWindow) }
}
