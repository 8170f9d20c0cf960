import Baton
import BatonLoop
import CGLib
import Foundation

/// What the link table tells the node about its links.
@MainActor
protocol LinkTableEvents: AnyObject {
    /// `link` is up and its first answers are in: the peer's list and its activity.
    func linkCameUp(_ link: PeerLink)
    /// `link` was dropped (it closed, broke the protocol, or was revoked) and is out of the
    /// table.
    func linkDropped(_ link: PeerLink, because reason: String, kind: DiagnosticEvent.UnlinkReason)
    /// The activity a linked device advertises changed, or a link with one went.
    func nearbyChanged()
    /// This side closed `link` for what its device sent, or did not read.
    func linkRefused(_ link: PeerLink, because reason: DiagnosticEvent.RefusalReason)
    /// `link`'s device sends activity updates past its budget (`UpdateBudget`): it is being
    /// slowed. Told once each time it goes past, not for each update.
    func linkIsLimited(_ link: PeerLink)
    /// A linked device sent its signed list: at link-up, or in a `RevocationsChanged` signal
    /// (which a device also sends, with the list held, when it got the list's discovery key).
    func peerSent(revocationData: Data, from link: PeerLink)
}

/// The node's linked devices: the one table of links, by device identifier (the certificates'
/// common names), one link per device. It makes a link out of a verified channel (D-Bus over
/// it, `org.baton.Device1` served on it, the peer's signals followed), decides which link
/// stays when two devices dial each other, and takes links down.
@MainActor
final class LinkTable {
    private var links: [String: PeerLink] = [:] {
        didSet { shown = nil }
    }
    /// `link(shownAs:)`'s index, made on first use after the links or the group's names changed.
    private var shown: ShownNames?
    /// Links being taken down; see `retire(_:)`.
    private var retired: [PeerLink] = []
    /// How many verified connections from each device are being made links now (`adopt`).
    private var arriving: [String: Int] = [:]
    /// Links that closed while another connection from their device was arriving: dropped
    /// without a word unless that connection does not become the device's link (see `closed`).
    private var closedWhileArriving: [String: PeerLink] = [:]
    /// Connections that lost to another of their device's: open until the peer closes them
    /// (one this device dialed won) or until their streams are done (one the peer dialed won).
    private lazy var superseded = SupersededConnections(close: { [unowned self] in self.retire($0) }, didExpire: { [unowned self] link in
        self.log.notice("\(self.name(of: link)) did not close the connection ours replaces once ours reached it: closed once no stream runs on it")
    })
    /// How many superseded connections are open now, and how many their peer left to expire.
    var supersededCount: Int { superseded.count }
    var supersededExpired: Int { superseded.expired }
    private let trust: TrustSync
    private let log: PeerLogger
    /// Whether the node still runs: a link finished after it stopped is closed.
    private let isRunning: @MainActor () -> Bool
    /// What answers the peers' calls (the node's payload server).
    weak var handler: (any DeviceServiceHandler)?
    weak var events: (any LinkTableEvents)?

    init(trust: TrustSync, log: PeerLogger, isRunning: @escaping @MainActor () -> Bool) {
        self.trust = trust
        self.log = log
        self.isRunning = isRunning
    }

    /// The links, in identifier order.
    var all: [PeerLink] { links.values.sorted { $0.id < $1.id } }

    var isEmpty: Bool { links.isEmpty }

    subscript(id: String) -> PeerLink? { links[id] }

    /// The name shown for `link`'s device: its name in the group's list held, or a short form
    /// of its identifier (`RevocationList.deviceName(of:)`).
    func name(of link: PeerLink) -> String { trust.name(of: link.id) }

    /// The link of the device shown as `device` (a name `name(of:)` gives, as in
    /// `NearbyActivity.device`), or of the device with that identifier.
    /// Where two are shown alike, the one with the lower identifier. An index (`ShownNames`),
    /// not a scan: made again only when the links or the list's names changed.
    func link(shownAs device: String) -> PeerLink? {
        if let link = links[device] { return link }
        let names = trust.identity.revocations.deviceNames
        if shown?.names != names { shown = ShownNames(identifiers: links.keys, names: names) }
        return shown?.identifier(shownAs: device).flatMap { links[$0] }
    }

    /// Whether a device at `address` (or its IP address) is linked.
    func isLinked(to address: PeerAddress) -> Bool {
        links.values.contains { $0.path == .lan && ($0.dialed == address || $0.host == address.host) }
    }

