import BatonLoop
import CAvahi
import CGLib
import Foundation
import Logging

/// A device of the group found through DNS-SD.
public struct FoundPeer: Sendable, Equatable {
    /// Where it listens: the IPv4 address and port its service resolved to.
    public var address: PeerAddress
    /// Whether that device is expected to dial this one: both publish, and its instance name
    /// sorts first.
    public var dialsUs: Bool
}

/// DNS-SD for the device group, through the system's avahi-daemon (Avahi's client library on
/// its GLib poll adapter — real Avahi, not a home-made mDNS).
///
/// Publishes this device as `_baton._tcp` on `port` with a `ServiceRecord` (random name,
/// version, blinded group token) and renews name and token every `rotation` — and the port
/// too when the owner gives `portAtRotation`. Browses for the
/// same type and reports each peer whose token this group's key recognises, resolved to an
/// IPv4 address. When no avahi-daemon is reachable it says so once and waits for one to appear
/// (`AVAHI_CLIENT_NO_FAIL`); a daemon that restarts is reconnected to.
@MainActor
public final class ServiceDiscovery {
    /// Where discovery stands, in `state`.
    public enum State: Equatable, Sendable {
        /// Not started, or stopped: nothing is published or browsed.
        case stopped
        /// No avahi-daemon answers yet; discovery starts when one does.
        case waitingForDaemon
        /// Publishing and browsing through the avahi-daemon.
        case running
        /// No system D-Bus, so no avahi-daemon can be reached and none will appear: discovery
        /// stays off; static peers still work.
        case noDaemon
        /// Avahi refused to publish or browse; the reason in Avahi's words. Discovery stays
        /// off until it is started again; static peers still work.
        case failed(String)
    }

    /// Where discovery stands now.
    public private(set) var state: State = .stopped
    /// True when the last record could not be published because no interface is up with an
    /// IPv4 address that can multicast.
    public private(set) var hasNoInterface = false
    /// Called once, when the first browse has reported what the network holds now (Avahi's
    /// "all for now") and each service found by then is resolved; or at once when no daemon
    /// answers, since nothing more will come soon.
    public var onSettled: (@MainActor () -> Void)?
    private var browsedAllForNow = false
    /// The record published now, if any (its name and token change at each rotation).
    var published: ServiceRecord? { group == nil ? nil : record }
    private let key: DiscoveryKey
    /// The port published now.
    public private(set) var port: UInt16
    /// Asked at each rotation, just before the new record is published, for the port to
    /// publish from then on (the owner has opened a listener on a fresh port, say); nil keeps
    /// the port. Not asked for the first record.
    public var portAtRotation: (@MainActor () -> UInt16?)?
    private let publishes: Bool
    private let rotation: Duration
    private let found: @MainActor (FoundPeer) -> Void
    private let lost: @MainActor (PeerAddress) -> Void
    nonisolated(unsafe) private var poll: OpaquePointer?  // nonisolated(unsafe): for deinit only
    nonisolated(unsafe) private var client: OpaquePointer?
    private var group: OpaquePointer?
    private var browser: OpaquePointer?
    private var resolvers: Set<OpaquePointer> = []
    private var record: ServiceRecord?
    private var rotationTimer: LoopSource?
    /// Peers resolved so far, by interface and instance name.
    private var peers: [String: PeerAddress] = [:]
    private var saidWaiting = false
    private let log = PeerLogger(label: "baton.discovery")

    /// Discovery for the group of `key`, publishing `port` (unless `publishes` is false).
    /// `found` is called for each peer service resolved (again after each of its rotations),
    /// `lost` when one is withdrawn.
    public init(key: DiscoveryKey, port: UInt16, publishes: Bool = true, rotation: Duration = .seconds(15 * 60),
                found: @escaping @MainActor (FoundPeer) -> Void, lost: @escaping @MainActor (PeerAddress) -> Void = { _ in }) {
        self.key = key
        self.port = port
        self.publishes = publishes
        self.rotation = rotation
        self.found = found
        self.lost = lost
    }

    deinit {
        // stop() is the normal path; this only keeps Avahi from calling into freed memory.
        if let client { avahi_client_free(client) }
        if let poll { avahi_glib_poll_free(poll) }
    }

