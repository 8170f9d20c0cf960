import Baton
import BatonLoop
import Foundation

/// A call of `org.baton.Device1` (docs/PROTOCOL.md section 4), with its arguments: the one
/// declaration of the interface's methods. The caller makes it (`PeerBus.call`), the callee
/// reads it from the call it got (`DBusMessageValue.init(_:)`, in `DeviceService`), and the interface XML the
/// engine checks calls against is made from `Member` (`DeviceInterface.xml`).
enum DeviceMethod: DBusMethodValue, Equatable {
    typealias ErrorName = HandoffFailure.DeviceErrorName
    static let interface = DeviceInterface.name
    static let path = DeviceInterface.path

    /// The activity advertised now: its metadata `a{sv}` (`DeviceInterface.metadata`), empty for none.
    case getCurrent
    /// The payload (`ay`) of the activity advertised with `sequence`.
    case fetchPayload(sequence: UInt64)
    /// The caller continued the activity advertised with `sequence`; no reply values.
    case continued(sequence: UInt64)
    /// The signed revocation list (`ay`) the device holds.
    case getRevocations
    /// Opens continuation stream `stream` (an id the caller chose, see `LinkStreams`) on this
    /// link to the activity advertised with `sequence`; no reply values.
    case openStreams(sequence: UInt64, stream: UInt32)
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
            case .fetchPayload, .continued: [DBusArgument("sequence", "t")]
            case .openStreams: [DBusArgument("sequence", "t"), DBusArgument("stream", "u")]
            }
        }

        var outArguments: [DBusArgument] {
            switch self {
            case .getCurrent: [DBusArgument("activity", "a{sv}")]
            case .fetchPayload: [DBusArgument("payload", "ay")]
            case .continued, .openStreams: []
            case .getRevocations: [DBusArgument("list", "ay")]
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
        case .fetchPayload(let sequence), .continued(let sequence): [.uint64(sequence)]
        case .openStreams(let sequence, let stream): [.uint64(sequence), .uint32(stream)]
        }
    }

    init?(checked member: Member, arguments: [Variant]) {
        let sequence: UInt64? = if case .uint64(let value)? = arguments.first { value } else { nil }
        switch member {
        case .getCurrent: self = .getCurrent
        case .fetchPayload: guard let sequence else { return nil }; self = .fetchPayload(sequence: sequence)
        case .continued: guard let sequence else { return nil }; self = .continued(sequence: sequence)
        case .getRevocations: self = .getRevocations
        case .openStreams:
            guard let sequence, arguments.count == 2, let stream = arguments[1].uint32Value else { return nil }
            self = .openStreams(sequence: sequence, stream: stream)
        case .getDiscoveryKey: self = .getDiscoveryKey
        }
    }
}

/// `org.baton.Device1`'s calls with their replies' types (`PeerBus.call`).
extension DBusCall where Method == DeviceMethod, Reply == Variant {
    /// The metadata (`a{sv}`) of the activity the peer advertises, empty for none.
    static var getCurrent: Self { Self(.getCurrent, one: { if case .dictionary = $0 { $0 } else { nil } }, as: { $0 }) }
}

extension DBusCall where Method == DeviceMethod, Reply == Data {
    /// The payload of the activity the peer advertises with `sequence`.
    static func fetchPayload(sequence: UInt64) -> Self { Self(.fetchPayload(sequence: sequence), one: \.bytesValue, as: Variant.bytes) }
    /// The signed revocation list the peer holds.
    static var getRevocations: Self { Self(.getRevocations, one: \.bytesValue, as: Variant.bytes) }
    /// The group's discovery key for the revocation list the peer holds.
    static var getDiscoveryKey: Self { Self(.getDiscoveryKey, one: \.bytesValue, as: Variant.bytes) }
}

extension DBusCall where Method == DeviceMethod, Reply == Void {
    /// Tells the peer its activity advertised with `sequence` was continued.
    static func continued(sequence: UInt64) -> Self { Self(.continued(sequence: sequence)) }
    /// Opens continuation stream `stream` to the activity the peer advertises with `sequence`.
    static func openStreams(sequence: UInt64, stream: UInt32) -> Self { Self(.openStreams(sequence: sequence, stream: stream)) }
}
