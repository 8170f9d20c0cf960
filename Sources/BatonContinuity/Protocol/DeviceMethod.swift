import BatonLoop
import Foundation

/// A call of `org.baton.Device1` (docs/PROTOCOL.md section 4), with its arguments: the one
/// declaration of the interface's methods. The caller makes it (`PeerBus.call`), the callee
/// reads it from the call it got (`init(_:)`, in `DeviceService`), and the interface XML the
/// engine checks calls against is made from `Member` (`DeviceInterface.xml`).
enum DeviceMethod: Equatable, Sendable {
    /// The activity advertised now: its metadata `a{sv}` (`DeviceInterface.metadata`), empty for none.
    case getCurrent
    /// The payload (`ay`) of the activity advertised with `sequence`.
    case fetchPayload(sequence: UInt64)
    /// The caller continued the activity advertised with `sequence`; no reply values.
    case continued(sequence: UInt64)
    /// The signed revocation list (`ay`) the device holds.
    case getRevocations
    /// A one-time token (`ay`) and port (`u`) for a stream connection to the activity advertised with `sequence`.
    case openStreams(sequence: UInt64)
    /// The group's discovery key (`ay`) for the revocation list the device holds.
    case getDiscoveryKey

    /// The interface's methods, by their D-Bus names, with their arguments.
    enum Member: String, DBusMember {
        case getCurrent = "GetCurrent"
        case fetchPayload = "FetchPayload"
        case continued = "Continued"
        case getRevocations = "GetRevocations"
        case openStreams = "OpenStreams"
        case getDiscoveryKey = "GetDiscoveryKey"

        var inArguments: [DBusArgument] {
            switch self {
            case .getCurrent, .getRevocations, .getDiscoveryKey: []
            case .fetchPayload, .continued, .openStreams: [DBusArgument("sequence", "t")]
            }
        }

        var outArguments: [DBusArgument] {
            switch self {
            case .getCurrent: [DBusArgument("activity", "a{sv}")]
            case .fetchPayload: [DBusArgument("payload", "ay")]
            case .continued: []
            case .getRevocations: [DBusArgument("list", "ay")]
            case .openStreams: [DBusArgument("token", "ay"), DBusArgument("port", "u")]
            case .getDiscoveryKey: [DBusArgument("key", "ay")]
            }
        }
    }

    var member: Member {
        switch self {
        case .getCurrent: .getCurrent
        case .fetchPayload: .fetchPayload
        case .continued: .continued
        case .getRevocations: .getRevocations
        case .openStreams: .openStreams
        case .getDiscoveryKey: .getDiscoveryKey
        }
    }

    /// The call's arguments, in the order and types `member` declares.
    var arguments: [Variant] {
        switch self {
        case .getCurrent, .getRevocations, .getDiscoveryKey: []
        case .fetchPayload(let sequence), .continued(let sequence), .openStreams(let sequence): [.uint64(sequence)]
        }
    }

    /// The method `name` called with `arguments`; a name the interface does not have, or
    /// arguments not of its declared types, are refused, naming what was wrong.
    init(name: String, arguments: [Variant]) throws(PeerProtocolError) {
        guard let member = Member(rawValue: name) else { throw .malformed("org.baton.Device1 has no method \(name)") }
        let given = "(" + arguments.map(\.typeString).joined() + ")"
        guard given == member.argumentType else {
            throw .malformed("\(name) takes \(member.argumentType), not \(given)")
        }
        func sequence() -> UInt64 {
            guard case .uint64(let value) = arguments[0] else { preconditionFailure("checked against the declaration") }
            return value
        }
        self = switch member {
        case .getCurrent: .getCurrent
        case .fetchPayload: .fetchPayload(sequence: sequence())
        case .continued: .continued(sequence: sequence())
        case .getRevocations: .getRevocations
        case .openStreams: .openStreams(sequence: sequence())
        case .getDiscoveryKey: .getDiscoveryKey
        }
    }

    /// The method of an incoming call (see `init(name:arguments:)`).
    init(_ call: MethodCall) throws(PeerProtocolError) {
        try self.init(name: call.method, arguments: call.arguments)
    }
}

/// A signal of `org.baton.Device1`, with its arguments: the one declaration of the
/// interface's signals (see `DeviceMethod`).
enum DeviceSignal: Equatable, Sendable {
    /// The activity advertised now changed: its metadata `a{sv}` (`DeviceInterface.metadata`).
    case currentChanged(Variant)
    /// A newer signed revocation list, passed on.
    case revocationsChanged(Data)

    enum Member: String, DBusMember {
        case currentChanged = "CurrentChanged"
        case revocationsChanged = "RevocationsChanged"

        var inArguments: [DBusArgument] {
            switch self {
            case .currentChanged: [DBusArgument("activity", "a{sv}")]
            case .revocationsChanged: [DBusArgument("list", "ay")]
            }
        }
    }

    var member: Member {
        switch self {
        case .currentChanged: .currentChanged
        case .revocationsChanged: .revocationsChanged
        }
    }

    var arguments: [Variant] {
        switch self {
        case .currentChanged(let metadata): [metadata]
        case .revocationsChanged(let list): [.bytes(list)]
        }
    }

    /// The signal `member` with `arguments`; arguments not of its declared types are refused.
    init(_ member: Member, arguments: [Variant]) throws(PeerProtocolError) {
        let given = "(" + arguments.map(\.typeString).joined() + ")"
        guard given == member.argumentType else { throw .malformed("\(member.rawValue) carries \(member.argumentType), not \(given)") }
        switch (member, arguments[0]) {
        case (.currentChanged, let metadata): self = .currentChanged(metadata)
        case (.revocationsChanged, .bytes(let list)): self = .revocationsChanged(list)
        default: throw .malformed("\(member.rawValue) carries \(member.argumentType), not \(given)")
        }
    }
}
