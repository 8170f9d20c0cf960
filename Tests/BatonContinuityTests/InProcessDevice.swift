@testable import BatonContinuity
import Foundation

/// A device of the group served from the test process itself, for answers no honest device
/// gives: it accepts links on loopback and serves `org.baton.Device1` through the real
/// `DeviceService`, and a subclass says how it answers. By default it advertises one activity
/// titled `title`, has no payload and opens no continuation streams.
@MainActor
class InProcessDevice: DeviceServiceHandler {
    let identity: DeviceIdentity
    let title: String
    private(set) var listener: SecureListener?
    private var buses: [PeerBus] = []
    private var services: [DeviceService] = []
    /// The continuation streams of each link.
    private(set) var linkStreams: [LinkStreams] = []

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
                guard let bus = try? await PeerBus.open(over: channel) else { continue }
                let service = DeviceService(handler: self, peer: DevicePeer(id: channel.peerIdentifier, serial: channel.peerSerial))
                let streams = LinkStreams(bus: bus.bus, accepted: true)
                service.streams = streams
                bus.bus.export(path: DeviceInterface.path, info: DeviceInterface.info) { [weak self, weak service] call in
                    guard let service else { return }
                    self?.serve(call, with: service)
                }
                linkStreams.append(streams)
                bus.startMessageProcessing()
                buses.append(bus)
                services.append(service)
            }
        }
        return PeerAddress(host: "127.0.0.1", port: listener.port)
    }

    /// Answers `call` (through `service`, by default).
    func serve(_ call: MethodCall, with service: DeviceService) { service.answer(call) }

    func stop() {
        listener?.close()
        for bus in buses { bus.close() }
        buses = []
        services = []
        linkStreams = []
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
    func openStreams(sequence: UInt64, stream id: UInt32, on streams: LinkStreams) throws(DeviceServiceError) -> @MainActor () -> Void {
        throw .noStreams("no streams here")
    }
}
