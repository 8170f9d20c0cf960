import BatonContinuity
import BatonLoop
import Foundation

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
    /// Something happened on the device, for an app watching it (`WatchInspection`): one
    /// `InspectionEvent` as JSON (version 5).
    case inspectionEvent(event: String)

    enum Member: String, DBusMember {
        case nearbyChanged = "NearbyChanged"
        case pairingRequest = "PairingRequest"
        case pairingRequestEnded = "PairingRequestEnded"
        case pairingEvent = "PairingEvent"
        case pairingWindowClosed = "PairingWindowClosed"
        case inspectionEvent = "InspectionEvent"

        var inArguments: [DBusArgument] {
            switch self {
            case .nearbyChanged: [DBusArgument("activities", "aa{sv}")]
            case .pairingRequest:
                [DBusArgument("request", "t"), DBusArgument("code", "s"), DBusArgument("peer", "s"),
                 DBusArgument("newcomerTypes", "b"), DBusArgument("group", "s")]
            case .pairingRequestEnded: [DBusArgument("request", "t")]
            case .pairingEvent: [DBusArgument("text", "s")]
            case .pairingWindowClosed: [DBusArgument("paired", "b"), DBusArgument("text", "s")]
            case .inspectionEvent: [DBusArgument("event", "s")]
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
        case .inspectionEvent: .inspectionEvent
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
        case .inspectionEvent(let event): [.string(event)]
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
        case .inspectionEvent:
            guard case .string(let event) = a[0] else { return nil }
            self = .inspectionEvent(event: event)
        }
    }
}
