@testable import BatonContinuity
import Foundation

/// A device of the group served from the test process itself, for answers no honest device
/// gives: it accepts links on loopback and serves `org.baton.Device1` through the real
/// `DeviceService`, and a subclass says how it answers. By default it advertises one activity
/// titled `title`, has no payload, grants no streams and closes any stream connection.
@MainActor
class InProcessDevice: DeviceServiceHandler {
    let identity: DeviceIdentity
    let title: String
    private(set) var listener: SecureListener?
    private var buses: [PeerBus] = []
    private var services: [DeviceService] = []

    init(identity: DeviceIdentity, title: String) {
        self.identity = identity
        self.title = title
    }

    /// Listens on loopback; returns the address to dial.
    func start() throws -> PeerAddress {
        let listener = try SecureListener(identity: identity, credential: try TLSCredential(identity: identity))
        self.listener = listener
        Task { @MainActor in
            while let channel = try? await listener.accept() {
                if channel.applicationProtocol == SecureChannel.streamALPN {
                    streamConnected(channel)
                    continue
                }
                guard let bus = try? await PeerBus.open(over: channel) else { continue }
                let service = DeviceService(handler: self, peer: DevicePeer(id: channel.peerIdentifier, serial: channel.peerSerial))
                try? service.register(on: bus)
                bus.startMessageProcessing()
                buses.append(bus)
                services.append(service)
            }
        }
        return PeerAddress(host: "127.0.0.1", port: listener.port)
    }

    /// A continuation stream connection arrived.
    func streamConnected(_ channel: SecureChannel) { channel.close() }

    func stop() {
        listener?.close()
        for bus in buses { bus.close() }
        buses = []
        services = []
    }

    func currentActivity() -> NearbyActivity? {
        NearbyActivity(device: identity.name, sequence: 1, activityType: "com.example.probe.editing", title: title,
                       appID: "com.example.probe", teamIdentifier: "PROBETEAM", webpageURL: nil)
    }
    func refusal(of peer: DevicePeer) -> String? { nil }
    func payload(sequence: UInt64, for peer: DevicePeer) throws(DeviceServiceError) -> Data { throw .notCurrent }
    func continued(sequence: UInt64, by peer: DevicePeer) throws(DeviceServiceError) {}
    func revocationList() -> Data { identity.revocationData }
    func discoveryKey() throws(DeviceServiceError) -> Data { throw .failed("no key here") }
    func streamGrant(sequence: UInt64, for peer: String) throws(DeviceServiceError) -> (token: Data, port: UInt16) {
        throw .noStreams("no streams here")
    }
}
