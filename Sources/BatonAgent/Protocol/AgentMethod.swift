import BatonContinuity
import BatonLoop
import Foundation

/// A call of `org.baton.Agent1`, the agent's interface to the apps (docs/PROTOCOL.md, "The
/// agent"), with its arguments: the one declaration of its methods. The app makes it
/// (`AgentConnection`), the agent reads it from the call it got (`Agent.answer`), and the
/// interface XML the engine checks calls against is made from `Member` (`AgentInterface.agentXML`).
enum AgentMethod: DBusMessageValue, Equatable {
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
    /// The agent's status as JSON (`s`, version 4).
    case getStatus
    /// The payload (`ay`) of `device`'s activity `sequence`.
    case fetchPayload(device: String, sequence: UInt64)
    /// `device`'s activity `sequence` was continued here.
    case continued(device: String, sequence: UInt64)
    /// A relay token (`ay`) for the continuation streams of `device`'s activity `sequence`.
    case openStreams(device: String, sequence: UInt64)
    /// Continues `device`'s activity `sequence` in the app here that declares it; the reply is its ID (`s`).
    case continueNearby(device: String, sequence: UInt64, activationToken: String)
    /// Opens a pairing window for `seconds` on `host:port`; the reply is the port it listens on (`u`).
    case openPairingWindow(seconds: UInt32, host: String, port: UInt32)
    /// Answers pairing request `request`.
    case answerPairing(request: UInt64, confirmed: Bool)
    case closePairingWindow

    enum Member: String, DBusMember {
        case join = "Join"
        case setAdvertisement = "SetAdvertisement"
        case holdPayload = "HoldPayload"
        case payloadChanged = "PayloadChanged"
        case getNearby = "GetNearby"
        case getStatus = "GetStatus"
        case fetchPayload = "FetchPayload"
        case continued = "Continued"
        case openStreams = "OpenStreams"
        case continueNearby = "ContinueNearby"
        case openPairingWindow = "OpenPairingWindow"
        case answerPairing = "AnswerPairing"
        case closePairingWindow = "ClosePairingWindow"

        var inArguments: [DBusArgument] {
            let activity = [DBusArgument("device", "s"), DBusArgument("sequence", "t")]
            return switch self {
            case .join: [DBusArgument("app", "s"), DBusArgument("team", "s"), DBusArgument("types", "as")]
            case .setAdvertisement: [DBusArgument("activity", "a{sv}"), DBusArgument("active", "b")]
            case .holdPayload: [DBusArgument("id", "t"), DBusArgument("payload", "ay")]
            case .payloadChanged: [DBusArgument("id", "t")]
            case .getNearby, .getStatus, .closePairingWindow: []
            case .fetchPayload, .continued, .openStreams: activity
            case .continueNearby: activity + [DBusArgument("activationToken", "s")]
            case .openPairingWindow: [DBusArgument("seconds", "u"), DBusArgument("host", "s"), DBusArgument("port", "u")]
            case .answerPairing: [DBusArgument("request", "t"), DBusArgument("confirmed", "b")]
            }
        }

        var outArguments: [DBusArgument] {
            switch self {
            case .join: [DBusArgument("version", "u")]
            case .getNearby: [DBusArgument("activities", "aa{sv}")]
            case .getStatus: [DBusArgument("status", "s")]
            case .fetchPayload: [DBusArgument("payload", "ay")]
            case .openStreams: [DBusArgument("token", "ay")]
            case .continueNearby: [DBusArgument("app", "s")]
            case .openPairingWindow: [DBusArgument("listening", "u")]
            case .setAdvertisement, .holdPayload, .payloadChanged, .continued, .answerPairing, .closePairingWindow: []
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
        case .fetchPayload: .fetchPayload
        case .continued: .continued
        case .openStreams: .openStreams
        case .continueNearby: .continueNearby
        case .openPairingWindow: .openPairingWindow
        case .answerPairing: .answerPairing
        case .closePairingWindow: .closePairingWindow
        }
    }

