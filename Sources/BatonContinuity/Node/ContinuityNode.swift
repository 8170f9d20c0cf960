import Baton
import BatonLoop
import Foundation

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
///
/// The node is a facade over parts, each holding its own state: `TrustSync` (the identity,
/// its list and discovery key, the files beside it), `DiscoveryKeyFetch`, `LinkTable`,
/// `NodeListeners` (listening and port rotation), `Dialer`, `NodeDiscovery`, `Advertiser`,
/// `PayloadServer` (what peers are answered) and `PeerCalls` (calls to peers); continuation
/// streams ride each link (`LinkStreams`).
@MainActor
public final class ContinuityNode: NearbyActivitySource {
    let trust: TrustSync
    let links: LinkTable
    let listeners: NodeListeners
    let dialer: Dialer
    let discovery: NodeDiscovery
    let keyFetch: DiscoveryKeyFetch
    let advertiser: Advertiser
    let server: PayloadServer
    let calls: PeerCalls
    /// Links beyond the LAN (ICE through the group's broker), when the node has an identity
    /// folder (the broker is shown the certificate files there); runs while the list held
    /// carries relay settings with a broker.
    let relay: RelayConnector?
    let credential: TLSCredential
    let log: PeerLogger
    /// What this device offers its peers and where their activities go: the app the node is
    /// embedded in, or the agent's joined apps.
    public let provider: any ActivityProvider
    /// What the node did and refused, as typed events (`DiagnosticEvent`): linked, unlinked,
    /// refused with the reason, listening, lists and keys adopted. Its log says the same in
    /// words for people; tools and tests observe these.
    public let diagnostics: Diagnostics
    /// What of the nearby list came and went, published to `diagnostics`.
    private let nearbyChanges: NearbyChanges

    /// This device's identity: its certificate and key, the group's certificate, and the
    /// revocation list it holds now (replaced when a newer list is copied in or relayed).
    public var identity: DeviceIdentity { trust.identity }
    /// The peers this node dials.
    public var staticPeers: [PeerAddress] { dialer.staticPeers }
    /// How often the DNS-SD name and group token are renewed — and the listening port, when
    /// the node was started on port 0 and publishes.
    public var discoveryRotation: Duration {
        get { discovery.rotation }
        set { discovery.rotation = newValue }
    }
    /// How long a listener replaced at a port rotation still accepts connections: a device
    /// that resolved the old record just before can still dial it (after up to its
    /// `discoveryDialGrace`). Then
    /// its port refuses connections; those it accepted by then finish within their
    /// `handshakeDeadline`.
    public var listenerRotationGrace: Duration {
        get { listeners.rotationGrace }
        set { listeners.rotationGrace = newValue }
    }
    /// How long a node waits for a found device that is the one to dial before dialing it.
    public var discoveryDialGrace: Duration {
        get { dialer.discoveryDialGrace }
        set { dialer.discoveryDialGrace = newValue }
    }
    /// How long an incoming connection has, from accept, to become a verified link with D-Bus
    /// set up (`SecureListener`); set before
    /// `start`.
    public var handshakeDeadline: Duration {
        get { listeners.handshakeDeadline }
        set { listeners.handshakeDeadline = newValue }
    }
    /// How long a continuation stream may wait on its peer — a read with nothing arriving, a
    /// write the peer gives no room for — before the stream is reset and both sides' reads and
    /// writes fail with an error.
    public var streamIdleTimeout: Duration {
        get { server.streamIdleTimeout }
        set { server.streamIdleTimeout = newValue }
    }
    /// How long the continuing side waits for the originating device to answer `OpenStreams`
    /// before the streams fail with `userActivityRemoteApplicationTimedOut`.
    public var streamAcceptanceTimeout: Duration = .seconds(10)
    /// Called once, when the first round of dials has finished: every static peer, and every
    /// peer discovery found before its first browse settled, has been dialed once and each dial
    /// has finished, linked (its current activity known) or failed.
    public var onFirstDialsFinished: (@MainActor () -> Void)? {
        get { dialer.onFirstDialsFinished }
        set { dialer.onFirstDialsFinished = newValue }
    }

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