    /// The devices linked now, in name order, each with its path and the stream bytes it had
    /// dropped.
    var status: [LinkStatus] {
        links.values.map { link in
            LinkStatus(device: name(of: link), address: link.dialed?.host ?? link.host ?? "?", since: link.since,
                       dialedByThisDevice: link.dialed != nil, path: link.path, droppedStreamBytes: link.streams.droppedBytes)
        }.sorted { $0.device < $1.device }
    }

    /// The peers' activities, each with its device's name from the list held, by name.
    var nearby: [NearbyActivity] {
        links.values.compactMap { link in
            link.remote.map { activity in
                var shown = activity
                shown.device = name(of: link)
                return shown
            }
        }.sorted { $0.device < $1.device }
    }

    /// Makes a link of `channel` (dialed to `address`, or accepted when nil) over `path` (the
    /// LAN, or the ICE path of a channel `SecureChannel.open(over:role:identity:credential:)`
    /// made, which has no address: its controlling side passes nil too): D-Bus over it,
    /// the device's object served, the peer's signals followed; then asks the peer for its
    /// list and its activity. A second link to a device already linked replaces the first
    /// only if it is the one both keep (`keepsNewLink`). Returns when the first answers are in
    /// (or the link failed); false if D-Bus could not be set up over the channel.
    @discardableResult
    func adopt(_ channel: SecureChannel, dialed address: PeerAddress?, path: LinkPath = .lan) async -> Bool {
        let peer = channel.peerIdentifier
        arriving[peer, default: 0] += 1
        var stillArriving = true
        defer { if stillArriving { arrived(peer) } }
        let bus: PeerBus
        do { bus = try await PeerBus.open(over: channel) } catch {
            log.notice("D-Bus over the link to \(trust.name(of: channel.peerIdentifier)) failed: \(error)")
            return false
        }
        guard isRunning(), channel.peerIdentifier != trust.identity.identifier, let handler else {
            bus.startMessageProcessing()
            retire(PeerLink(channel, bus: bus, service: nil, dialed: nil))
            return true
        }
        let service = DeviceService(handler: handler, peer: DevicePeer(id: channel.peerIdentifier, serial: channel.peerSerial))
        do { try service.register(on: bus) } catch {
            log.error("cannot serve \(trust.name(of: channel.peerIdentifier)): \(error)")
            bus.startMessageProcessing()
            retire(PeerLink(channel, bus: bus, service: nil, dialed: nil))
            return true
        }
        let link = PeerLink(channel, bus: bus, service: service, dialed: address, path: path)
        guard keepsNewLink(to: peer, dialed: address != nil, path: path) else {
            // The peer dialed this one while the link this device dialed stands: the peer
            // closes it once ours reaches it. Any other connection not kept is closed now.
            if address == nil, path == .lan, let existing = links[peer], existing.dialed != nil, existing.path == .lan {
                follow(link)
                superseded.add(link)
            } else {
                retire(link)
            }
            bus.startMessageProcessing()
            return true
        }
        closedWhileArriving[peer] = nil  // this connection replaces it
        // The new link is in the table before the older one closes: a call out on the older
        // one fails as it closes, in that very turn when it has a completion
        // (`startFetchingPayload`), and is asked again over the link it finds here.
        let older = links.updateValue(link, forKey: link.id)
        if let older {
            if older.path != path {
                log.info("replacing the link with \(name(of: older)) (\(older.path.words)) by one on the \(path.words)")
            } else {
                log.info("replacing the link with \(name(of: older)): both dialed, the one \(trust.name(of: min(trust.identity.identifier, older.id))) dialed stays")
            }
            // A connection this device dialed may not have reached the peer yet: the peer
            // closes the older link once it has. One the peer dialed, it has: the older link
            // closes once the streams on it (if a continuation had opened any) are done.
            if address != nil { superseded.add(older) } else { superseded.closeOnceIdle(older) }
        }
        stillArriving = false
        arrived(peer)
        log.info("linked with \(name(of: link)) (\(address.map { "dialed \($0)" } ?? "from \(link.host ?? "?")"))")
        follow(link)
        bus.startMessageProcessing()  // the object is exported: calls may come in now
        do {
            // Both asked in one flight. The peer's list is taken first: if newer, it names the
            // peer (and the devices added since) before its activity is shown.
            // A CurrentChanged handled while the answer was on its way is at least as new as
            // the answer (the peer answered before or after sending it, and sends another for
            // any change after answering); the answer may still be handled after it, so it is
            // then dropped rather than put back the older activity.
            let signalsBefore = link.currentSignals
            let (data, metadata) = try await bus.call(.getRevocations, .getCurrent)
            if links[link.id] === link {
                events?.peerSent(revocationData: data, from: link)
            }
            if link.currentSignals == signalsBefore { remoteChanged(link, metadata) }
            if links[link.id] === link { events?.linkCameUp(link) }
        } catch {
            // A link that closed while asked closed: the peer stopped, or both dialed at once and
            // the peer kept the other connection (`closed` then lets that one take its place,
            // whichever of the failed call and the closed signal comes first). Any other failure
            // broke the protocol.
            let reason = "asking \(name(of: link)) failed: \(error)"
            if bus.isClosed { closed(link, because: reason) } else { drop(link, because: reason, kind: .protocolError) }
        }
        return true
    }

