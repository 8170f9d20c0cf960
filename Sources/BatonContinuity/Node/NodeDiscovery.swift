import BatonLoop
import Foundation

/// The node's DNS-SD (through avahi-daemon): publishing this device with the group's
/// discovery key and browsing for the others, whose finds go to the dialer. Fails closed: it
/// runs only with the key the list held names, and stops when a newer list names another.
@MainActor
final class NodeDiscovery {
    /// How often the published name and group token are renewed (and the port, when it rotates).
    var rotation: Duration = .seconds(15 * 60)
    private(set) var discovery: ServiceDiscovery?
    /// How discovery was started (publishing or not), to start it again with a new key; nil
    /// when the node does not use it.
    private var publishes: Bool?
    /// Why discovery is off when the node runs without it.
    private var off: DiscoveryStatus?
    private let trust: TrustSync
    private let listeners: NodeListeners
    private let dialer: Dialer
    private let log: PeerLogger
    /// The process's client of avahi-daemon, handed in by the node's owner.
    private let avahi: AvahiConnection
    private let diagnostics: Diagnostics
    /// The state last published (`DiscoveryStatus.code`), so each change is published once.
    private var publishedState: String?

    init(trust: TrustSync, listeners: NodeListeners, dialer: Dialer, log: PeerLogger, avahi: AvahiConnection,
         diagnostics: Diagnostics) {
        self.avahi = avahi
        self.trust = trust
        self.listeners = listeners
        self.dialer = dialer
        self.log = log
        self.diagnostics = diagnostics
    }

    /// Publishes `.discovery(state:)` when `status` has changed since it was last published.
    private func publishStatus() {
        let code = status.code
        guard code != publishedState else { return }
        publishedState = code
        diagnostics.publish(.discovery(state: code))
    }

    /// Starts discovery as `mode` says for a node listening on `host`.
    func start(_ mode: ContinuityNode.DiscoveryMode, host: String) {
        guard let port = listeners.current?.port else { return }
        off = nil
        switch mode {
        case .automatic:
            if PeerAddress.isLoopback(host) { off = .loopbackOnly } else { start(port: port, publishes: true) }
        case .off: off = .turnedOff
        case .browseOnly: start(port: port, publishes: false)
        case .publishAndBrowse: start(port: port, publishes: true)
        }
        // A discovery started says its state as it changes; one off says why now.
        if discovery == nil { publishStatus() }
    }

    private func start(port: UInt16, publishes: Bool) {
        self.publishes = publishes
        let identity = trust.identity
        guard let key = identity.discoveryKey else {
            return log.error("no discovery key beside this device's identity (issued before discovery existed?): using the static peers only, without the admission gate (only devices without a key either can link with it)")
        }
        guard identity.discoveryKeyIsCurrent else {
            // Fail closed: the key held is one a revoked device knows too.
            return log.notice("discovery waits for the group's new discovery key (revocation list \(identity.revocations.sequence))")
        }
        let discovery = ServiceDiscovery(key: key, port: port, publishes: publishes, rotation: rotation, avahi: avahi, found: { [weak dialer] peer in
            dialer?.found(peer)
        }, lost: { [weak dialer] address in
            dialer?.lost(address)
        })
        if publishes { discovery.portAtRotation = { [weak listeners] in listeners?.rotate() } }
        discovery.diagnostics = diagnostics
        discovery.onStateChange = { [weak self] in self?.publishStatus() }
        discovery.onSettled = { [weak dialer] in dialer?.discoverySettled() }
        self.discovery = discovery
        dialer.discoveryStarted()
        discovery.start()
    }

    /// Starts discovery again with the key held now (a new name, a new token, and a new port
    /// when it rotates).
    func restart() {
        guard let publishes, let current = listeners.current else { return }
        discovery?.stop()
        discovery = nil
        let port = publishes ? listeners.rotate() ?? current.port : current.port
        start(port: port, publishes: publishes)
    }

    /// The list held names a key not held yet: off until it arrives (fail closed).
    func stopUntilNewKey() {
        discovery?.stop()
        discovery = nil
        dialer.discoverySettled()
        publishStatus()
    }

    func stop() {
        discovery?.stop()
        discovery = nil
        publishes = nil
        publishStatus()
    }

    /// Whether the group's devices find this one and it finds them, and if not, why.
    var status: DiscoveryStatus {
        guard listeners.current != nil else { return .stopped }
        if let discovery {
            switch discovery.state {
            case .running: return discovery.hasNoInterface ? .noNetworkInterface : .running(publishing: publishes ?? false)
            case .waitingForDaemon: return .noDaemon
            case .noDaemon: return .noDaemon
            case .failed(let reason): return .failed(reason)
            case .stopped: return .stopped
            }
        }
        if let off { return off }
        if publishes != nil { return trust.identity.discoveryKey == nil ? .noDiscoveryKey : .waitingForNewKey }
        return .turnedOff
    }
}
