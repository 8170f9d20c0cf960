import Baton
import CGLib
import BatonLoop
import Foundation
import Logging

/// Handoff between this app and the user's other devices, embedded in the app's process on
/// its GLib loop (no daemon).
///
/// The node listens for its peers, dials the static ones and those DNS-SD finds (through
/// avahi-daemon, when it listens beyond loopback); each link is mutual TLS 1.3
/// (`SecureChannel`) carrying D-Bus (`PeerBus`), one per peer device. It advertises what its
/// `ActivityProvider` offers to every peer — metadata only, with a sequence number — and hands
/// the provider theirs. By default the provider is the app the node is embedded in: the app's
/// advertised activity, and `Application.shared.nearbyActivities` kept up to date; the per-user
/// agent hosts the same node for all of the user's apps. Continuing one goes through
/// `Application.continueNearbyActivity`: the payload is pulled from its device, which saves it
/// first, and that device's activity delegate is told once it is continued.
@MainActor
public final class ContinuityNode: NearbyActivitySource, DeviceServiceHandler {
    /// This device's identity: its certificate and key, the group's certificate, and the
    /// revocation list it holds now (replaced when a newer list is copied in or relayed).
    public private(set) var identity: DeviceIdentity
    private let identityDirectory: URL?
    /// `revocations` in `identityDirectory`, read before every call the node answers: its URL
    /// is made once, since making it cost more than reading the file.
    private let revocationsFile: URL?
    let credential: TLSCredential
    /// The peers this node dials.
    public let staticPeers: [PeerAddress]
    /// The listener whose port is published and handed out in stream grants now. With
    /// `previousListeners`, every listener that accepts connections: there is no other.
    var listener: SecureListener?
    /// Listeners replaced at a port rotation, oldest first, each with the timer of its next
    /// step out (see `rotateListener()`).
    private(set) var previousListeners: [(listener: SecureListener, timer: LoopSource)] = []
    /// The address a listener on a fresh port is opened on at a rotation of the published
    /// name; nil when the port was given, which then stays. (A node that does not publish has
    /// no rotation.)
    private var rotatingHost: String?
    /// The linked devices, by identifier (their certificates' common names); the names shown
    /// for them come from the group's signed list held (`name(of:)`).
    var links: [String: PeerLink] = [:]
    /// Continuation stream connections granted and not yet made, oldest first (capped: see
    /// `streamGrant(sequence:for:)`).
    var streamGrants: [StreamGrant] = []
    /// Links being taken down; see `retire(_:)`.
    private var retired: [PeerLink] = []
    private var dialing: Set<PeerAddress> = []
    /// Peers found through DNS-SD and still published.
    private var discovered: Set<PeerAddress> = []
    private var discovery: ServiceDiscovery?
    /// How often the DNS-SD name and group token are renewed — and the listening port, when
    /// the node was started on port 0 and publishes.
    public var discoveryRotation: Duration = .seconds(15 * 60)
    /// How long a listener replaced at a port rotation still accepts connections: a device
    /// that resolved the old record just before can still dial it (after up to its
    /// `discoveryDialGrace`) and a stream granted on the old port can still be opened. Then
    /// its port refuses connections; those it accepted by then finish within their
    /// `handshakeDeadline`.
    public var listenerRotationGrace: Duration = .seconds(10)
    /// How long a node waits for a found device that is the one to dial before dialing it.
    public var discoveryDialGrace: Duration = .seconds(3)
    /// How long an incoming connection has, from accept, to become a verified link with D-Bus
    /// set up, or a verified stream connection with its token (`SecureListener`); set before
    /// `start`.
    public var handshakeDeadline: Duration = .seconds(5)
    /// How long a continuation stream may wait on its peer — a read with nothing arriving, a
    /// write the peer does not take — before both streams fail with an error.
    public var streamIdleTimeout: Duration = .seconds(30)
    /// How long the continuing side waits for the originating device to accept a stream
    /// connection (its acceptance byte) before `continuationStreams()` fails.
    public var streamAcceptanceTimeout: Duration = .seconds(10)
    /// How many continuation stream grants (`OpenStreams`) may wait for their connection per
    /// peer device, and in all; past either, a new grant replaces the oldest.
    public var maximumStreamGrantsPerPeer = 4
    /// The cap on waiting stream grants for all peers together (see
    /// `maximumStreamGrantsPerPeer`).
    public var maximumStreamGrants = 64
    private var fallbackDials: [PeerAddress: LoopSource] = [:]
    private var redials: [PeerAddress: LoopSource] = [:]
    private var backoff: [PeerAddress: Duration] = [:]
    private var sequence: UInt64 = 0
    /// The devices (certificate serials) that fetched the payload of the advertised sequence:
    /// only they may say they continued it. At most `maxFetchers`, reset with each new sequence.
    private var fetchers: (sequence: UInt64, serials: Set<String>) = (0, [])
    static let maxFetchers = 64
    /// Watches the identity's `revocations` and `discovery.key`, so a list copied in takes
    /// effect at once.
    private var identityWatches: [FileWatch] = []
    /// How discovery was started (publishing or not), to start it again with a new key.
    private var discoveryStart: Bool?
    /// True while the node asks its peers for the discovery key the list it holds names.
    private var askingForDiscoveryKey = false
    /// The sequence of the activity last fetched from each device (one entry per device, by identifier).
    private var fetched: [String: UInt64] = [:]
    /// What this device offers its peers and where their activities go: the app the node is
    /// embedded in, or the agent's joined apps.
    public let provider: any ActivityProvider
    /// The generation of the activity advertised last (`ProvidedActivity.generation`).
    private var advertisedGeneration: UInt64?
    /// The activity advertised now, as the provider gave it.
    var providedActivity: ProvidedActivity?
    var advertised: NearbyActivity?
    let log = PeerLogger(label: "baton.continuity")
    /// Peers whose first dial has not finished (linked and asked, or failed).
    private var firstDialsPending: Set<PeerAddress> = []
    /// True until discovery's first browse has settled (or discovery gave up).
    private var discoveryUnsettled = false
    /// Called once, when the first round of dials has finished: every static peer, and every
    /// peer discovery found before its first browse settled, has been dialed once and each dial
    /// has finished, linked (its current activity known) or failed.
    public var onFirstDialsFinished: (@MainActor () -> Void)?