    /// Connects to avahi-daemon on the app's loop (`MainLoop.context`) and starts publishing
    /// and browsing as soon as it answers.
    public func start() {
        guard poll == nil else { return }
        // Explicitly: given none, avahi-glib takes GLib's global default context, which a host
        // that embeds Baton in a context of its own never iterates.
        poll = avahi_glib_poll_new(UnsafeMutableRawPointer(MainLoop.context.gContext), G_PRIORITY_DEFAULT)
        connect()
    }

    /// Withdraws the service, stops browsing and disconnects from the daemon.
    public func stop() {
        rotationTimer?.cancel()
        rotationTimer = nil
        disconnect()
        if let poll { avahi_glib_poll_free(poll) }
        poll = nil
        state = .stopped
    }

    // MARK: Client

    private var userdata: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    private static func discovery(_ userdata: UnsafeMutableRawPointer?) -> ServiceDiscovery {
        Unmanaged<ServiceDiscovery>.fromOpaque(userdata!).takeUnretainedValue()
    }

    private func connect() {
        var error: Int32 = 0
        client = avahi_client_new(avahi_glib_poll_get(poll), AVAHI_CLIENT_NO_FAIL, { client, state, userdata in
            MainActor.assumeIsolated { ServiceDiscovery.discovery(userdata).clientChanged(client, state) }
        }, userdata, &error)
        guard client == nil else { return }
        if error == Int32(AVAHI_ERR_NO_DAEMON) {  // no system bus to wait on: nothing will tell us of a daemon
            log.notice("no avahi-daemon is reachable (no system D-Bus): other devices cannot find this one; install and start avahi-daemon, or list them in the peers file")
            state = .noDaemon
            settle()
        } else {
            fail("cannot use Avahi: \(String(cString: avahi_strerror(error)))")
        }
    }

    /// Frees the client and everything made through it.
    private func disconnect() {
        for resolver in resolvers { avahi_service_resolver_free(resolver) }
        resolvers = []
        if let browser { avahi_service_browser_free(browser) }
        browser = nil
        if let group { avahi_entry_group_free(group) }
        group = nil
        if let client { avahi_client_free(client) }
        client = nil
        peers = [:]
    }

    private func fail(_ reason: String) {
        log.error("discovery is off: \(reason); using the static peers only")
        rotationTimer?.cancel()
        rotationTimer = nil
        state = .failed(reason)
        // Failures are mostly heard inside an Avahi callback: free its objects from the loop.
        MainLoop.idle { [weak self] in
            guard let self, case .failed = self.state else { return }
            self.disconnect()
        }
        settle()
    }

    private func settle() {
        guard let callback = onSettled else { return }
        onSettled = nil
        callback()
    }

    private func clientChanged(_ client: OpaquePointer?, _ clientState: AvahiClientState) {
        switch clientState {
        case AVAHI_CLIENT_S_RUNNING:
            state = .running
            saidWaiting = false
            log.info("avahi-daemon answers: publishing and browsing \(ServiceRecord.serviceType)")
            if publishes, group == nil || avahi_entry_group_is_empty(group) != 0 { publish(on: client) }
            if browser == nil { browse(on: client) }
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
            // The daemon's host name is being (re)established; the service goes back up on RUNNING.
            if let group { avahi_entry_group_reset(group) }
        case AVAHI_CLIENT_CONNECTING:
            state = .waitingForDaemon
            if !saidWaiting {
                saidWaiting = true
                log.notice("no avahi-daemon is reachable: other devices cannot find this one and it finds none until one runs (apt-get install avahi-daemon); the static peers are dialed meanwhile")
            }
            settle()
        case AVAHI_CLIENT_FAILURE:
            let error = avahi_client_errno(client)
            // Never free the client inside its own callback: Avahi's D-Bus dispatch goes on
            // using it after the callback returns. Reconnect (or give up) from the loop.
            if error == Int32(AVAHI_ERR_DISCONNECTED) {
                log.notice("avahi-daemon went away; waiting for it to come back")
                MainLoop.idle { [weak self] in
                    guard let self, self.client == client else { return }
                    self.disconnect()
                    self.connect()
                }
            } else {
                fail(String(cString: avahi_strerror(error)))
            }
        default:
            break
        }
    }

