import Baton
import BatonLoop
import CGLib
import Foundation

/// `org.baton.Device1`, the interface each device serves to its peers on the D-Bus link
/// (docs/PROTOCOL.md section 4). The D-Bus engine (`DBusConnection`) checks every incoming
/// call's arguments against it.
enum DeviceInterface {
    static let name = "org.baton.Device1"
    static let path = "/org/baton/Device"

    /// The introspection XML, made from the declaration (`DeviceMethod`, `DeviceSignal`).
    static let xml = DBusInterfaceDeclaration.xml(name: name, methods: DeviceMethod.Member.self, signals: DeviceSignal.Member.self)

    /// D-Bus error names a device answers with (`HandoffFailure.DeviceErrorName` holds them
    /// and the Handoff code each stands for).
    enum ErrorName {
        static let notCurrent = HandoffFailure.DeviceErrorName.notCurrent.rawValue
        static let tooLarge = HandoffFailure.DeviceErrorName.tooLarge.rawValue
        static let failed = HandoffFailure.DeviceErrorName.failed.rawValue
        static let noStreams = HandoffFailure.DeviceErrorName.noStreams.rawValue
        /// The caller may not have this: its certificate is revoked, or it never fetched the
        /// sequence it says it continued.
        static let refused = HandoffFailure.DeviceErrorName.refused.rawValue
    }

    /// The parsed interface, made once and kept for the process.
    nonisolated(unsafe) static let info: UnsafeMutablePointer<GDBusInterfaceInfo> = DBusInterfaceDeclaration.info(xml)

    /// The metadata of an advertised activity: `a{sv}` with `sequence` (t), `type`, `title`,
    /// `app`, `team` (s) and, when set, `webpageURL` (s). Empty when nothing is advertised.
    static func metadata(_ activity: NearbyActivity?) -> Variant {
        guard let activity else { return .dictionary([:]) }
        var entries: [String: Variant] = [
            "sequence": .uint64(activity.sequence), "type": .string(activity.activityType),
            "app": .string(activity.appID), "team": .string(activity.teamIdentifier),
        ]
        if let title = activity.title { entries["title"] = .string(title) }
        if let page = activity.webpageURL { entries["webpageURL"] = .string(page.absoluteString) }
        return .dictionary(entries)
    }

    /// `text` cut to at most 1 KiB of UTF-8 on a character boundary: titles travel in metadata,
    /// which stays small.
    static func clipped(_ text: String) -> String {
        guard text.utf8.count > 1024 else { return text }
        var result = ""
        for character in text {
            guard result.utf8.count + character.utf8.count <= 1024 else { break }
            result.append(character)
        }
        return result
    }

    /// The activity in `metadata` from `device`; nil for an empty dictionary. A dictionary
    /// with a missing or mistyped field is refused, naming it.
    static func activity(from metadata: Variant, device: String) throws(PeerProtocolError) -> NearbyActivity? {
        guard case .dictionary(let entries) = metadata else { throw .malformed("activity metadata is \(metadata.typeString), not a{sv}") }
        if entries.isEmpty { return nil }
        func text(_ key: String) throws(PeerProtocolError) -> String {
            guard case .string(let value)? = entries[key], !value.isEmpty, value.utf8.count <= 1024 else {
                throw .malformed("activity metadata needs a non-empty string '\(key)' of at most 1 KiB")
            }
            return value
        }
        guard case .uint64(let sequence)? = entries["sequence"] else { throw .malformed("activity metadata needs 'sequence' (t)") }
        let title: String? = if case .string(let t)? = entries["title"] { clipped(t) } else { nil }
        var page: URL?
        if case .string(let s)? = entries["webpageURL"], let url = URL(string: s), ["http", "https"].contains(url.scheme ?? "") {
            page = url
        }
        return NearbyActivity(device: device, sequence: sequence, activityType: try text("type"), title: title,
                              appID: try text("app"), teamIdentifier: try text("team"), webpageURL: page)
    }
}

/// A peer broke the protocol: a call that does so fails with `.userActivityHandoffFailed`.
extension PeerProtocolError: HandoffCoded {
    package var handoffCode: CocoaError.Code { .userActivityHandoffFailed }
}

/// A peer broke the protocol; the link to it is dropped.
public enum PeerProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The peer sent a message that does not have the interface's shape; the reason in words.
    case malformed(String)
    /// The peer answered a call with the D-Bus error `name` (an `org.baton.Device1` error or
    /// a GDBus one) and its message.
    case remote(name: String, message: String)

    public var description: String {
        switch self {
        case .malformed(let reason): "the peer sent a malformed message: \(reason)"
        case .remote(let name, let message): "the peer answered \(name): \(message)"
        }
    }
}