    /// How a node uses DNS-SD (avahi-daemon).
    public enum DiscoveryMode: Sendable {
        /// Publish and browse when listening beyond loopback; off on loopback.
        case automatic
        /// No DNS-SD: only the static peers are dialed, and nothing is published.
        case off
        /// Browse and dial what is found, without publishing: for a tool such as `baton nearby`.
        case browseOnly
        /// Publish and browse whatever the listening address, loopback included (tests, and
        /// hosts whose only interface is a private one).
        case publishAndBrowse
    }

    /// The port this node listens on, once started: the one it publishes and grants streams
    /// on now (after a port rotation, the previous one still accepts for
    /// `listenerRotationGrace`).
    public var port: UInt16? { listener?.port }
    /// The address this node listens on, once started: the one given to `start`, or `0.0.0.0`
    /// where every interface fell back to IPv4 (a system without IPv6).
    public var listeningHost: String? { listener?.host }
    /// Where discovery stands; nil when the node does not use it.
    public var discoveryState: ServiceDiscovery.State? { discovery?.state }
    /// Why discovery is off when the node runs without it (set by `start`).
    private var discoveryOff: DiscoveryStatus?

    /// Whether the group's devices find this one and it finds them, and if not, why.
    public var discoveryStatus: DiscoveryStatus {
        guard listener != nil else { return .stopped }
        if let discovery {
            switch discovery.state {
            case .running: return discovery.hasNoInterface ? .noNetworkInterface : .running(publishing: discoveryStart ?? false)
            case .waitingForDaemon: return .noDaemon
            case .noDaemon: return .noDaemon
            case .failed(let reason): return .failed(reason)
            case .stopped: return .stopped
            }
        }
        if let discoveryOff { return discoveryOff }
        if discoveryStart != nil { return identity.discoveryKey == nil ? .noDiscoveryKey : .waitingForNewKey }
        return .turnedOff
    }

    /// The devices linked now: name, address, since when and who dialed, in name order.
    public var linkStatus: [LinkStatus] {
        links.values.map { link in
            LinkStatus(device: name(of: link), address: link.dialed?.host ?? link.host ?? "?", since: link.since,
                       dialedByThisDevice: link.dialed != nil)
        }.sorted { $0.device < $1.device }
    }

    /// The latest failures to reach or accept a device, newest last (at most
    /// `RecentFailures.capacity`).
    public private(set) var recentFailures = RecentFailures()
    /// The names of the devices linked now, as the group's list held gives them.
    public var connectedPeers: [String] { links.values.map(name(of:)).sorted() }

    /// The name shown for `link`'s device: its name in the group's list held, or a short form
    /// of its identifier (`RevocationList.deviceName(of:)`).
    func name(of link: PeerLink) -> String { identity.deviceName(of: link.id) }

    /// The link of the device shown as `device` (a name `name(of:)` gives, as in
    /// `NearbyActivity.device`), or of the device with that identifier.
    func link(shownAs device: String) -> PeerLink? {
        if let link = links[device] { return link }
        return links.values.sorted { $0.id < $1.id }.first {
            name(of: $0) == device || OpaqueIdentifier.shortForm($0.id) == device
        }
    }

    /// A node for `identity`. With `identityDirectory`, the node watches the revocation list
    /// and discovery key there (and reads the list again before every new connection and every
    /// call it answers): a revocation copied in cuts the revoked devices' links at once.
    /// `provider` is what the device offers and where the peers' activities go; by default the
    /// app the node is embedded in (`ApplicationActivityProvider`).
    public init(identity: DeviceIdentity, identityDirectory: URL? = nil, staticPeers: [PeerAddress] = [],
                provider: (any ActivityProvider)? = nil) throws {
        self.identity = identity
        self.identityDirectory = identityDirectory
        revocationsFile = identityDirectory?.appendingPathComponent("revocations")
        self.staticPeers = staticPeers
        self.provider = provider ?? ApplicationActivityProvider()
        credential = try TLSCredential(identity: identity)
    }

    /// The node of this device, from `$XDG_CONFIG_HOME/baton`: its identity and static peers.
    public convenience init(configuration directory: ConfigDirectory = .standard()) throws {
        try self.init(identity: try DeviceIdentity.load(from: directory.deviceDirectory),
                      identityDirectory: directory.deviceDirectory, staticPeers: PeerAddress.configured(in: directory))
    }