    var arguments: [Variant] {
        switch self {
        case .join(let app, let team, let types): [.string(app), .string(team), .array(elementType: "s", types.map(Variant.string))]
        case .setAdvertisement(let activity, let active): [activity, .bool(active)]
        case .holdPayload(let id, let payload): [.uint64(id), .bytes(payload)]
        case .payloadChanged(let id): [.uint64(id)]
        case .getNearby, .getStatus, .closePairingWindow: []
        case .fetchPayload(let device, let sequence), .continued(let device, let sequence), .openStreams(let device, let sequence):
            [.string(device), .uint64(sequence)]
        case .continueNearby(let device, let sequence, let token): [.string(device), .uint64(sequence), .string(token)]
        case .openPairingWindow(let seconds, let host, let port): [.uint32(seconds), .string(host), .uint32(port)]
        case .answerPairing(let request, let confirmed): [.uint64(request), .bool(confirmed)]
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
        case .openPairingWindow:
            guard case .uint32(let seconds) = a[0], case .string(let host) = a[1], case .uint32(let port) = a[2] else { return nil }
            self = .openPairingWindow(seconds: seconds, host: host, port: port)
        case .answerPairing:
            guard case .uint64(let request) = a[0], case .bool(let confirmed) = a[1] else { return nil }
            self = .answerPairing(request: request, confirmed: confirmed)
        }
    }
}

/// A signal of `org.baton.Agent1`, which the agent emits to an app (see `AgentMethod`).
enum AgentSignal: DBusMessageValue, Equatable {
    static let interface = AgentInterface.agentName
    static let path = AgentInterface.agentPath

    /// The nearby activities changed: all of them (`aa{sv}`, `AgentInterface.encode`).
    case nearbyChanged(activities: Variant)
    /// A newcomer asks to pair through the window this app opened.
    case pairingRequest(request: UInt64, code: String, peer: String, newcomerTypes: Bool, group: String)
    case pairingRequestEnded(request: UInt64)
    /// Something happened at the window, in words for its person.
    case pairingEvent(text: String)
    case pairingWindowClosed(paired: Bool, text: String)

    enum Member: String, DBusMember {
        case nearbyChanged = "NearbyChanged"
        case pairingRequest = "PairingRequest"
        case pairingRequestEnded = "PairingRequestEnded"
        case pairingEvent = "PairingEvent"
        case pairingWindowClosed = "PairingWindowClosed"

        var inArguments: [DBusArgument] {
            switch self {
            case .nearbyChanged: [DBusArgument("activities", "aa{sv}")]
            case .pairingRequest:
                [DBusArgument("request", "t"), DBusArgument("code", "s"), DBusArgument("peer", "s"),
                 DBusArgument("newcomerTypes", "b"), DBusArgument("group", "s")]
            case .pairingRequestEnded: [DBusArgument("request", "t")]
            case .pairingEvent: [DBusArgument("text", "s")]
            case .pairingWindowClosed: [DBusArgument("paired", "b"), DBusArgument("text", "s")]
            }
        }
    }

    var member: Member {
        switch self {
        case .nearbyChanged: .nearbyChanged
        case .pairingRequest: .pairingRequest
        case .pairingRequestEnded: .pairingRequestEnded
        case .pairingEvent: .pairingEvent
        case .pairingWindowClosed: .pairingWindowClosed
        }
    }

    var arguments: [Variant] {
        switch self {
        case .nearbyChanged(let activities): [activities]
        case .pairingRequest(let request, let code, let peer, let types, let group):
            [.uint64(request), .string(code), .string(peer), .bool(types), .string(group)]
        case .pairingRequestEnded(let request): [.uint64(request)]
        case .pairingEvent(let text): [.string(text)]
        case .pairingWindowClosed(let paired, let text): [.bool(paired), .string(text)]
        }
    }

    init?(checked member: Member, arguments a: [Variant]) {
        switch member {
        case .nearbyChanged:
            self = .nearbyChanged(activities: a[0])
        case .pairingRequest:
            guard case .uint64(let request) = a[0], case .string(let code) = a[1], case .string(let peer) = a[2],
                  case .bool(let types) = a[3], case .string(let group) = a[4] else { return nil }
            self = .pairingRequest(request: request, code: code, peer: peer, newcomerTypes: types, group: group)
        case .pairingRequestEnded:
            guard case .uint64(let request) = a[0] else { return nil }
            self = .pairingRequestEnded(request: request)
        case .pairingEvent:
            guard case .string(let text) = a[0] else { return nil }
            self = .pairingEvent(text: text)
        case .pairingWindowClosed:
            guard case .bool(let paired) = a[0], case .string(let text) = a[1] else { return nil }
            self = .pairingWindowClosed(paired: paired, text: text)
        }
    }
}

/// A call of `org.baton.App1`, which each app serves to its agent, with its arguments (see
/// `AgentMethod`): the agent makes it (`JoinedApps`, `Agent`), the app reads it
/// (`AgentConnection`).
enum AppMethod: DBusMessageValue, Equatable {
    static let interface = AgentInterface.appName
    static let path = AgentInterface.appPath

    /// The payload (`ay`) of advertisement `id`, saved first.
    case fetchPayload(id: UInt64)
    /// Advertisement `id` was continued on another device.
    case continued(id: UInt64)
    /// A continuing device opened streams to advertisement `id`: the relay `token` takes them.
    case streamsArrived(id: UInt64, token: Data)
    /// Continue this nearby activity (`AgentInterface.encode`) in this app.
    case continueNearby(activity: Variant)

