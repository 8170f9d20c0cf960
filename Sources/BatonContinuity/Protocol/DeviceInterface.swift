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

    static let xml = """
        <node>
          <interface name="org.baton.Device1">
            <method name="GetCurrent"><arg name="activity" type="a{sv}" direction="out"/></method>
            <method name="FetchPayload">
              <arg name="sequence" type="t" direction="in"/><arg name="payload" type="ay" direction="out"/>
            </method>
            <method name="Continued"><arg name="sequence" type="t" direction="in"/></method>
            <method name="GetRevocations"><arg name="list" type="ay" direction="out"/></method>
            <method name="OpenStreams">
              <arg name="sequence" type="t" direction="in"/>
              <arg name="token" type="ay" direction="out"/><arg name="port" type="u" direction="out"/>
            </method>
            <method name="GetDiscoveryKey"><arg name="key" type="ay" direction="out"/></method>
            <signal name="CurrentChanged"><arg name="activity" type="a{sv}"/></signal>
            <signal name="RevocationsChanged"><arg name="list" type="ay"/></signal>
          </interface>
        </node>
        """

    /// D-Bus error names a device answers with.
    enum ErrorName {
        static let notCurrent = "org.baton.Error.NotCurrent"
        static let tooLarge = "org.baton.Error.TooLarge"
        static let failed = "org.baton.Error.Failed"
        static let noStreams = "org.baton.Error.NoStreams"
        /// The caller may not have this: its certificate is revoked, or it never fetched the
        /// sequence it says it continued.
        static let refused = "org.baton.Error.Refused"
    }

    /// The parsed interface, made once and kept for the process.
    nonisolated(unsafe) static let info: UnsafeMutablePointer<GDBusInterfaceInfo> = {
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(xml, &error), let interface = node.pointee.interfaces[0] else {
            fatalError("Baton: the org.baton.Device1 introspection XML does not parse: \(String(cString: error!.pointee.message))")
        }
        defer { g_dbus_node_info_unref(node) }  // the interface is kept by its own reference
        return g_dbus_interface_info_ref(interface)
    }()

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