    /// Listens on `host:port` (by default every interface, IPv6 and IPv4, on any free port:
    /// `PeerAddress.network`), dials the static peers and starts advertising what the provider
    /// offers. Strangers are kept out by the admission gate and mutual TLS, not by the address;
    /// pass `"127.0.0.1"` for a device only this machine reaches. With the default provider, the app's
    /// `nearbySource` becomes this node.
    ///
    /// With discovery (by default: when `host` is not a loopback address), the node also
    /// publishes itself and browses for the group's devices through avahi-daemon. It needs the
    /// identity's discovery key; without a daemon it says so once and goes on with the static
    /// peers. A node that publishes and was given port 0 moves to a fresh random port at each
    /// rotation of its published name (`discoveryRotation`, `listenerRotationGrace`); a port
    /// given stays.
    public func start(host: String = PeerAddress.allInterfaces, port: UInt16 = 0, discovery mode: DiscoveryMode = .automatic) throws {
        let listener = try openListener(host: host, port: port)
        self.listener = listener
        rotatingHost = port == 0 ? host : nil
        provider.advertisementDidChange = { [weak self] in self?.readvertise() }
        provider.nodeDidStart(self)
        readvertise()
        watchIdentityFiles()
        Task { @MainActor [weak self] in await self?.acceptLoop(listener) }
        firstDialsPending = Set(staticPeers)
        for peer in staticPeers { dial(peer) }
        discoveryOff = nil
        switch mode {
        case .automatic:
            if PeerAddress.isLoopback(host) { discoveryOff = .loopbackOnly } else { startDiscovery(port: listener.port, publishes: true) }
        case .off: discoveryOff = .turnedOff
        case .browseOnly: startDiscovery(port: listener.port, publishes: false)
        case .publishAndBrowse: startDiscovery(port: listener.port, publishes: true)
        }
        MainLoop.idle { [weak self] in self?.checkFirstDials() }
    }

    private func firstDialFinished(_ address: PeerAddress?) {
        guard let address, firstDialsPending.remove(address) != nil else { return }
        checkFirstDials()
    }

    private func checkFirstDials() {
        guard firstDialsPending.isEmpty, !discoveryUnsettled, let callback = onFirstDialsFinished else { return }
        onFirstDialsFinished = nil
        callback()
    }

    private func startDiscovery(port: UInt16, publishes: Bool) {
        discoveryStart = publishes
        guard let key = identity.discoveryKey else {
            return log.error("no discovery key beside this device's identity (issued before discovery existed?): using the static peers only, without the admission gate (only devices without a key either can link with it)")
        }
        guard identity.discoveryKeyIsCurrent else {
            // Fail closed: the key held is one a revoked device knows too.
            return log.notice("discovery waits for the group's new discovery key (revocation list \(identity.revocations.sequence))")
        }
        let discovery = ServiceDiscovery(key: key, port: port, publishes: publishes, rotation: discoveryRotation, found: { [weak self] peer in
            self?.found(peer)
        }, lost: { [weak self] address in
            self?.discovered.remove(address)
        })
        if publishes { discovery.portAtRotation = { [weak self] in self?.rotateListener() } }
        discovery.onSettled = { [weak self] in
            self?.discoveryUnsettled = false
            MainLoop.idle { [weak self] in self?.checkFirstDials() }  // never from inside start()
        }
        self.discovery = discovery
        discoveryUnsettled = true
        discovery.start()
    }

    /// A listener on `host:port` with the node's deadline, and the caps of the listener in use.
    private func openListener(host: String, port: UInt16) throws -> SecureListener {
        let opened = try SecureListener(identity: identity, credential: credential, host: host, port: port)
        opened.handshakeDeadline = handshakeDeadline
        if let current = listener {
            opened.maximumUnauthenticated = current.maximumUnauthenticated
            opened.maximumUnauthenticatedPerAddress = current.maximumUnauthenticatedPerAddress
            opened.maximumHandshakesInWorkers = current.maximumHandshakesInWorkers
            opened.stalledHandshakeAge = current.stalledHandshakeAge
        }
        return opened
    }

    /// At a rotation of the published name, when the port was not given: opens a listener on
    /// a fresh random port and returns that port, to publish (nil: the port stays). The
    /// listener it replaces accepts for `listenerRotationGrace` more, then stops listening (its
    /// port refuses connections) while the connections it accepted finish within their
    /// `handshakeDeadline`, then closes. Links and stream connections already made do not
    /// depend on a listener and stay.
    func rotateListener() -> UInt16? {
        guard let host = rotatingHost, let old = listener else { return nil }
        let fresh: SecureListener
        do { fresh = try openListener(host: host, port: 0) } catch {
            log.error("cannot listen on a fresh port; port \(old.port) stays: \(error)")
            return nil
        }
        listener = fresh
        Task { @MainActor [weak self] in await self?.acceptLoop(fresh) }
        let timer = MainLoop.after(listenerRotationGrace) { [weak self] in self?.stopListening(old) }
        previousListeners.append((old, timer))
        log.info("rotated to port \(fresh.port); port \(old.port) accepts for \(listenerRotationGrace) more")
        return fresh.port
    }

    /// The grace of a replaced listener is over: its port refuses connections from now on; it
    /// closes once the connections it accepted are past their deadline.
    private func stopListening(_ old: SecureListener) {
        guard let index = previousListeners.firstIndex(where: { $0.listener === old }) else { return }
        old.stopListening()
        log.info("stopped listening on port \(old.port)")
        previousListeners[index].timer = MainLoop.after(handshakeDeadline + .seconds(1)) { [weak self] in
            guard let self, let index = self.previousListeners.firstIndex(where: { $0.listener === old }) else { return }
            self.previousListeners.remove(at: index)
            old.close()
        }
    }

    /// Whether `listener` is one of the node's (the current one, or one in its grace).
    private func accepts(on listener: SecureListener) -> Bool {
        self.listener === listener || previousListeners.contains { $0.listener === listener }
    }