    /// The port this node listens on, once started: the one it publishes now (after a port rotation, the previous one still accepts for
    /// `listenerRotationGrace`).
    public var port: UInt16? { listeners.current?.port }
    /// The address this node listens on, once started: the one given to `start`, or `0.0.0.0`
    /// where every interface fell back to IPv4 (a system without IPv6).
    public var listeningHost: String? { listeners.current?.host }
    /// Where discovery stands; nil when the node does not use it.
    public var discoveryState: ServiceDiscovery.State? { discovery.discovery?.state }
    /// Whether the group's devices find this one and it finds them, and if not, why.
    public var discoveryStatus: DiscoveryStatus { discovery.status }
    /// The devices linked now: name, address, since when and who dialed, in name order.
    public var linkStatus: [LinkStatus] { links.status }
    /// The latest failures to reach or accept a device, newest last (at most
    /// `RecentFailures.capacity`).
    public private(set) var recentFailures = RecentFailures()
    /// The names of the devices linked now, as the group's list held gives them.
    public var connectedPeers: [String] { links.all.map(links.name(of:)).sorted() }

    /// A node for `identity`. With `identityDirectory`, the node watches the revocation list
    /// and discovery key there (and looks at the list again before every new connection and
    /// every call it answers, reading it only if it changed): a revocation copied in cuts the
    /// revoked devices' links at once. `provider` is what the device offers and where the
    /// peers' activities go; by default the app the node is embedded in
    /// (`ApplicationActivityProvider`). `avahi` is the process's client of avahi-daemon, made by
    /// whoever owns the loop and handed to everything that browses or publishes (with none,
    /// the node makes a client of its own).
    public init(identity: DeviceIdentity, identityDirectory: URL? = nil, staticPeers: [PeerAddress] = [],
                provider: (any ActivityProvider)? = nil, avahi: AvahiConnection? = nil) throws {
        let provider = provider ?? ApplicationActivityProvider()
        let log = PeerLogger(label: "baton.continuity")
        let credential = try TLSCredential(identity: identity)
        let trust = TrustSync(identity: identity, directory: identityDirectory, log: log)
        let diagnostics = Diagnostics()
        let listeners = NodeListeners(trust: trust, credential: credential, log: log, diagnostics: diagnostics)
        let isRunning: @MainActor () -> Bool = { [weak listeners] in listeners?.current != nil }
        let links = LinkTable(trust: trust, log: log, isRunning: isRunning)
        let dialer = Dialer(staticPeers: staticPeers, trust: trust, credential: credential, links: links, log: log,
                            isRunning: isRunning)
        let advertiser = Advertiser(provider: provider, trust: trust, links: links)
        self.provider = provider
        self.diagnostics = diagnostics
        nearbyChanges = NearbyChanges(diagnostics: diagnostics)
        self.log = log
        self.credential = credential
        self.trust = trust
        self.listeners = listeners
        self.links = links
        self.dialer = dialer
        self.advertiser = advertiser
        discovery = NodeDiscovery(trust: trust, listeners: listeners, dialer: dialer, log: log,
                                  avahi: avahi ?? AvahiConnection(), diagnostics: diagnostics)
        keyFetch = DiscoveryKeyFetch(trust: trust, links: links, log: log, diagnostics: diagnostics)
        server = PayloadServer(trust: trust, links: links, advertiser: advertiser,
                               provider: provider, log: log, diagnostics: diagnostics)
        calls = PeerCalls(links: links, log: log)
        relay = identityDirectory.map { folder in
            RelayConnector(identity: { [weak trust] in trust?.identity ?? identity }, identityFolder: folder, credential: credential,
                           isLinked: { [weak links] device in links?[device] != nil },
                           adopt: { [weak links] channel, path in await links?.adopt(channel, dialed: nil, path: .ice(path)) ?? false },
                           diagnostics: diagnostics, log: log)
        }
        wireParts()
    }

