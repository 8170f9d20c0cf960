import Baton
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
    let dialed: PeerAddress?
    /// The peer's IP address.
    let host: String?
    var remote: NearbyActivity?
    /// How many CurrentChanged signals from the peer were handled (see `LinkTable.adopt`).
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