    /// A device of the group published itself: dial it, unless a device at that IP address
    /// is linked already (tokens are blinded, so the IP is all that tells who published; a
    /// rotation then costs no new connection). If that device is the one to dial, wait for it,
    /// and dial only if no link from it has come after `discoveryDialGrace` (it may not be able
    /// to reach this device).
    private func found(_ peer: FoundPeer) {
        let address = peer.address
        discovered.insert(address)
        guard !isLinked(to: address) else { return }
        if peer.dialsUs {
            guard fallbackDials[address] == nil else { return }
            fallbackDials[address] = MainLoop.after(discoveryDialGrace) { [weak self] in
                guard let self else { return }
                self.fallbackDials[address] = nil
                if self.discovered.contains(address), !self.isLinked(to: address) { self.dial(address) }
            }
            return
        }
        if discoveryUnsettled { firstDialsPending.insert(address) }
        dial(address)
    }

    private func isLinked(to address: PeerAddress) -> Bool {
        links.values.contains { $0.dialed == address || $0.host == address.host }
    }

    /// Stops listening, dialing and discovery, and closes every link.
    public func stop() {
        listener?.close()
        listener = nil
        for (previous, timer) in previousListeners {
            timer.cancel()
            previous.close()
        }
        previousListeners = []
        rotatingHost = nil
        discovery?.stop()
        discovery = nil
        discoveryStart = nil
        for watch in identityWatches { watch.cancel() }
        identityWatches = []
        discovered = []
        for timer in fallbackDials.values { timer.cancel() }
        fallbackDials = [:]
        discoveryUnsettled = false
        provider.advertisementDidChange = nil
        for timer in redials.values { timer.cancel() }
        redials = [:]
        for grant in streamGrants { grant.expiry.cancel() }
        streamGrants = []
        for link in links.values { retire(link) }
        links = [:]
        publishNearby()
        provider.nodeDidStop(self)
    }

    // MARK: Links

    /// Takes each connection the listener has verified and hands it to a task of its own, so
    /// no peer's D-Bus set-up or token holds up the next one (the listener runs the TLS
    /// handshakes concurrently, each against its deadline). One loop per listener, until the
    /// node lets go of it.
    private func acceptLoop(_ listener: SecureListener) async {
        let fallback = listener.fallbackIdentity  // not the listener: it keeps this closure
        while accepts(on: listener) {
            do {
                let channel = try await listener.accept(identity: { [weak self] in
                    self?.currentIdentity() ?? fallback
                })
                if channel.applicationProtocol == SecureChannel.streamALPN {
                    Task { @MainActor [weak self] in await self?.acceptStreams(channel) }
                } else {
                    Task { @MainActor [weak self] in await self?.adopt(channel, dialed: nil) }
                }
            } catch {
                guard accepts(on: listener) else { return }
                refused(error)
            }
        }
    }

    /// Connections turned away at the admission gate (not the group's devices) since the
    /// last line said so, and when that was.
    private var strangersRefused = 0
    private var strangersSaid: ContinuousClock.Instant?

    /// An incoming connection refused. One that did not pass the admission gate is a
    /// stranger (a port scan, another group): counted and said at most once a minute, so a
    /// flood fills neither the log nor the failures `baton status` shows; any other refusal is
    /// logged and kept among the recent failures.
    private func refused(_ error: any Error) {
        switch error as? TransportError {
        case .notAdmitted?, .admissionRefused?, .admissionFailed?, .admissionTimedOut?:
            strangersRefused += 1
            let now = ContinuousClock.now
            if let said = strangersSaid, now - said < .seconds(60) { return }
            strangersSaid = now
            log.notice("turned away \(strangersRefused) connection(s) that did not pass the admission gate (not the group's devices)")
            strangersRefused = 0
        default:
            recentFailures.add("refused an incoming connection: \(error)")
            log.notice("refused an incoming connection: \(error)")
        }
    }

    private func dial(_ address: PeerAddress) {
        guard listener != nil, !dialing.contains(address) else { return }
        dialing.insert(address)
        redials[address] = nil
        Task { @MainActor in
            defer { dialing.remove(address) }
            do {
                let channel = try await SecureChannel.connect(host: address.host, port: address.port,
                                                              identity: currentIdentity(), credential: credential)
                backoff[address] = nil
                await adopt(channel, dialed: address)
            } catch {
                recentFailures.add("cannot reach \(address): \(error)")
                log.info("cannot reach \(address): \(error)")
                if let error = error as? TransportError { sayUnreachableOnce(address, error) }
                scheduleRedial(address)
                firstDialFinished(address)
            }
        }
    }

    /// Devices found through DNS-SD that could not be connected to, said once each (at most
    /// `maximumSaidUnreachable` remembered).
    private var saidUnreachable: Set<String> = []
    private static let maximumSaidUnreachable = 64

    /// Once per host: a device that published itself for this group but does not answer on
    /// its port is most often behind a firewall that drops it. Said in words a person can act
    /// on; `baton status` lists the failure too.
    private func sayUnreachableOnce(_ address: PeerAddress, _ error: TransportError) {
        // No answer at all (a timeout), not a refusal: a refused connection is what a stale
        // record gets after the device moved to another port.
        guard discovered.contains(address), case .connectionFailed(let failure) = error,
              failure.domain == "g-io-error-quark", failure.code == Int32(G_IO_ERROR_TIMED_OUT.rawValue), !saidUnreachable.contains(address.host),
              saidUnreachable.count < Self.maximumSaidUnreachable else { return }
        saidUnreachable.insert(address.host)
        log.notice("a device of the group published itself at \(address) but does not answer there (\(error)): a firewall on that machine may drop TCP port \(address.port); allow batond's port there (the port moves with its published name unless Listen= gives one)")
    }