    enum Member: String, DBusMember {
        case fetchPayload = "FetchPayload"
        case continued = "Continued"
        case streamsArrived = "StreamsArrived"
        case continueNearby = "ContinueNearby"

        var inArguments: [DBusArgument] {
            switch self {
            case .fetchPayload, .continued: [DBusArgument("id", "t")]
            case .streamsArrived: [DBusArgument("id", "t"), DBusArgument("token", "ay")]
            case .continueNearby: [DBusArgument("activity", "a{sv}")]
            }
        }

        var outArguments: [DBusArgument] {
            self == .fetchPayload ? [DBusArgument("payload", "ay")] : []
        }
    }

    var member: Member {
        switch self {
        case .fetchPayload: .fetchPayload
        case .continued: .continued
        case .streamsArrived: .streamsArrived
        case .continueNearby: .continueNearby
        }
    }

    var arguments: [Variant] {
        switch self {
        case .fetchPayload(let id), .continued(let id): [.uint64(id)]
        case .streamsArrived(let id, let token): [.uint64(id), .bytes(token)]
        case .continueNearby(let activity): [activity]
        }
    }

    init?(checked member: Member, arguments a: [Variant]) {
        switch member {
        case .fetchPayload, .continued, .streamsArrived:
            guard case .uint64(let id) = a[0] else { return nil }
            switch member {
            case .fetchPayload: self = .fetchPayload(id: id)
            case .continued: self = .continued(id: id)
            default:
                guard case .bytes(let token) = a[1] else { return nil }
                self = .streamsArrived(id: id, token: token)
            }
        case .continueNearby:
            self = .continueNearby(activity: a[0])
        }
    }
}

/// `org.baton.Agent1`'s calls with their replies' types (`DBusConnection.call(_:timeout:)`).
extension DBusCall where Method == AgentMethod, Reply == UInt32 {
    /// Joins; the reply is the agent's interface version.
    static func join(app: String, team: String, types: [String]) -> Self {
        Self(.join(app: app, team: team, types: types), one: \.uint32Value)
    }
    /// Opens a pairing window; the reply is the port it listens on.
    static func openPairingWindow(seconds: UInt32, host: String, port: UInt32) -> Self {
        Self(.openPairingWindow(seconds: seconds, host: host, port: port), one: \.uint32Value)
    }
}

extension DBusCall where Method == AgentMethod, Reply == String {
    /// The agent's status as JSON.
    static var getStatus: Self { Self(.getStatus, one: \.stringValue) }
    /// Continues `device`'s activity `sequence` here; the reply is the ID of the app that took it.
    static func continueNearby(device: String, sequence: UInt64, activationToken: String) -> Self {
        Self(.continueNearby(device: device, sequence: sequence, activationToken: activationToken), one: \.stringValue)
    }
}

extension DBusCall where Method == AgentMethod, Reply == Variant {
    /// The nearby activities (`aa{sv}`; `AgentInterface.nearbyList(from:)` reads them).
    static var getNearby: Self { Self(.getNearby, one: { if case .array = $0 { $0 } else { nil } }) }
}

extension DBusCall where Method == AgentMethod, Reply == Data {
    /// The payload of `device`'s activity `sequence`.
    static func fetchPayload(device: String, sequence: UInt64) -> Self { Self(.fetchPayload(device: device, sequence: sequence), one: \.bytesValue) }
    /// A relay token for the continuation streams of `device`'s activity `sequence`.
    static func openStreams(device: String, sequence: UInt64) -> Self { Self(.openStreams(device: device, sequence: sequence), one: \.bytesValue) }
}

extension DBusCall where Method == AgentMethod, Reply == Void {
    /// `device`'s activity `sequence` was continued here.
    static func continued(device: String, sequence: UInt64) -> Self { Self(.continued(device: device, sequence: sequence)) }
}

/// `org.baton.App1`'s calls with their replies' types.
extension DBusCall where Method == AppMethod, Reply == Data {
    /// The payload of advertisement `id`, saved first.
    static func fetchPayload(id: UInt64) -> Self { Self(.fetchPayload(id: id), one: \.bytesValue) }
}

extension DBusCall where Method == AppMethod, Reply == Void {
    /// Continuation streams arrived for advertisement `id`: the relay `token` takes them.
    static func streamsArrived(id: UInt64, token: Data) -> Self { Self(.streamsArrived(id: id, token: token)) }
    /// Continue this nearby activity (`AgentInterface.encode`) in the app.
    static func continueNearby(activity: Variant) -> Self { Self(.continueNearby(activity: activity)) }
}