    /// Follows the peer's signals on `link`: its activity, its list, the link closing.
    private func follow(_ link: PeerLink) {
        link.bus.onCurrentChanged({ [weak self, weak link] metadata in
            guard let self, let link else { return }
            link.currentSignals += 1
            self.updateArrived(link, metadata)
        }, malformed: { [weak self, weak link] in
            guard let link else { return }
            self?.drop(link, because: "a CurrentChanged signal of the wrong type", kind: .protocolError)
        })
        link.bus.onRevocationsChanged({ [weak self, weak link] list in
            guard let self, let link, self.links[link.id] === link else { return }
            self.events?.peerSent(revocationData: list, from: link)
        }, malformed: { [weak self, weak link] in
            guard let link else { return }
            self?.drop(link, because: "a RevocationsChanged signal of the wrong type", kind: .protocolError)
        })
        link.bus.onRefused = { [weak self, weak link] reason in
            guard let self, let link else { return }
            self.events?.linkRefused(link, because: reason)
        }
        link.bus.onClosed { [weak self, weak link] in
            guard let self, let link else { return }
            self.closed(link)
        }
    }

    /// `link` closed from the other side. When another connection from its device is arriving
    /// — both devices dialed at once, and the other side kept the connection it dialed and
    /// closed this one — it goes quietly: the arriving connection takes its place, without an
    /// unlinked event nor a redial. Should that connection not become the device's link, the
    /// drop is told then (`arrived`).
    private func closed(_ link: PeerLink, because reason: String = "the link closed") {
        if superseded.peerClosed(link) { return }
        guard links[link.id] === link else { return }
        if arriving[link.id, default: 0] > 0 {
            log.info("the link with \(name(of: link)) closed while another from it arrives: that one takes its place")
            links[link.id] = nil
            retire(link)
            closedWhileArriving[link.id] = link
            return
        }
        drop(link, because: reason, kind: .closed)
    }

    /// One connection from `peer` is no longer arriving (it became a link, or did not). With
    /// none left arriving and none linked, a link that closed meanwhile is told dropped now.
    private func arrived(_ peer: String) {
        let left = (arriving[peer] ?? 1) - 1
        arriving[peer] = left > 0 ? left : nil
        guard left <= 0, let closedLink = closedWhileArriving.removeValue(forKey: peer), links[peer] == nil else { return }
        log.info("dropped \(name(of: closedLink)): the link closed")
        events?.linkDropped(closedLink, because: "the link closed", kind: .closed)
    }

    /// The most updates past the budget folded into one before the link is no longer read
    /// until the next token: a device sending more than that is slowed by TCP's flow control.
    static let maximumFoldedUpdates = 256

    /// An activity update from `link`'s device: taken at once within its budget; past it, only
    /// the latest is kept, and taken at the next token. Past `maximumFoldedUpdates` before then,
    /// the link is not read until the token either, so the device's own sending slows.
    private func updateArrived(_ link: PeerLink, _ metadata: Variant) {
        if link.release == nil, link.budget.take() { return remoteChanged(link, metadata) }
        link.heldUpdate = metadata
        link.foldedUpdates += 1
        if link.foldedUpdates == Self.maximumFoldedUpdates { link.bus.pauseReading() }
        guard link.release == nil else { return }
        events?.linkIsLimited(link)
        scheduleRelease(of: link)
    }