    /// Dials `address` again after a delay that doubles up to 30 s: a retry timer, not a poll.
    private func scheduleRedial(_ dialed: PeerAddress) {
        // A device found through DNS-SD may have moved to another port since (it rotates with
        // its published name): redial it where it is published now.
        let address = staticPeers.contains(dialed) || discovered.contains(dialed)
            ? dialed : discovered.first { $0.host == dialed.host } ?? dialed
        guard listener != nil, redials[address] == nil, staticPeers.contains(address) || discovered.contains(address) else { return }
        let delay = min((backoff[address] ?? .milliseconds(500)) * 2, .seconds(30))
        backoff[address] = delay
        redials[address] = MainLoop.after(delay) { [weak self] in
            self?.redials[address] = nil
            self?.dial(address)
        }
    }

    private func adopt(_ channel: SecureChannel, dialed address: PeerAddress?) async {
        defer { firstDialFinished(address) }
        let bus: PeerBus
        do { bus = try await PeerBus.open(over: channel) } catch {
            log.notice("D-Bus over the link to \(identity.deviceName(of: channel.peerIdentifier)) failed: \(error)")
            if let address { scheduleRedial(address) }
            return
        }
        guard listener != nil, channel.peerIdentifier != identity.identifier, keepsNewLink(to: channel.peerIdentifier, dialed: address != nil) else {
            bus.startMessageProcessing()
            retire(PeerLink(channel, bus: bus, service: nil, dialed: nil))
            return
        }
        if let older = links.removeValue(forKey: channel.peerIdentifier) {
            log.info("replacing the link with \(name(of: older)): both dialed, the one \(identity.deviceName(of: min(identity.identifier, older.id))) dialed stays")
            retire(older)
        }
        let service = DeviceService(handler: self, peer: DevicePeer(id: channel.peerIdentifier, serial: channel.peerSerial))
        do { try service.register(on: bus) } catch {
            log.error("cannot serve \(identity.deviceName(of: channel.peerIdentifier)): \(error)")
            retire(PeerLink(channel, bus: bus, service: nil, dialed: nil))
            return
        }
        let link = PeerLink(channel, bus: bus, service: service, dialed: address)
        links[link.id] = link
        log.info("linked with \(name(of: link)) (\(address.map { "dialed \($0)" } ?? "from \(link.host ?? "?")"))")
        bus.onCurrentChanged({ [weak self, weak link] metadata in
            guard let self, let link else { return }
            link.currentSignals += 1
            self.remoteChanged(link, metadata)
        }, malformed: { [weak self, weak link] in
            guard let link else { return }
            self?.drop(link, because: "a CurrentChanged signal of the wrong type")
        })
        bus.onRevocationsChanged({ [weak self, weak link] list in
            guard let self, let link, self.links[link.id] === link else { return }
            self.consider(revocationData: list, from: self.name(of: link))
        }, malformed: { [weak self, weak link] in
            guard let link else { return }
            self?.drop(link, because: "a RevocationsChanged signal of the wrong type")
        })
        bus.onClosed { [weak self, weak link] in
            guard let self, let link else { return }
            self.drop(link, because: "the link closed")
        }
        bus.startMessageProcessing()  // the object is exported: calls may come in now
        do {
            // The peer's list first: if newer, it names the peer (and the devices added since)
            // before its activity is shown.
            let list = try await bus.call("GetRevocations", .tuple([]), replyType: "(ay)")
            if case .tuple(let parts) = list, case .bytes(let data)? = parts.first { consider(revocationData: data, from: name(of: link)) }
            // A CurrentChanged handled while the answer was on its way is at least as new as
            // the answer (the peer answered before or after sending it, and sends another for
            // any change after answering); the answer may still be handled after it, so it is
            // then dropped rather than put back the older activity.
            let signalsBefore = link.currentSignals
            let reply = try await bus.call("GetCurrent", .tuple([]), replyType: "(a{sv})")
            guard case .tuple(let items) = reply, let metadata = items.first else { return }
            if link.currentSignals == signalsBefore { remoteChanged(link, metadata) }
            if !identity.discoveryKeyIsCurrent { askForDiscoveryKey() }
        } catch {
            drop(link, because: "asking \(name(of: link)) failed: \(error)")
        }
    }

    /// Takes a peer's signed list if the group signed it and it is newer than the one held
    /// (see `tookRevocations()`). So a revocation, or a new device's name, spreads through the
    /// group as devices meet, and at once between devices already linked.
    ///
    /// The list beside the identity is read first: one copied in whose file-watch event has
    /// not been handled yet (the peer's list can be queued ahead of it) is held before the
    /// peer's is compared, so the peer's is saved over it only if newer — never an older
    /// list over a newer one, which no device would then pass on.
    func consider(revocationData data: Data, from peer: String) {
        _ = currentIdentity()
        guard data != identity.revocationData else { return }
        var updated = identity
        do { try updated.adopt(revocationData: data) } catch TrustError.revocationListOlder {
            return
        } catch {
            return log.error("ignoring the revocation list from \(peer): \(error)")
        }
        guard updated.revocations.sequence > identity.revocations.sequence else { return }
        identity = updated
        log.info("revocation list \(updated.revocations.sequence) received from \(peer)")
        if let revocationsFile {
            do { try SecureFiles.write(data, to: revocationsFile, mode: 0o600) } catch {
                log.error("cannot save the revocation list: \(error)")
            }
        }
        tookRevocations()
    }

