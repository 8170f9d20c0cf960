import Baton
import BatonContinuity
import BatonLoop
import Foundation

/// A call of `org.baton.App1`, which each app serves to its agent, with its arguments (see
/// `AgentMethod`): the agent makes it (`JoinedApps`, `Agent`), the app reads it
/// (`AgentConnection`).
enum AppMethod: DBusMethodValue, Equatable {
    typealias ErrorName = HandoffFailure.AppErrorName
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
    /// The app as it is now (`Application.inspection(actions:)`) as JSON (`s`,
    /// `InspectionJSON`), with where each named action would go (version 5).
    case inspect(actions: [String])
    /// Start (`on`) or stop sending `Agent1.InspectionChanged` when the app's
    /// `InspectionSummary` changes: someone watches the device (version 6).
    case watchInspection(on: Bool)

    enum Member: String, DBusMember {
        case fetchPayload = "FetchPayload"
        case continued = "Continued"
        case streamsArrived = "StreamsArrived"
        case continueNearby = "ContinueNearby"
        case inspect = "Inspect"
        case watchInspection = "WatchInspection"

        var inArguments: [DBusArgument] {
            switch self {
            case .fetchPayload, .continued: [DBusArgument("id", "t")]
            case .streamsArrived: [DBusArgument("id", "t"), DBusArgument("token", "ay")]
            case .continueNearby: [DBusArgument("activity", "a{sv}")]
            case .inspect: [DBusArgument("actions", "as")]
            case .watchInspection: [DBusArgument("on", "b")]
            }
        }

        var outArguments: [DBusArgument] {
            switch self {
            case .fetchPayload: [DBusArgument("payload", "ay")]
            case .inspect: [DBusArgument("inspection", "s")]
            case .continued, .streamsArrived, .continueNearby, .watchInspection: []
            }
        }
    }

    var member: Member {
        switch self {
        case .fetchPayload: .fetchPayload
        case .continued: .continued
        case .streamsArrived: .streamsArrived
        case .continueNearby: .continueNearby
        case .inspect: .inspect
        case .watchInspection: .watchInspection
        }
    }

    var arguments: [Variant] {
        switch self {
        case .fetchPayload(let id), .continued(let id): [.uint64(id)]
        case .streamsArrived(let id, let token): [.uint64(id), .bytes(token)]
        case .continueNearby(let activity): [activity]
        case .inspect(let actions): [.array(elementType: "s", actions.map(Variant.string))]
        case .watchInspection(let on): [.bool(on)]
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
        case .inspect:
            guard case .array(_, let items) = a[0] else { return nil }
            let actions = items.compactMap { if case .string(let name) = $0 { name } else { nil } }
            guard actions.count == items.count else { return nil }
            self = .inspect(actions: actions)
        case .watchInspection:
            guard case .bool(let on) = a[0] else { return nil }
            self = .watchInspection(on: on)
        }
    }
}

/// `org.baton.App1`'s calls with their replies' types.
extension DBusCall where Method == AppMethod, Reply == Data {
    /// The payload of advertisement `id`, saved first.
    static func fetchPayload(id: UInt64) -> Self { Self(.fetchPayload(id: id), one: \.bytesValue, as: Variant.bytes) }
}

extension DBusCall where Method == AppMethod, Reply == String {
    /// The app as it is now, as JSON, with where each of `actions` would go.
    static func inspect(actions: [String]) -> Self { Self(.inspect(actions: actions), one: \.stringValue, as: Variant.string) }
}

extension DBusCall where Method == AppMethod, Reply == Void {
    /// Continuation streams arrived for advertisement `id`: the relay `token` takes them.
    static func streamsArrived(id: UInt64, token: Data) -> Self { Self(.streamsArrived(id: id, token: token)) }
    /// Continue this nearby activity (`AgentInterface.encode`) in the app.
    static func continueNearby(activity: Variant) -> Self { Self(.continueNearby(activity: activity)) }
    /// Advertisement `id` was continued on another device.
    static func continued(id: UInt64) -> Self { Self(.continued(id: id)) }
    /// Start or stop sending the app's summary when it changes.
    static func sendSummaries(on: Bool) -> Self { Self(.watchInspection(on: on)) }
}