    /// At `link`'s next token: takes the update held, and reads the link again.
    private func scheduleRelease(of link: PeerLink) {
        link.release = MainLoop.after(link.budget.untilNext()) { [weak self, weak link] in
            guard let self, let link else { return }
            link.release = nil
            if let held = link.heldUpdate {
                guard link.budget.take() else { return self.scheduleRelease(of: link) }
                link.heldUpdate = nil
                self.remoteChanged(link, held)
            }
            link.foldedUpdates = 0
            link.bus.resumeReading()
        }
    }

    private func remoteChanged(_ link: PeerLink, _ metadata: Variant) {
        guard links[link.id] === link else { return }
        do {
            link.remote = try DeviceInterface.activity(from: metadata, device: link.id)  // shown by name in `nearby`
            events?.nearbyChanged()
        } catch {
            drop(link, because: "\(error)", kind: .protocolError)
        }
    }

    /// One link per device (`peer` is its identifier). The local network first: a connection
    /// on it replaces a link beyond it (docs/PROTOCOL.md, 7), never the other way. When two
    /// devices dial each other at once, both keep the connection dialed by the device whose
    /// identifier sorts first, so they agree without talking (identifiers, unlike the names
    /// shown, do not change with the list each holds); otherwise the link that came first stays.
    private func keepsNewLink(to peer: String, dialed: Bool, path: LinkPath) -> Bool {
        guard let existing = links[peer] else { return true }
        if existing.path != path { return path == .lan }
        let ownIdentifier = trust.identity.identifier
        let newDialer = dialed ? ownIdentifier : peer
        let oldDialer = existing.dialed != nil ? ownIdentifier : peer
        return newDialer < oldDialer
    }

    /// Takes `link` out of the table and down, and tells the node why (`reason` in words for
    /// the log, `kind` as a value).
    func drop(_ link: PeerLink, because reason: String, kind: DiagnosticEvent.UnlinkReason) {
        guard links[link.id] === link else { return }
        log.info("dropped \(name(of: link)): \(reason)")
        links[link.id] = nil
        retire(link)
        superseded.end(of: link.id)
        events?.linkDropped(link, because: reason, kind: kind)
    }

    /// Takes every link out of the table (a stopping device: no event is told, and a link
    /// that closes meanwhile is not dialed again), sends each peer TLS close_notify, and waits
    /// until every close_notify is written or `deadline` has passed (a peer that does not read
    /// cannot hold the stop up); then closes each link (`retire`). The peer reads the end of
    /// its link at once, and drops it as `.closed`.
    func closeAllSayingGoodbye(within deadline: Duration) async {
        let closing = links.values.sorted { $0.id < $1.id }
        links = [:]
        superseded.endAll()
        var farewells: [Task<Void, Never>] = []
        for link in closing {
            link.release?.cancel()
            link.release = nil
            guard let stream = link.bus.bus.stream, let output = g_io_stream_get_output_stream(stream) else { continue }
            let pointer = SendablePointer(output)
            farewells.append(Task { @MainActor in
                _ = try? await GIOAsync.call { cancellable, callback, userData in
                    g_output_stream_close_async(pointer.pointer, G_PRIORITY_DEFAULT, cancellable, callback, userData)
                } finish: { result, error in
                    g_output_stream_close_finish(pointer.pointer, result, error) != 0 ? true : nil
                }
            })
        }
        let expiry = MainLoop.after(deadline) { for farewell in farewells { farewell.cancel() } }
        for farewell in farewells { await farewell.value }
        expiry.cancel()
        for link in closing { retire(link) }
    }

    /// Closes every link (the node stops); no event is told.
    func closeAll() {
        for link in links.values { retire(link) }
        links = [:]
        superseded.endAll()
    }

    /// Sends the list held to every linked device (`RevocationsChanged`): after a newer list,
    /// and after the list's discovery key arrived, so a device still without it asks again.
    func sendListToAll() {
        for link in links.values { link.bus.emitRevocationsChanged(trust.identity.revocationData) }
    }

    /// Closes `link` now but releases it (unsubscribing its signals, unexporting its object)
    /// only from a low-priority idle source, after GDBus has delivered whatever it had queued
    /// for it: GLib 2.74 can deliver a queued signal or call to a subscription freed meanwhile.
    private func retire(_ link: PeerLink) {
        link.release?.cancel()
        link.release = nil
        link.bus.close()
        retired.append(link)
        MainLoop.idle(priority: .low) { [weak self] in self?.retired.removeAll { $0 === link } }
    }
}