    /// After a newer list is held: cuts the links (and stream grants) of the devices it
    /// revokes, passes it on to every other linked device, shows the names it gives, and gets
    /// the discovery key it names.
    private func tookRevocations() {
        let revoked = identity.revocations.revokedSerials
        for link in links.values where revoked.contains(link.serial) {
            for grant in streamGrants where grant.peer == link.id { removeStreamGrant(grant.token) }
            drop(link, because: "it has been revoked")
        }
        publishNearby()
        for link in links.values { link.bus.emitRevocationsChanged(identity.revocationData) }
        if !identity.discoveryKeyIsCurrent {
            takeDiscoveryKeyFromDisk()
            if !identity.discoveryKeyIsCurrent {
                discovery?.stop()  // fail closed until the new key arrives
                discovery = nil
                if discoveryUnsettled {
                    discoveryUnsettled = false
                    MainLoop.idle { [weak self] in self?.checkFirstDials() }
                }
                askForDiscoveryKey()
            }
        }
    }

    /// Watches `revocations` and `discovery.key` beside the identity.
    private func watchIdentityFiles() {
        guard let directory = identityDirectory, identityWatches.isEmpty else { return }
        for file in ["revocations", "discovery.key"] {
            do {
                identityWatches.append(try FileWatch(directory.appendingPathComponent(file)) { [weak self] in
                    self?.reloadIdentityFiles()
                })
            } catch {
                log.error("cannot watch \(directory.path)/\(file); it is read again at each connection and call: \(error)")
            }
        }
    }

    /// Reads the identity's `revocations` and `discovery.key` again now: a list written beside
    /// the identity (as pairing does) is held at once, without waiting for the file watch.
    public func rereadIdentityFiles() { reloadIdentityFiles() }

    private func reloadIdentityFiles() {
        _ = currentIdentity()
        if !identity.discoveryKeyIsCurrent { takeDiscoveryKeyFromDisk() }
    }

    /// Takes `discovery.key` from the identity's folder if the list held names it.
    private func takeDiscoveryKeyFromDisk() {
        guard let directory = identityDirectory,
              let bytes = try? SecureFiles.readPrivate(directory.appendingPathComponent("discovery.key")),
              (try? identity.adopt(discoveryKey: bytes)) != nil else { return }
        log.info("discovery key of revocation list \(identity.revocations.sequence) read from \(directory.path)")
        savePreviousDiscoveryKey()
        restartDiscovery()
    }

    /// Writes the key held before the one just adopted beside the identity
    /// (`discovery.key.previous`), so that after a restart this device still proves it to a
    /// device that missed the rotation.
    private func savePreviousDiscoveryKey() {
        guard let directory = identityDirectory, let previous = identity.previousDiscoveryKey else { return }
        do { try SecureFiles.write(previous.bytes, to: directory.appendingPathComponent("discovery.key.previous"), mode: 0o600) } catch {
            log.error("cannot save the previous discovery key: \(error)")
        }
    }

    /// Asks the linked devices, one after another, for the discovery key the list held names,
    /// and takes the first that matches the list's commitment: a peer cannot hand over another.
    private func askForDiscoveryKey() {
        guard !askingForDiscoveryKey, !identity.discoveryKeyIsCurrent else { return }
        askingForDiscoveryKey = true
        Task { @MainActor [weak self] in
            defer { self?.askingForDiscoveryKey = false }
            guard let self else { return }
            for link in self.links.values.sorted(by: { $0.id < $1.id }) where !self.identity.discoveryKeyIsCurrent {
                do {
                    let reply = try await link.bus.call("GetDiscoveryKey", .tuple([]), replyType: "(ay)")
                    // A list or key copied in beside the identity while the call was out is
                    // taken first, so the peer's key (for the list held when asked) never
                    // replaces a newer one on disk.
                    self.reloadIdentityFiles()
                    guard !self.identity.discoveryKeyIsCurrent else { break }
                    guard case .tuple(let items) = reply, case .bytes(let bytes)? = items.first else { continue }
                    try self.identity.adopt(discoveryKey: bytes)
                    if let directory = self.identityDirectory {
                        try SecureFiles.write(bytes, to: directory.appendingPathComponent("discovery.key"), mode: 0o600)
                    }
                    self.savePreviousDiscoveryKey()
                    self.log.info("discovery key of revocation list \(self.identity.revocations.sequence) received from \(self.name(of: link))")
                    self.restartDiscovery()
                } catch {
                    self.log.info("\(self.name(of: link)) has no discovery key for revocation list \(self.identity.revocations.sequence): \(error)")
                }
            }
        }
    }

    /// Starts discovery again with the key held now (a new name, a new token, and a new port
    /// when it rotates).
    private func restartDiscovery() {
        guard let publishes = discoveryStart, let current = listener else { return }
        discovery?.stop()
        discovery = nil
        let port = publishes ? rotateListener() ?? current.port : current.port
        startDiscovery(port: port, publishes: publishes)
    }

    private func remoteChanged(_ link: PeerLink, _ metadata: Variant) {
        guard links[link.id] === link else { return }
        do {
            link.remote = try DeviceInterface.activity(from: metadata, device: link.id)  // shown by name in publishNearby()
            publishNearby()
        } catch {
            drop(link, because: "\(error)")
        }
    }

