import BatonLoop
import CGLib
import Foundation

/// The node's dialing: the static peers and the devices DNS-SD finds, each dialed at most once
/// at a time, again after a failure with a delay that doubles up to 30 s, and the first round
/// of dials followed to its end (`onFirstDialsFinished`).
///
/// A device that starts dials every group device it can find at once rather than wait to be
/// dialed: its static peers, the addresses it last linked over (`LastLinkedAddresses`, hints
/// the TLS gate still judges), and each device DNS-SD finds before its first browse settles —
/// the records avahi-daemon had cached. When both devices dial each other at that moment, the
/// link table keeps one connection, the same one on both sides (`LinkTable`).
///
/// A link that drops is dialed again, with the same back-off, where its device was last reached
/// (`RememberedAddresses`), whichever side dialed it, for as long as that address is
/// remembered — after discovery has forgotten the device too, as it does when this host's
/// address goes — and every address remembered is dialed at once when the network changes.
@MainActor
final class Dialer {
    /// The peers the node dials whatever discovery finds.
    let staticPeers: [PeerAddress]
    /// How long a found device that is the one to dial is waited for before it is dialed.
    var discoveryDialGrace: Duration = .seconds(3)
    /// Called once, when the first round of dials has finished (see
    /// `ContinuityNode.onFirstDialsFinished`).
    var onFirstDialsFinished: (@MainActor () -> Void)?
    /// Called once, when the first round of dials has finished, then cleared (as
    /// `onFirstDialsFinished`, which is the app's; the node sets this one before each
    /// `start()`): the `RelayConnector` tries beyond the LAN only the devices this round did
    /// not link.
    var onFirstRoundSettled: (@MainActor () -> Void)?
    /// Makes a link of a channel dialed; false if D-Bus could not be set up over it.
    var adopt: (@MainActor (SecureChannel, PeerAddress) async -> Bool)?
    /// A failure to keep among the node's recent failures.
    var failed: (@MainActor (String) -> Void)?
    private let trust: TrustSync
    private let credential: TLSCredential
    private let links: LinkTable
    /// Whether the node runs (listens): a stopped node dials nothing.
    private let isRunning: @MainActor () -> Bool
    private let log: PeerLogger
    private var dialing: Set<PeerAddress> = []
    /// Peers found through DNS-SD and still published.
    private(set) var discovered: Set<PeerAddress> = []
    private var fallbackDials: [PeerAddress: LoopSource] = [:]
    private var redials: [PeerAddress: LoopSource] = [:]
    private var backoff: [PeerAddress: Duration] = [:]
    /// Peers whose first dial has not finished (linked and asked, or failed).
    private var firstDialsPending: Set<PeerAddress> = []
    /// True until discovery's first browse has settled (or discovery gave up).
    private var discoveryUnsettled = false
    /// Devices found through DNS-SD that could not be connected to, said once each (at most
    /// `maximumSaidUnreachable` remembered).
    private var saidUnreachable: Set<String> = []
    private static let maximumSaidUnreachable = 64
    /// The addresses last linked over, from the file beside the identity.
    let lastLinked: LastLinkedAddresses
    /// Where linked devices were last reached, kept after discovery forgets them.
    private var remembered = RememberedAddresses()
    /// The system's network changes, while the node runs.
    private var networkWatch: NetworkWatch?

    init(staticPeers: [PeerAddress], trust: TrustSync, credential: TLSCredential, links: LinkTable, log: PeerLogger,
         isRunning: @escaping @MainActor () -> Bool) {
        self.staticPeers = staticPeers
        lastLinked = LastLinkedAddresses(directory: trust.directory, log: log)
        self.trust = trust
        self.credential = credential
        self.links = links
        self.log = log
        self.isRunning = isRunning
    }

    /// Dials every static peer and every address last linked over; the first round ends when
    /// each static peer's dial has finished and discovery, if it starts (`discoveryStarted()`),
    /// has settled. (An address last linked over is a hint: a stale one, dialed once and not
    /// again, does not hold the first round up.)
    func start() {
        firstDialsPending = Set(staticPeers)
        for peer in staticPeers { dial(peer) }
        for hint in lastLinked.addresses where !staticPeers.contains(hint) { dial(hint) }
        networkWatch = NetworkWatch { [weak self] in self?.networkChanged() }
        MainLoop.idle { [weak self] in self?.checkFirstDials() }  // never from inside start()
    }

    /// Stops every timer and forgets what discovery found.
    func stop() {
        networkWatch?.cancel()
        networkWatch = nil
        discovered = []
        for timer in fallbackDials.values { timer.cancel() }
        fallbackDials = [:]
        for timer in redials.values { timer.cancel() }
        redials = [:]
        discoveryUnsettled = false
    }

