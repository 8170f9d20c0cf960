import BatonLoop
import Foundation

/// A signal of `org.baton.Device1`, with its arguments: the one declaration of the
/// interface's signals (see `DeviceMethod`).
enum DeviceSignal: DBusMessageValue, Equatable {
    static let interface = DeviceInterface.name
    static let path = DeviceInterface.path

    /// The activity advertised now changed: its metadata `a{sv}` (`DeviceInterface.metadata`).
    case currentChanged(Variant)
    /// A newer signed revocation list, passed on.
    case revocationsChanged(Data)
    /// Bytes written on continuation stream `stream` of this link (`LinkStreams`).
    case streamData(stream: UInt32, bytes: Data)
    /// The sender finished writing on `stream`: the reader reads to its end.
    case streamEnd(stream: UInt32)
    /// The sender closed `stream` both ways; `aborted`: the reader's reads fail, otherwise they
    /// read what arrived, then the end.
    case streamReset(stream: UInt32, aborted: Bool)
    /// The reader of `stream` consumed `bytes` more: the writer may send that much more.
    case streamCredit(stream: UInt32, bytes: UInt32)

    enum Member: String, DBusMember {
        case currentChanged = "CurrentChanged"
        case revocationsChanged = "RevocationsChanged"
        case streamData = "StreamData"
        case streamEnd = "StreamEnd"
        case streamReset = "StreamReset"
        case streamCredit = "StreamCredit"

        var inArguments: [DBusArgument] {
            switch self {
            case .currentChanged: [DBusArgument("activity", "a{sv}")]
            case .revocationsChanged: [DBusArgument("list", "ay")]
            case .streamData: [DBusArgument("stream", "u"), DBusArgument("bytes", "ay")]
            case .streamEnd: [DBusArgument("stream", "u")]
            case .streamReset: [DBusArgument("stream", "u"), DBusArgument("aborted", "b")]
            case .streamCredit: [DBusArgument("stream", "u"), DBusArgument("bytes", "u")]
            }
        }
    }

    var member: Member {
        switch self {
        case .currentChanged: .currentChanged
        case .revocationsChanged: .revocationsChanged
        case .streamData: .streamData
        case .streamEnd: .streamEnd
        case .streamReset: .streamReset
        case .streamCredit: .streamCredit
        }
    }

    var arguments: [Variant] {
        switch self {
        case .currentChanged(let metadata): [metadata]
        case .revocationsChanged(let list): [.bytes(list)]
        case .streamData(let stream, let bytes): [.uint32(stream), .bytes(bytes)]
        case .streamEnd(let stream): [.uint32(stream)]
        case .streamReset(let stream, let aborted): [.uint32(stream), .bool(aborted)]
        case .streamCredit(let stream, let bytes): [.uint32(stream), .uint32(bytes)]
        }
    }

    init?(checked member: Member, arguments: [Variant]) {
        switch (member, arguments.first) {
        case (.currentChanged, .dictionary(let entries)?): self = .currentChanged(.dictionary(entries))
        case (.revocationsChanged, .bytes(let list)?): self = .revocationsChanged(list)
        case (.streamData, .uint32(let stream)?):
            guard case .bytes(let bytes) = arguments[1] else { return nil }
            self = .streamData(stream: stream, bytes: bytes)
        case (.streamEnd, .uint32(let stream)?): self = .streamEnd(stream: stream)
        case (.streamReset, .uint32(let stream)?):
            guard case .bool(let aborted) = arguments[1] else { return nil }
            self = .streamReset(stream: stream, aborted: aborted)
        case (.streamCredit, .uint32(let stream)?):
            guard case .uint32(let bytes) = arguments[1] else { return nil }
            self = .streamCredit(stream: stream, bytes: bytes)
        default: return nil
        }
    }
}