    /// One link per device (`peer` is its identifier). When two devices dial each other at
    /// once, both keep the connection dialed by the device whose identifier sorts first, so
    /// they agree without talking (identifiers, unlike the names shown, do not change with the
    /// list each holds); otherwise the link that came first stays.
    private func keepsNewLink(to peer: String, dialed: Bool) -> Bool {
        guard let existing = links[peer] else { return true }
        let newDialer = dialed ? identity.identifier : peer
        let oldDialer = existing.dialed != nil ? identity.identifier : peer
        return newDialer < oldDialer
    }

    private func drop(_ link: PeerLink, because reason: String) {
        guard links[link.id] === link else { return }
        log.info("dropped \(name(of: link)): \(reason)")
        recentFailures.add("lost the link with \(name(of: link)): \(reason)")
        links[link.id] = nil
        retire(link)
        publishNearby()
        if let address = link.dialed { scheduleRedial(address) }
    }

    /// Closes `link` now but releases it (unsubscribing its signals, unexporting its object)
    /// only from a low-priority idle source, after GDBus has delivered whatever it had queued
    /// for it: GLib 2.74 can deliver a queued signal or call to a subscription freed meanwhile.
    private func retire(_ link: PeerLink) {
        link.bus.close()
        retired.append(link)
        MainLoop.idle(priority: .low) { [weak self] in self?.retired.removeAll { $0 === link } }
    }

    /// Hands the peers' activities to the app, each with its device's name from the list held.
    private func publishNearby() {
        let nearby = links.values.compactMap { link in
            link.remote.map { activity in
                var shown = activity
                shown.device = name(of: link)
                return shown
            }
        }
        provider.nearbyActivitiesDidChange(nearby.sorted { $0.device < $1.device })
    }

    /// The identity with the newest revocation list on disk, if it changed (and then the
    /// links of the devices it revokes are cut at once).
    func currentIdentity() -> DeviceIdentity {
        if let revocationsFile, let data = try? SecureFiles.read(revocationsFile), data != identity.revocationData {
            let before = identity.revocations.sequence
            do { try identity.adopt(revocationData: data) } catch TrustError.revocationListOlder {
                // an older copy written back: the newer list held stays
            } catch {
                log.error("ignoring \(revocationsFile.path): \(error)")
            }
            if identity.revocations.sequence > before {
                log.info("revocation list \(identity.revocations.sequence) read from \(revocationsFile.deletingLastPathComponent().path)")
                tookRevocations()
            }
        }
        return identity
    }

    // MARK: Advertising

    /// Offers the provider's activity (metadata only) to every peer, if it changed. A new
    /// activity object (a new generation) gets a new sequence number; a save that changes its
    /// title keeps it.
    private func readvertise() {
        var now: NearbyActivity?
        let offered = provider.advertisement()
        if let activity = offered {
            if activity.generation != advertisedGeneration {
                sequence += 1
                advertisedGeneration = activity.generation
            }
            now = NearbyActivity(device: identity.name, sequence: sequence, activityType: activity.activityType,
                                 title: activity.title.map(DeviceInterface.clipped), appID: activity.appID,
                                 teamIdentifier: activity.teamIdentifier,
                                 webpageURL: activity.webpageURL)
        }
        providedActivity = offered
        guard now != advertised else { return }
        advertised = now
        let metadata = DeviceInterface.metadata(now)
        for link in links.values { link.bus.emitCurrentChanged(metadata) }
    }

    func currentActivity() -> NearbyActivity? { advertised }

    func refusal(of peer: DevicePeer) -> String? {
        guard currentIdentity().revocations.revokedSerials.contains(peer.serial) else { return nil }
        if let link = links[peer.id], link.serial == peer.serial {
            MainLoop.idle { [weak self] in self?.drop(link, because: "it has been revoked") }  // after the refusal is sent
        }
        return "\(identity.deviceName(of: peer.id)) has been revoked"
    }

    func payload(sequence requested: UInt64, for peer: DevicePeer) async throws(DeviceServiceError) -> Data {
        guard let advertised, advertised.sequence == requested, let activity = providedActivity else {
            throw .notCurrent
        }
        if fetchers.sequence != requested { fetchers = (requested, []) }
        if fetchers.serials.count < Self.maxFetchers { fetchers.serials.insert(peer.serial) }
        do {
            return try await provider.payload(of: activity)
        } catch {
            switch error {
            case .notCurrent: throw .notCurrent
            case .tooLarge(let reason): throw .tooLarge(reason)
            case .failed(let reason): throw .failed(reason)
            }
        }
    }

    func revocationList() -> Data { identity.revocationData }

    func discoveryKey() throws(DeviceServiceError) -> Data {
        guard identity.discoveryKeyIsCurrent, let key = identity.discoveryKey else {
            throw .failed("no discovery key for revocation list \(identity.revocations.sequence)")
        }
        return key.bytes
    }

    /// Honoured only from a device that fetched that sequence's payload: another group device
    /// cannot make this app drop its activity.
    func continued(sequence: UInt64, by peer: DevicePeer) async throws(DeviceServiceError) {
        guard fetchers.sequence == sequence, fetchers.serials.contains(peer.serial) else {
            log.notice("ignoring Continued(\(sequence)) from \(identity.deviceName(of: peer.id)): it did not fetch that activity")
            throw .refused("\(identity.deviceName(of: peer.id)) did not fetch activity \(sequence)")
        }
        guard advertised?.sequence == sequence, let activity = providedActivity else { return }
        log.debug("\(identity.deviceName(of: peer.id)) continued \(activity.activityType)")
        await provider.continued(activity)
    }

