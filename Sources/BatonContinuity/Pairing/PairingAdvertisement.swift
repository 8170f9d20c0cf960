import BatonLoop
import CAvahi
import CGLib
import Foundation

/// An open pairing window, published through the system's avahi-daemon so a new device finds
/// it: service type `_baton-pair._tcp` (apart from the group's `_baton._tcp`), a random
/// instance name (`pair-` and 8 hex digits, new for each window), the window's own port, and
/// TXT `v=1` only — no device, user or group name, no token (the newcomer holds no key).
/// IPv4, every interface. `stop()` withdraws it (Avahi sends the goodbye).
@MainActor
public final class PairingAdvertisement {
    /// The DNS-SD service type of pairing windows.
    public nonisolated static let serviceType = "_baton-pair._tcp"
    /// The TXT record, all of it.
    nonisolated static let txt = ["v=1"]

    /// The instance name published (it changes only on a name collision).
    public private(set) var instanceName = PairingAdvertisement.freshName()
    /// Called once the service is established on the network, with its instance name.
    public var onPublished: ((String) -> Void)?
    /// Called if it cannot be published (no avahi-daemon, or Avahi failed), with why.
    public var onUnavailable: ((String) -> Void)?
    private let port: UInt16
    nonisolated(unsafe) private var poll: OpaquePointer?  // nonisolated(unsafe): for deinit only
    nonisolated(unsafe) private var client: OpaquePointer?
    private var group: OpaquePointer?

    /// An advertisement for a window listening on `port`.
    public init(port: UInt16) { self.port = port }

    deinit {
        if let client { avahi_client_free(client) }
        if let poll { avahi_glib_poll_free(poll) }
    }

    static func freshName() -> String {
        "pair-" + (0..<4).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    /// Connects to avahi-daemon on the app's loop and publishes as soon as it answers.
    public func start() {
        guard poll == nil else { return }
        poll = avahi_glib_poll_new(UnsafeMutableRawPointer(MainLoop.context.gContext), G_PRIORITY_DEFAULT)
        var error: Int32 = 0
        client = avahi_client_new(avahi_glib_poll_get(poll), AvahiClientFlags(0), { client, state, userdata in
            MainActor.assumeIsolated { PairingAdvertisement.borrow(userdata).clientChanged(client, state) }
        }, Unmanaged.passUnretained(self).toOpaque(), &error)
        if client == nil { unavailable(String(cString: avahi_strerror(error))) }
    }

    /// Withdraws the service and disconnects from the daemon.
    public func stop() {
        if let group { avahi_entry_group_free(group) }
        group = nil
        if let client { avahi_client_free(client) }
        client = nil
        if let poll { avahi_glib_poll_free(poll) }
        poll = nil
    }

    private static func borrow(_ userdata: UnsafeMutableRawPointer?) -> PairingAdvertisement {
        Unmanaged<PairingAdvertisement>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private func unavailable(_ reason: String) {
        let report = onUnavailable
        onUnavailable = nil
        report?(reason)
    }

    private func clientChanged(_ client: OpaquePointer?, _ state: AvahiClientState) {
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            if group == nil || avahi_entry_group_is_empty(group) != 0 { publish(on: client) }
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
            if let group { avahi_entry_group_reset(group) }
        case AVAHI_CLIENT_FAILURE:
            unavailable(String(cString: avahi_strerror(avahi_client_errno(client))))
        default:
            break
        }
    }

    private func publish(on client: OpaquePointer?) {
        if group == nil {
            group = avahi_entry_group_new(client, { _, state, userdata in
                MainActor.assumeIsolated { PairingAdvertisement.borrow(userdata).groupChanged(state) }
            }, Unmanaged.passUnretained(self).toOpaque())
            guard group != nil else { return unavailable(String(cString: avahi_strerror(avahi_client_errno(client)))) }
        } else {
            avahi_entry_group_reset(group)
        }
        var txt: UnsafeMutablePointer<AvahiStringList>?
        for entry in Self.txt { txt = avahi_string_list_add(txt, entry) }
        defer { avahi_string_list_free(txt) }
        let added = avahi_entry_group_add_service_strlst(group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_INET),
                                                         AvahiPublishFlags(0), instanceName, Self.serviceType, nil, nil, port, txt)
        if added == Int32(AVAHI_ERR_COLLISION) {
            instanceName = Self.freshName()
            return publish(on: client)
        }
        guard added == 0, avahi_entry_group_commit(group) == 0 else {
            return unavailable(String(cString: avahi_strerror(added != 0 ? added : avahi_client_errno(client))))
        }
    }

    private func groupChanged(_ state: AvahiEntryGroupState) {
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            onPublished?(instanceName)
        case AVAHI_ENTRY_GROUP_COLLISION:
            instanceName = Self.freshName()
            if let client { publish(on: client) }
        case AVAHI_ENTRY_GROUP_FAILURE:
            unavailable(String(cString: avahi_strerror(avahi_client_errno(client))))
        default:
            break
        }
    }
}
