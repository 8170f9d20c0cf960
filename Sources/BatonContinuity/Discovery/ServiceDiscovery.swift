import BatonLoop
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
/// its GLib poll adapter — real Avahi, not a home-made mDNS), over the `AvahiConnection` it is
/// handed: the process's one, shared with pairing.
///
/// Publishes this device as `_baton._tcp` on `port` with a `ServiceRecord` (random name,
/// version, blinded group token) and renews name and token every `rotation` — and the port
/// too when the owner gives `portAtRotation`. Browses for the
/// same type and reports each peer whose token this group's key recognises, resolved to an
/// IPv4 address. When no avahi-daemon is reachable it says so once and waits for one to appear;
/// a daemon that restarts is reconnected to, and the record published again.
/// Services this process published (Avahi's "our own", whichever discovery published them) are
/// not resolved: a process is one device.
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
    public private(set) var state: State = .stopped {
        didSet { if state != oldValue { onStateChange?() } }
    }
    /// Called after each change of `state`.
    var onStateChange: (@MainActor () -> Void)?
    /// Where what discovery publishes and finds is published (`servicePublished`,
    /// `deviceFound`, `deviceLost`): the node's.
    var diagnostics: Diagnostics?
    /// True when the last record could not be published because no interface is up with an
    /// IPv4 address that can multicast.
    public private(set) var hasNoInterface = false
    /// Called once, when the first browse has reported what the network holds now (Avahi's
    /// "all for now") and each service found by then is resolved; or at once when no daemon
    /// answers, since nothing more will come soon.
    public var onSettled: (@MainActor () -> Void)?
    /// The record published now, if any (its name and token change at each rotation).
    var published: ServiceRecord? { publication?.isPublished == true ? record : nil }
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
    /// The client of avahi-daemon it publishes and browses through.
    private let avahi: AvahiConnection
    private let lost: @MainActor (PeerAddress) -> Void
    private var browse: ServiceBrowse?
    private var publication: ServicePublication?
    private var record: ServiceRecord?
    private var rotationTimer: LoopSource?
    /// Peers resolved so far, by interface and instance name.
    private var peers: [String: PeerAddress] = [:]
    private var saidWaiting = false
    private let log = PeerLogger(label: "baton.discovery")

    /// Discovery for the group of `key`, publishing `port` (unless `publishes` is false), through
    /// `avahi`: the process's client of avahi-daemon, made by whoever owns the loop (with none,
    /// discovery makes a client of its own). `found` is called for each peer service resolved
    /// (again after each of its rotations), `lost` when one is withdrawn.
    public init(key: DiscoveryKey, port: UInt16, publishes: Bool = true, rotation: Duration = .seconds(15 * 60),
                avahi: AvahiConnection? = nil,
                found: @escaping @MainActor (FoundPeer) -> Void, lost: @escaping @MainActor (PeerAddress) -> Void = { _ in }) {
        self.avahi = avahi ?? AvahiConnection()
        self.key = key
        self.port = port
        self.publishes = publishes
        self.rotation = rotation
        self.found = found
        self.lost = lost
    }

    /// Starts publishing and browsing through its client of avahi-daemon (shared with pairing
    /// when handed the process's one), as soon as the daemon answers.
    public func start() {
        guard browse == nil else { return }
        if publishes {
            let publication = ServicePublication(through: avahi, entries: { [weak self] _ in self?.entries() ?? [] }) { [weak self] event in
                self?.published(event)
            }
            self.publication = publication
            publication.start()
        }
        // Our own services (this process's, whatever their name) are not resolved.
        let browse = ServiceBrowse(ServiceRecord.serviceType, through: avahi, maximumPending: Self.maximumPending) { [weak self] name, ourOwn in
            ourOwn || name == self?.record?.instanceName
        } report: { [weak self] event in
            self?.browsed(event)
        }
        self.browse = browse
        browse.start()
    }

    /// Services resolved at once, at most: the rest of a flood of records is not resolved.
    static let maximumPending = 32

    /// Withdraws the service, stops browsing and leaves the connection to the daemon.
    public func stop() {
        rotationTimer?.cancel()
        rotationTimer = nil
        browse?.stop()
        browse = nil
        publication?.stop()
        publication = nil
        peers = [:]
        state = .stopped
    }

    private func fail(_ reason: String) {
        log.error("discovery is off: \(reason); using the static peers only")
        stop()
        state = .failed(reason)
        settle()
    }

    private func settle() {
        guard let callback = onSettled else { return }
        onSettled = nil
        callback()
    }

    private func connectionChanged(_ connection: AvahiConnection.State) {
        switch connection {
        case .running:
            state = .running
            saidWaiting = false
            log.info("avahi-daemon answers: publishing and browsing \(ServiceRecord.serviceType)")
        case .registering:
            break
        case .connecting:
            if state == .running { log.notice("avahi-daemon went away; waiting for it to come back") }
            state = .waitingForDaemon
            peers = [:]
            if !saidWaiting {
                saidWaiting = true
                log.notice("no avahi-daemon is reachable: other devices cannot find this one and it finds none until one runs (apt-get install avahi-daemon); the static peers are dialed meanwhile")
            }
            settle()
        case .noDaemon:  // no system bus to wait on: nothing will tell us of a daemon
            log.notice("no avahi-daemon is reachable (no system D-Bus): other devices cannot find this one; install and start avahi-daemon, or list them in the peers file")
            state = .noDaemon
            settle()
        case .failed(let reason):
            fail("cannot use Avahi: \(reason)")
        }
    }

    // MARK: Publishing

    /// The entries of a fresh record: one per interface, each with a token bound to the port
    /// and that interface's addresses (a browser checks the token against the address it
    /// resolved, so the TXT replayed from another host does not verify). The next rotation is
    /// scheduled from here, whether or not there is anything to publish.
    private func entries() -> [ServiceEntry] {
        scheduleRotation()
        let instanceName = ServiceRecord.freshName()
        let interfaces = Self.interfaceAddresses()
        hasNoInterface = interfaces.isEmpty
        guard !interfaces.isEmpty else {
            record = nil
            log.notice("no network interface is up with an IPv4 address that can multicast: nothing to publish until the next rotation")
            return []
        }
        return interfaces.map { index, addresses in
            let record = ServiceRecord(instanceName: instanceName, token: key.freshToken(port: port, addresses: addresses))
            self.record = record
            return ServiceEntry(interface: index, name: record.instanceName, type: ServiceRecord.serviceType, port: port, txt: record.txt)
        }
    }

    /// Publishes again with a fresh name and token, and the port `portAtRotation` gives, after
    /// `rotation` (which also picks up changed interface addresses).
    private func scheduleRotation() {
        rotationTimer?.cancel()
        rotationTimer = MainLoop.after(rotation) { [weak self] in
            guard let self, let publication = self.publication else { return }
            self.rotationTimer = nil
            if let next = self.portAtRotation?() { self.port = next }
            publication.publishAgain()
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

    private func published(_ event: ServicePublication.Event) {
        switch event {
        case .established:
            log.info("published as \(record?.instanceName ?? "?")")
            if let record { diagnostics?.publish(.servicePublished(name: record.instanceName, port: port)) }
        case .cannotPublish(let reason): fail(reason)
        case .failed(let reason): log.error("publishing failed: \(reason)")
        case .connection: break  // heard from the browse
        }
    }

    // MARK: Browsing

    private func browsed(_ event: ServiceBrowse.Event) {
        switch event {
        case .found(let service):
            // The token must have been made for this very address and port (not replayed).
            if let refusal = ServiceRecord.refusal(of: service.txt, key: key, port: service.address.port, address: service.address.host) {
                return log.debug("ignoring \(service.name): \(refusal)")
            }
            peers["\(service.interface)/\(service.name)"] = service.address
            log.info("found a device of the group at \(service.address)")
            diagnostics?.publish(.deviceFound(address: service.address.description))
            // Both devices publish and browse, so each finds the other; the one whose instance
            // name sorts first dials (the names are random, so this favours no device).
            let own = published?.instanceName
            found(FoundPeer(address: service.address, dialsUs: own.map { service.name < $0 } ?? false))
        case .removed(let interface, let name):
            guard let address = peers.removeValue(forKey: "\(interface)/\(name)") else { return }
            diagnostics?.publish(.deviceLost(address: address.description))
            lost(address)
        case .settled:
            settle()
        case .connection(let state):
            connectionChanged(state)
        case .cannotBrowse(let reason):
            fail(reason)
        case .failed(let reason):
            log.error("\(reason)")
            settle()
        }
    }
}