    /// The node of this device, from `$XDG_CONFIG_HOME/baton`: its identity and static peers;
    /// `avahi` as for `init(identity:identityDirectory:staticPeers:provider:avahi:)`.
    public convenience init(configuration directory: ConfigDirectory = .standard(), avahi: AvahiConnection? = nil) throws {
        try self.init(identity: try DeviceIdentity.load(from: directory.deviceDirectory),
                      identityDirectory: directory.deviceDirectory, staticPeers: PeerAddress.configured(in: directory), avahi: avahi)
    }

    /// What each part tells the node, and what the node then asks of the others.
    private func wireParts() {
        links.handler = server
        links.events = self
        trust.onNewList = { [weak self] peer in
            guard let self else { return }
            diagnostics.publish(.revocationsAdopted(sequence: trust.identity.revocations.sequence, from: peer))
            tookRevocations()
            relay?.listChanged()
        }
        trust.onNewKey = { [weak self] peer in
            guard let self else { return }
            diagnostics.publish(.discoveryKeyAdopted(sequence: trust.identity.revocations.sequence, from: peer))
            tookDiscoveryKey()
            relay?.listChanged()
        }
        listeners.accepted = { [weak self] channel in self?.accepted(channel) }
        listeners.failed = { [weak self] failure in self?.recentFailures.add(failure) }
        dialer.failed = { [weak self] failure in self?.recentFailures.add(failure) }
        dialer.adopt = { [weak links] channel, address in await links?.adopt(channel, dialed: address) ?? true }
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
        try listeners.start(host: host, port: port)
        provider.advertisementDidChange = { [weak self] in self?.advertiser.readvertise() }
        provider.nodeDidStart(self)
        advertiser.readvertise()
        trust.watchFiles()
        dialer.onFirstRoundSettled = { [weak relay] in relay?.lanSettled() }
        relay?.start()
        dialer.start()
        discovery.start(mode, host: host)
    }

    /// Stops listening, dialing and discovery, and closes every link.
    public func stop() {
        listeners.stop()
        discovery.stop()
        trust.stopWatching()
        keyFetch.stop()
        dialer.stop()
        relay?.stop()
        provider.advertisementDidChange = nil
        links.closeAll()
        publishNearby()
        provider.nodeDidStop(self)
    }

    /// Reads the identity's `revocations` and `discovery.key` again now: a list written beside
    /// the identity (as pairing does) is held at once, without waiting for the file watch.
    public func rereadIdentityFiles() { trust.syncWithDisk() }

    /// A link a listener verified.
    private func accepted(_ channel: SecureChannel) {
        Task { @MainActor [weak links] in await links?.adopt(channel, dialed: nil) }
    }

    /// After a newer list is held: cuts the links (and their streams) of the devices it
    /// revokes, passes it on to every other linked device, shows the names it gives, and gets
    /// the discovery key it names — from beside the identity, or else from the linked devices
    /// (discovery stays off until then: the key held is one a revoked device knows too).
    private func tookRevocations() {
        let revoked = trust.identity.revocations.revokedSerials
        for link in links.all where revoked.contains(link.serial) {
            links.drop(link, because: "it has been revoked", kind: .revoked)
        }
        publishNearby()
        links.sendListToAll()
        guard !trust.identity.discoveryKeyIsCurrent else { return }
        trust.takeDiscoveryKeyFromDisk()
        guard !trust.identity.discoveryKeyIsCurrent else { return }
        discovery.stopUntilNewKey()
        keyFetch.listNeedsKey()
    }

    /// The key the list held names is held now: discovery starts again with it, and every
    /// linked device is sent the list again, so one still without the key asks for it now.
    private func tookDiscoveryKey() {
        keyFetch.stop()
        discovery.restart()
        links.sendListToAll()
    }

    /// Hands the peers' activities to the provider, each with its device's name from the list held.
    private func publishNearby() {
        let nearby = links.nearby
        provider.nearbyActivitiesDidChange(nearby)
        nearbyChanges.update(nearby)
    }

