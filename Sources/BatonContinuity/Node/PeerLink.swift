import Baton
import BatonLoop
import Foundation

/// One linked peer device: its verified identity, the D-Bus connection over the TLS link, and
/// the activity it advertises now. Held by the node's `LinkTable` only.
@MainActor
final class PeerLink {
    /// The identifier the peer's certificate carries (see `LinkTable.name(of:)` for its name).
    let id: String
    /// The serial number of the peer's certificate.
    let serial: String
    let bus: PeerBus
    let service: DeviceService?
    /// The continuation streams carried on this link.
    let streams: LinkStreams
    let dialed: PeerAddress?
    /// The peer's IP address (over ICE, the selected remote candidate's: a relay's on a
    /// relayed path).
    let host: String?
    /// What the link runs over: the LAN, or an ICE path (set by `LinkTable.adopt(_:dialed:path:)`).
    let path: LinkPath
    var remote: NearbyActivity?
    /// How many CurrentChanged signals from the peer were handled (see `LinkTable.adopt`).
    var currentSignals = 0
    /// When the link came up (`ContinuityNode.linkStatus`).
    let since = Date()
    /// The peer's budget of activity updates (`LinkTable.updateArrived`).
    var budget = UpdateBudget()
    /// The latest update past the budget, waiting for the next token (only the latest), and
    /// how many were folded into it.
    var heldUpdate: Variant?
    var foldedUpdates = 0
    /// When the held update is taken and the link read again.
    var release: LoopSource?
    /// Whether the log and the diagnostics said this link is being slowed (once a link).
    var limitSaid = false

    init(_ channel: SecureChannel, bus: PeerBus, service: DeviceService?, dialed: PeerAddress?, path: LinkPath = .lan) {
        id = channel.peerIdentifier
        serial = channel.peerSerial
        host = channel.peerHost
        self.bus = bus
        self.service = service
        streams = LinkStreams(bus: bus.bus, accepted: channel.isServer)
        service?.streams = streams
        self.dialed = dialed
        self.path = path
    }
}
