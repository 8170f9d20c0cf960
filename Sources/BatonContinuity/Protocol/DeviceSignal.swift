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

    init?(checked member: Member, arguments: [Variant]) {
        switch (member, arguments.first) {
        case (.currentChanged, .dictionary(let entries)?): self = .currentChanged(.dictionary(entries))
        case (.revocationsChanged, .bytes(let list)?): self = .revocationsChanged(list)
        default: return nil
        }
    }
}