    // MARK: Continuing

    public func fetchPayload(of activity: NearbyActivity) async throws -> Data {
        do { return try await calls.fetchPayload(of: activity) } catch {
            publishFailure(of: activity, error)
            throw error
        }
    }

    /// Tells `activity`'s device it was continued and returns with its reply: the device
    /// answers once its activity's delegate has been told. A device honours that only from a
    /// device that fetched the activity, so for one continued without its payload (in the web
    /// browser) `FetchPayload` is sent first without asking for a reply: the device saves the
    /// activity and records the fetch, sends no payload, and — GDBus keeps a connection's
    /// messages in order — sees it before `Continued`.
    public func confirmContinued(_ activity: NearbyActivity) async throws {
        do { try await calls.confirmContinued(activity) } catch {
            publishFailure(of: activity, error)
            throw error
        }
        diagnostics.publish(.continued(activityType: activity.activityType, from: activity.device))
    }

    private func publishFailure(of activity: NearbyActivity, _ error: any Error) {
        guard !(error is CancellationError) else { return }
        diagnostics.publish(.continuationFailed(activityType: activity.activityType, code: Self.handoffError(for: error).code.rawValue))
    }

    // MARK: Parts reached by name (tests and the streams extension)

    var previousListeners: [(listener: SecureListener, timer: LoopSource)] { listeners.previous }
    var advertised: NearbyActivity? { advertiser.advertised }
    func rotateListener() -> UInt16? { listeners.rotate() }
    func name(of link: PeerLink) -> String { links.name(of: link) }
    func link(shownAs device: String) -> PeerLink? { links.link(shownAs: device) }
    func refusal(of peer: DevicePeer) -> String? { server.refusal(of: peer) }
    func consider(revocationData data: Data, from peer: String) { trust.consider(revocationData: data, from: peer) }
    func callDevice<Result>(_ device: String, _ call: @MainActor (PeerBus) async throws -> Result) async throws -> (Result, PeerLink) {
        try await calls.callDevice(device, call)
    }
    nonisolated static func handoffError(for error: any Error) -> CocoaError { HandoffFailure.error(for: error) }
}

extension ContinuityNode: LinkTableEvents {
    func linkCameUp(_ link: PeerLink) {
        diagnostics.publish(.linked(peer: links.name(of: link), dialed: link.dialed != nil))
        keyFetch.linkCameUp()
    }

    func linkDropped(_ link: PeerLink, because reason: String, kind: DiagnosticEvent.UnlinkReason) {
        diagnostics.publish(.unlinked(peer: links.name(of: link), reason: kind))
        recentFailures.add("lost the link with \(links.name(of: link)): \(reason)")
        publishNearby()
        dialer.linkDropped(link, kind: kind)
        relay?.linkDropped(link.id, revoked: kind == .revoked)
    }

    func nearbyChanged() { publishNearby() }

    func linkRefused(_ link: PeerLink, because reason: DiagnosticEvent.RefusalReason) {
        diagnostics.publish(.refused(from: links.name(of: link), reason: reason))
    }

    func linkIsLimited(_ link: PeerLink) {
        guard !link.limitSaid else { return }
        link.limitSaid = true
        log.notice("\(links.name(of: link)) sends activity updates faster than \(Int(link.budget.perSecond)) a second: only its latest is taken, and its link is read as slowly")
        diagnostics.publish(.peerLimited(peer: links.name(of: link), reason: .updateRate))
    }

    /// A peer's list: taken if newer (`TrustSync.consider`); the list held itself, while its
    /// key is missing, says the peer may have the key now.
    func peerSent(revocationData data: Data, from link: PeerLink) {
        if !trust.consider(revocationData: data, from: links.name(of: link)), data == trust.identity.revocationData,
           !trust.identity.discoveryKeyIsCurrent {
            keyFetch.peerSentCurrentList()
        }
    }
}