    // MARK: Continuing

    public func fetchPayload(of activity: NearbyActivity) async throws -> Data {
        let (reply, link) = try await callDevice(activity.device, "FetchPayload", .tuple([.uint64(activity.sequence)]), replyType: "(ay)")
        guard case .tuple(let items) = reply, case .bytes(let payload)? = items.first else {
            throw CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey: "malformed FetchPayload reply"])
        }
        fetched[link.id] = activity.sequence
        return payload
    }

    /// Tells `activity`'s device it was continued and returns with its reply: the device
    /// answers once its activity's delegate has been told. A device honours that only from a
    /// device that fetched the activity, so for one continued without its payload (in the web
    /// browser) `FetchPayload` is sent first without asking for a reply: the device saves the
    /// activity and records the fetch, sends no payload, and — GDBus keeps a connection's
    /// messages in order — sees it before `Continued`.
    public func confirmContinued(_ activity: NearbyActivity) async throws {
        if let link = link(shownAs: activity.device), fetched[link.id] != activity.sequence {
            do {
                try link.bus.callWithoutReply("FetchPayload", .tuple([.uint64(activity.sequence)]))
                fetched[link.id] = activity.sequence
            } catch {
                log.notice("could not ask \(activity.device) for its activity before saying it was continued: \(error)")
            }
        }
        _ = try await callDevice(activity.device, "Continued", .tuple([.uint64(activity.sequence)]), replyType: "()")
    }

    /// Calls `method` of `device`'s `org.baton.Device1` over its link (`device` as shown in
    /// `NearbyActivity.device`; see `link(shownAs:)`); returns the reply and
    /// the link that answered. Failures are Handoff codes: `NoStreams` → `.featureUnsupported`,
    /// `TooLarge` → `.userActivityHandoffUserInfoTooLarge`, `NotCurrent` and `Failed` →
    /// `.userActivityHandoffFailed`, a D-Bus timeout → `.userActivityRemoteApplicationTimedOut`,
    /// no link or a broken one → `.userActivityConnectionUnavailable`.
    ///
    /// When both devices dialed at once, the link can be replaced while a call is out; the call
    /// is then made again over the link that stays (every method is safe to repeat).
    func callDevice(_ device: String, _ method: String, _ parameters: Variant,
                    replyType: String) async throws -> (Variant, PeerLink) {
        guard let link = link(shownAs: device) else {
            throw CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "\(device) is not connected"])
        }
        do {
            return (try await Self.call(method, parameters, replyType: replyType, over: link), link)
        } catch let error as CocoaError where error.code == .userActivityConnectionUnavailable {
            guard let replacement = links[link.id], replacement !== link else { throw error }
            return (try await Self.call(method, parameters, replyType: replyType, over: replacement), replacement)
        }
    }

    private static func call(_ method: String, _ parameters: Variant, replyType: String, over link: PeerLink) async throws -> Variant {
        do {
            return try await link.bus.call(method, parameters, replyType: replyType)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw handoffError(for: error)
        }
    }

    /// The Handoff code for a failed call to a peer (see `callDevice`), decided from the
    /// error's type: the D-Bus error name the peer answered with, GIO's error code, or a
    /// reply that broke the protocol. Never from the message's text.
    nonisolated static func handoffError(for error: any Error) -> CocoaError {
        let code: CocoaError.Code
        switch error {
        case let error as GLibError:
            switch error.remoteDBusErrorName {
            case DeviceInterface.ErrorName.noStreams?: code = .featureUnsupported
            case DeviceInterface.ErrorName.tooLarge?: code = .userActivityHandoffUserInfoTooLarge
            case DeviceInterface.ErrorName.notCurrent?, DeviceInterface.ErrorName.failed?, DeviceInterface.ErrorName.refused?:
                code = .userActivityHandoffFailed
            case .some: code = .userActivityHandoffFailed  // another D-Bus error: the peer answered, but not with this
            case nil:
                if error.isIOError(G_IO_ERROR_TIMED_OUT) {
                    code = .userActivityRemoteApplicationTimedOut
                } else if error.isIOError(G_IO_ERROR_INVALID_ARGUMENT) {
                    code = .userActivityHandoffFailed  // GDBus: the reply is not of the type asked for
                } else {
                    code = .userActivityConnectionUnavailable
                }
            }
            return CocoaError(code, userInfo: [NSLocalizedDescriptionKey: error.description])
        case let error as PeerProtocolError:
            return CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey: error.description])
        case let error as CocoaError:
            return error
        default:
            return CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
        }
    }
}

/// One linked peer device.
@MainActor
final class PeerLink {
    /// The identifier the peer's certificate carries (see `ContinuityNode.name(of:)` for its name).
    let id: String
    /// The serial number of the peer's certificate.
    let serial: String
    let bus: PeerBus
    let service: DeviceService?
    let dialed: PeerAddress?
    /// The peer's IP address.
    let host: String?
    var remote: NearbyActivity?
    /// How many CurrentChanged signals from the peer were handled (see `adopt`).
    var currentSignals = 0
    /// When the link came up (`ContinuityNode.linkStatus`).
    let since = Date()

    init(_ channel: SecureChannel, bus: PeerBus, service: DeviceService?, dialed: PeerAddress?) {
        id = channel.peerIdentifier
        serial = channel.peerSerial
        host = channel.peerHost
        self.bus = bus
        self.service = service
        self.dialed = dialed
    }
}
