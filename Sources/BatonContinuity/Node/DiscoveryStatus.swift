import Foundation

/// Whether this device finds, and is found by, the group's other devices on the local network
/// (DNS-SD through avahi-daemon), and if not, why — in words a person can act on.
/// `ContinuityNode.discoveryStatus` gives it; `baton status` shows it.
public enum DiscoveryStatus: Sendable, Equatable {
    /// Publishing this device and browsing for the others (`publishing` false: browsing only,
    /// as a tool does).
    case running(publishing: Bool)
    /// The node listens on loopback only, so there is nothing to publish: no other machine
    /// could reach it.
    case loopbackOnly
    /// Turned off by the node's owner (`DiscoveryMode.off`): only the static peers are dialed.
    case turnedOff
    /// The identity has no discovery key (it was issued before discovery existed).
    case noDiscoveryKey
    /// The group revoked a device and the new discovery key has not arrived yet; discovery
    /// stays off until a linked device passes it on (or it is copied in).
    case waitingForNewKey
    /// No avahi-daemon answers; discovery starts by itself when one does.
    case noDaemon
    /// avahi-daemon answers, but this machine has no network interface that is up, has an
    /// IPv4 address and can multicast.
    case noNetworkInterface
    /// Avahi refused to publish or browse; the reason in Avahi's words.
    case failed(String)
    /// The node is not running.
    case stopped

    /// Whether other devices can find this one and it finds them.
    public var isWorking: Bool { if case .running = self { true } else { false } }

    /// A short machine-readable name of the state, for scripts (`baton status --json`).
    public var code: String {
        switch self {
        case .running(let publishing): publishing ? "running" : "browsing"
        case .loopbackOnly: "loopback-only"
        case .turnedOff: "off"
        case .noDiscoveryKey: "no-discovery-key"
        case .waitingForNewKey: "waiting-for-new-key"
        case .noDaemon: "no-avahi-daemon"
        case .noNetworkInterface: "no-network-interface"
        case .failed: "failed"
        case .stopped: "stopped"
        }
    }

    /// What it means, and what to do about it.
    public var explanation: String {
        switch self {
        case .running(true): "publishing this device and browsing for the group's devices through avahi-daemon"
        case .running(false): "browsing for the group's devices through avahi-daemon"
        case .loopbackOnly:
            "off: the device listens on loopback only, so no other machine can reach it (remove Listen= from agent.conf, or --local / --listen 127.0.0.1, to listen on the network)"
        case .turnedOff: "off: only the static peers are dialed"
        case .noDiscoveryKey:
            "off: the device's identity has no discovery.key (issued before discovery existed); issue it again, or list the other devices in the peers file"
        case .waitingForNewKey:
            "waiting for the group's new discovery key after a revocation: copy discovery.key from the group's authority beside this device's identity, or let a linked device pass it on"
        case .noDaemon:
            "off: no avahi-daemon is reachable on the system bus, so other devices cannot find this one and it finds none; install and start it (apt-get install avahi-daemon; systemctl start avahi-daemon), or list the other devices in the peers file"
        case .noNetworkInterface:
            "nothing to publish: no network interface is up with an IPv4 address that can multicast"
        case .failed(let reason):
            "off: Avahi refused (\(reason)); only the static peers are dialed"
        case .stopped: "stopped"
        }
    }
}