    // MARK: Publishing

    private func publish(on client: OpaquePointer?) {
        if group == nil {
            group = avahi_entry_group_new(client, { group, groupState, userdata in
                MainActor.assumeIsolated { ServiceDiscovery.discovery(userdata).groupChanged(groupState) }
            }, userdata)
            guard group != nil else { return fail("cannot publish: \(String(cString: avahi_strerror(avahi_client_errno(client))))") }
        } else {
            avahi_entry_group_reset(group)
        }
        // One entry per interface, each with a token bound to the port and that interface's
        // addresses: a browser checks the token against the address it resolved, so the TXT
        // replayed from another host does not verify.
        let instanceName = ServiceRecord.freshName()
        let interfaces = Self.interfaceAddresses()
        hasNoInterface = interfaces.isEmpty
        guard !interfaces.isEmpty else {
            record = nil
            log.notice("no network interface is up with an IPv4 address that can multicast: nothing to publish until the next rotation")
            return scheduleRotation()
        }
        for (index, addresses) in interfaces {
            let record = ServiceRecord(instanceName: instanceName, token: key.freshToken(port: port, addresses: addresses))
            self.record = record
            var txt: UnsafeMutablePointer<AvahiStringList>?
            for entry in record.txt { txt = avahi_string_list_add(txt, entry) }
            defer { avahi_string_list_free(txt) }
            let added = avahi_entry_group_add_service_strlst(group, AvahiIfIndex(index), AvahiProtocol(AVAHI_PROTO_INET),
                                                             AvahiPublishFlags(0), record.instanceName, ServiceRecord.serviceType,
                                                             nil, nil, port, txt)
            if added == Int32(AVAHI_ERR_COLLISION) { return publish(on: client) }  // a fresh random name
            guard added == 0 else {
                return fail("cannot publish: \(String(cString: avahi_strerror(added)))")
            }
        }
        guard avahi_entry_group_commit(group) == 0 else {
            return fail("cannot publish: \(String(cString: avahi_strerror(avahi_client_errno(client))))")
        }
        scheduleRotation()
    }

    /// Publishes again with a fresh name and token, and the port `portAtRotation` gives, after
    /// `rotation` (which also picks up changed interface addresses).
    private func scheduleRotation() {
        rotationTimer?.cancel()
        rotationTimer = MainLoop.after(rotation) { [weak self] in
            guard let self, let client = self.client else { return }
            self.rotationTimer = nil
            if let next = self.portAtRotation?() { self.port = next }
            self.publish(on: client)
        }
    }