    /// The network changed (an interface came up, an address or a route came or went): every
    /// device waiting for its next try is dialed now, its delay starting again from the least,
    /// and so is every address last linked over or remembered that is not linked — rather than
    /// waiting out a backoff that the network being down had grown. A link whose local address this
    /// machine no longer holds is dropped at once and its device dialed again (`LocalAddresses`:
    /// nothing sent on it can leave before a retransmission); every other link is checked
    /// (`checkLink`): after a suspend, a link can look up on this side while the other side
    /// dropped it long ago. A dial that fails while the network changes under it is made again
    /// at once (`networkChanges`): its failure says nothing about the network that is now.
    func networkChanged() {
        guard isRunning() else { return }
        networkChanges &+= 1
        let held = LocalAddresses.current()
        for link in links.all where link.path == .lan {
            guard let held, let local = LocalAddresses.local(of: link.bus.channel), !held.holds(local) else { continue }
            log.info("the link with \(links.name(of: link)) was made from an address this machine no longer holds")
            links.drop(link, because: "its local address went away", kind: .localAddressGone)
            redialAtOnce(link)
        }
        let waiting = redials
        for (address, timer) in waiting {
            timer.cancel()
            redials[address] = nil
            backoff[address] = nil
            dial(address)
        }
        for hint in lastLinked.addresses + remembered.addresses() where !links.isLinked(to: hint) { dial(hint) }
        for link in links.all { checkLink(link) }
    }

    /// How long a link checked after a network change has to answer.
    static let linkCheckDeadline: Duration = .seconds(5)

    /// Links being checked (`checkLink`), by device identifier: one check a link at a time.
    private var checking: Set<String> = []

    /// Pings `link` (`org.freedesktop.DBus.Peer.Ping`, one round trip); if it does not answer
    /// within `linkCheckDeadline` (or closes meanwhile), it is dropped, and its device dialed at
    /// once where it was dialed, last linked or found. A machine resumed from suspend keeps its TCP connections
    /// as they were, while its peer has long dropped them (TCP keepalive, `SecureChannel`): the
    /// first thing sent on one is answered with a reset, so the check fails at once and the
    /// device is linked again without waiting for this side's keepalive and a backoff.
    private func checkLink(_ link: PeerLink) {
        guard !checking.contains(link.id) else { return }
        checking.insert(link.id)
        Task { @MainActor in
            defer { checking.remove(link.id) }
            do { try await link.bus.ping(timeout: Self.linkCheckDeadline) } catch {
                guard isRunning() else { return }
                if links[link.id] === link {  // else it closed as it failed, and is dropped already
                    log.info("the link with \(links.name(of: link)) did not answer after the network changed: \(error)")
                    links.drop(link, because: "it did not answer after the network changed", kind: .closed)
                }
                redialAtOnce(link)
            }
        }
    }

    /// Dials the device of `link`, dropped, again now where it was dialed, last linked or
    /// found, its delay starting again from the least; nothing if it is linked again already.
    private func redialAtOnce(_ link: PeerLink) {
        guard links[link.id] == nil, let address = redialAddress(of: link) else { return }
        redials.removeValue(forKey: address)?.cancel()
        backoff[address] = nil
        dial(address)
    }

    /// Where to dial the device of `link` again: where this side dialed it, or else the address
    /// at its host this side knows — configured or found first (published now: a device's port
    /// moves), then remembered, then last linked over; nil if none, or if the first of these
    /// that has any has several there (one host, such as loopback, can hold several devices,
    /// and an address does not tell which).
    private func redialAddress(of link: PeerLink) -> PeerAddress? {
        if let dialed = link.dialed { return dialed }
        guard let host = link.host else { return nil }
        for known in [staticPeers + discovered, remembered.addresses(), lastLinked.addresses] {
            let there = Set(known.filter { $0.host == host })
            if !there.isEmpty { return there.count == 1 ? there.first : nil }
        }
        return nil
    }

    /// `link` was dropped (`kind` says why): where its device was reached is remembered and
    /// dialed again after the back-off (`scheduleRedial`), whichever side dialed it — unless it
    /// was revoked, or it ran beyond the LAN (the relay connector tries that again).
    func linkDropped(_ link: PeerLink, kind: DiagnosticEvent.UnlinkReason) {
        guard kind != .revoked, link.path == .lan, let address = redialAddress(of: link) else { return }
        remembered.remember(address)
        scheduleRedial(address)
    }

    /// Discovery started browsing: devices it finds before its first browse settles are part
    /// of the first round.
    func discoveryStarted() { discoveryUnsettled = true }

    /// Discovery's first browse settled, or discovery stopped before it did.
    func discoverySettled() {
        guard discoveryUnsettled else { return }
        discoveryUnsettled = false
        MainLoop.idle { [weak self] in self?.checkFirstDials() }
    }

    private func firstDialFinished(_ address: PeerAddress) {
        guard firstDialsPending.remove(address) != nil else { return }
        checkFirstDials()
    }

    private func checkFirstDials() {
        guard firstDialsPending.isEmpty, !discoveryUnsettled else { return }
        if let settled = onFirstRoundSettled {
            onFirstRoundSettled = nil
            settled()
        }
        guard let callback = onFirstDialsFinished else { return }
        onFirstDialsFinished = nil
        callback()
    }

    /// A device of the group published itself: dial it, unless a device at that IP address
    /// is linked already (tokens are blinded, so the IP is all that tells who published; a
    /// rotation then costs no new connection). If that device is the one to dial, wait for it,
    /// and dial only if no link from it has come after `discoveryDialGrace` (it may not be able
    /// to reach this device). Devices found before the first browse settles (the records
    /// avahi-daemon had cached when this device started) are dialed at once, whichever dials.
    func found(_ peer: FoundPeer) {
        let address = peer.address
        discovered.insert(address)
        forgetRemembered(replacedBy: address)
        guard !links.isLinked(to: address) else { return }
        if peer.dialsUs, !discoveryUnsettled {
            guard fallbackDials[address] == nil else { return }
            fallbackDials[address] = MainLoop.after(discoveryDialGrace) { [weak self] in
                guard let self else { return }
                self.fallbackDials[address] = nil
                if self.discovered.contains(address), !self.links.isLinked(to: address) { self.dial(address) }
            }
            return
        }
        if discoveryUnsettled { firstDialsPending.insert(address) }
        dial(address)
    }

    /// A device found through DNS-SD is no longer published (or avahi-daemon forgot it: this
    /// host's address went). If a device at its host is linked and no newer record for that
    /// host is held, the address is remembered (`RememberedAddresses`): the link reached it
    /// there. (A link that dropped before is remembered already: `linkDropped`.)
    func lost(_ address: PeerAddress) {
        discovered.remove(address)
        guard !discovered.contains(where: { $0.host == address.host }), links.isLinked(to: address) else { return }
        remembered.remember(address)
    }

    /// A record found at `address` replaces what is remembered at its host: the addresses kept
    /// there are forgotten, and a redial waiting for one at another port is cancelled.
    private func forgetRemembered(replacedBy address: PeerAddress) {
        remembered.forget(host: address.host)
        for (waiting, timer) in redials where waiting.host == address.host && waiting != address && !staticPeers.contains(waiting) {
            timer.cancel()
            redials[waiting] = nil
        }
    }

    /// How many times the network changed while the node ran (`networkChanged()`).
    private var networkChanges = 0

    private func dial(_ address: PeerAddress) {
        guard isRunning(), !dialing.contains(address) else { return }
        dialing.insert(address)
        redials[address] = nil
        let changesAtStart = networkChanges
        Task { @MainActor in
            var again = false
            defer {
                dialing.remove(address)
                if again { dial(address) }
            }
            do {
                trust.syncRevocationsFromDisk()
                let channel = try await SecureChannel.connect(host: address.host, port: address.port,
                                                              identity: trust.identity, credential: credential)
                backoff[address] = nil
                if await adopt?(channel, address) == false {
                    scheduleRedial(address)
                } else if links.isLinked(to: address) {
                    lastLinked.record(address)
                }
            } catch {
                // A stale hint (an address last linked over or remembered, not configured nor
                // published now) is no failure to show.
                let isHintOnly = !staticPeers.contains(address) && !discovered.contains(address)
                if !isHintOnly { failed?("cannot reach \(address): \(error)") }
                log.info("cannot reach \(address): \(error)")
                if let error = error as? TransportError { sayUnreachableOnce(address, error) }
                if networkChanges != changesAtStart, isRunning() {
                    again = true  // the network changed under this dial: try the network as it is now
                } else {
                    scheduleRedial(address)
                }
            }
            firstDialFinished(address)
        }
    }

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
    /// Only an address configured, found through DNS-SD, or remembered (`RememberedAddresses`)
    /// is dialed again: a stale hint is not.
    private func scheduleRedial(_ dialed: PeerAddress) {
        // A device found through DNS-SD may have moved to another port since (it rotates with
        // its published name): redial it where it is published now.
        let address = staticPeers.contains(dialed) || discovered.contains(dialed)
            ? dialed : discovered.first { $0.host == dialed.host } ?? dialed
        guard isRunning(), redials[address] == nil,
              staticPeers.contains(address) || discovered.contains(address) || remembered.contains(address) else { return }
        let delay = min((backoff[address] ?? .milliseconds(500)) * 2, .seconds(30))
        backoff[address] = delay
        redials[address] = MainLoop.after(delay) { [weak self] in
            guard let self else { return }
            redials[address] = nil
            // An address only remembered is not dialed once its device's host is linked again.
            if !staticPeers.contains(address), !discovered.contains(address), links.isLinked(to: address) { return }
            dial(address)
        }
    }
}