    /// The IPv4 addresses (text) of each interface that is up, multicasts and is not loopback, by interface
    /// index, at most `DiscoveryKey.maxAddresses` each, in a stable order.
    nonisolated static func interfaceAddresses() -> [(Int32, [String])] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var byIndex: [Int32: [String]] = [:]
        var entry = list
        while let item = entry?.pointee {
            entry = item.ifa_next
            guard let address = item.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                  item.ifa_flags & UInt32(IFF_UP) != 0, item.ifa_flags & UInt32(IFF_LOOPBACK) == 0,
                  item.ifa_flags & UInt32(IFF_MULTICAST) != 0 else { continue }
            let index = Int32(if_nametoindex(item.ifa_name))
            guard index > 0 else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            let ok = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet -> Bool in
                var raw = inet.pointee.sin_addr
                return inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil
            }
            guard ok else { continue }
            byIndex[index, default: []].append(text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        }
        return byIndex.keys.sorted().map { ($0, Array(byIndex[$0]!.sorted().prefix(DiscoveryKey.maxAddresses))) }
    }

    private func groupChanged(_ groupState: AvahiEntryGroupState) {
        switch groupState {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            log.info("published as \(record?.instanceName ?? "?")")
        case AVAHI_ENTRY_GROUP_COLLISION:
            if let client { publish(on: client) }  // another service took the name: pick a new one
        case AVAHI_ENTRY_GROUP_FAILURE:
            log.error("publishing failed: \(String(cString: avahi_strerror(avahi_client_errno(client))))")
        default:
            break
        }
    }

    // MARK: Browsing

    private func browse(on client: OpaquePointer?) {
        browser = avahi_service_browser_new(client, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_INET),
                                            ServiceRecord.serviceType, nil, AvahiLookupFlags(0), {
            _, interface, proto, event, name, type, domain, flags, userdata in
            MainActor.assumeIsolated {
                ServiceDiscovery.discovery(userdata).browsed(event, interface: interface, proto: proto, name: name,
                                                             type: type, domain: domain, flags: flags)
            }
        }, userdata)
        if browser == nil { fail("cannot browse: \(String(cString: avahi_strerror(avahi_client_errno(client))))") }
    }

    private func browsed(_ event: AvahiBrowserEvent, interface: AvahiIfIndex, proto: AvahiProtocol,
                         name: UnsafePointer<CChar>?, type: UnsafePointer<CChar>?, domain: UnsafePointer<CChar>?,
                         flags: AvahiLookupResultFlags) {
        switch event {
        case AVAHI_BROWSER_NEW:
            guard let name, flags.rawValue & AVAHI_LOOKUP_RESULT_OUR_OWN.rawValue == 0,
                  String(cString: name) != record?.instanceName else { return }
            let resolver = avahi_service_resolver_new(client, interface, proto, name, type, domain,
                                                      AvahiProtocol(AVAHI_PROTO_INET), AvahiLookupFlags(0), {
                resolver, interface, _, event, name, _, _, _, address, port, txt, _, userdata in
                MainActor.assumeIsolated {
                    ServiceDiscovery.discovery(userdata).resolved(resolver, event, interface: interface, name: name,
                                                                  address: address, port: port, txt: txt)
                }
            }, userdata)
            if let resolver { resolvers.insert(resolver) }
        case AVAHI_BROWSER_REMOVE:
            guard let name, let address = peers.removeValue(forKey: "\(interface)/\(String(cString: name))") else { return }
            lost(address)
        case AVAHI_BROWSER_ALL_FOR_NOW:
            browsedAllForNow = true
            settleIfResolved()
        case AVAHI_BROWSER_FAILURE:
            log.error("browsing failed: \(String(cString: avahi_strerror(avahi_client_errno(client))))")
            settle()
        default:
            break
        }
    }

    private func resolved(_ resolver: OpaquePointer?, _ event: AvahiResolverEvent, interface: AvahiIfIndex,
                          name: UnsafePointer<CChar>?, address: UnsafePointer<AvahiAddress>?, port: UInt16,
                          txt: UnsafeMutablePointer<AvahiStringList>?) {
        defer {
            if let resolver, resolvers.remove(resolver) != nil { avahi_service_resolver_free(resolver) }
            settleIfResolved()
        }
        guard event == AVAHI_RESOLVER_FOUND, let name, let address else { return }
        let instance = String(cString: name)
        var text = [CChar](repeating: 0, count: Int(AVAHI_ADDRESS_STR_MAX))
        let host = text.withUnsafeMutableBufferPointer { buffer in
            String(cString: avahi_address_snprint(buffer.baseAddress, buffer.count, address))
        }
        // The token must have been made for this very address and port (not replayed).
        if let refusal = ServiceRecord.refusal(of: Self.strings(txt), key: key, port: port, address: host) {
            return log.debug("ignoring \(instance): \(refusal)")
        }
        let peer = PeerAddress(host: host, port: port)
        peers["\(interface)/\(instance)"] = peer
        log.info("found a device of the group at \(peer)")
        // Both devices publish and browse, so each finds the other; the one whose instance
        // name sorts first dials (the names are random, so this favours no device).
        let own = published?.instanceName
        found(FoundPeer(address: peer, dialsUs: own.map { instance < $0 } ?? false))
    }

    private func settleIfResolved() {
        if browsedAllForNow, resolvers.isEmpty { settle() }
    }

    private static func strings(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [String] {
        var result: [String] = []
        var item = list
        while let entry = item {
            result.append(String(decoding: UnsafeBufferPointer(start: avahi_string_list_get_text(entry),
                                                               count: avahi_string_list_get_size(entry)), as: UTF8.self))
            item = avahi_string_list_get_next(entry)
        }
        return result
    }
}
