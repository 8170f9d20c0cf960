import Baton
import BatonLoop
import CGLib
import Foundation

/// What a device does when a peer calls it; the continuity node implements it. `peer` is the
/// calling device: its identifier and its certificate's serial number (hex).
@MainActor
protocol DeviceServiceHandler: AnyObject {
    /// Why `peer` may not be answered at all (its certificate is revoked by the list this
    /// device holds now), or nil. Asked before every call is answered.
    func refusal(of peer: DevicePeer) -> String?
    /// The activity advertised now, if any.
    func currentActivity() -> NearbyActivity?
    /// The payload of the activity advertised with `sequence`, saved first, for `peer`.
    /// It may await the app (the agent asks it); the provider bounds that wait.
    func payload(sequence: UInt64, for peer: DevicePeer) async throws(DeviceServiceError) -> Data
    /// The peer continued the activity advertised with `sequence`; refused unless that peer
    /// fetched it.
    func continued(sequence: UInt64, by peer: DevicePeer) async throws(DeviceServiceError)
    /// The signed revocation list this device holds.
    func revocationList() -> Data
    /// The group's discovery key for the revocation list this device holds.
    func discoveryKey() throws(DeviceServiceError) -> Data
    /// Opens continuation stream `id` on the link (`streams`, which admitted the id) to the
    /// activity advertised with `sequence`; returns the hand-over of the streams to the
    /// activity's delegate, run once the answer has gone.
    func openStreams(sequence: UInt64, stream id: UInt32, on streams: LinkStreams) throws(DeviceServiceError) -> @MainActor () -> Void
}

/// The device at the other end of a link, as its certificate proved it.
struct DevicePeer: Sendable, Hashable {
    /// The identifier its certificate carries (`DeviceIdentity.verifyPeer`).
    var id: String
    var serial: String
}

enum DeviceServiceError: Error {
    case notCurrent
    case tooLarge(String)
    case failed(String)
    case noStreams(String)
    case refused(String)
}

/// `org.baton.Device1` served on one peer bus: exported when the link opens, for as long as
/// the bus runs. The bus checks each call's arguments against the interface
/// (`DeviceInterface.info`) before it reaches `answer`.
@MainActor
final class DeviceService {
    weak var handler: (any DeviceServiceHandler)?
    let peer: DevicePeer
    /// The continuation streams of the link this serves (`OpenStreams` opens one there); the
    /// link holds them (the bus holds this service).
    weak var streams: LinkStreams?

    init(handler: any DeviceServiceHandler, peer: DevicePeer) {
        self.handler = handler
        self.peer = peer
    }

    /// Exports the object on `bus`; its method calls come through the app's loop.
    func register(on bus: PeerBus) throws(TransportError) {
        bus.bus.export(path: DeviceInterface.path, info: DeviceInterface.info) { [self] call in answer(call) }
    }

    func answer(_ call: MethodCall) {
        let answer = DBusAnswer<DeviceMethod>(call)
        guard let handler else { return answer.fail(.failed, "the device is shutting down") }
        let method: DeviceMethod
        do { method = try answer.method() } catch { return answer.fail(.failed, error.description) }
        // The list held now decides, not the one held when the link was made. A refused
        // OpenStreams still takes its id: the bytes pipelined behind it are dropped, not a violation.
        if let refusal = handler.refusal(of: peer) {
            if case .openStreams(_, let id) = method, let streams, !streams.admits(id) { return }
            return answer.fail(.refused, refusal)
        }
        switch method {
        case .getCurrent:
            answer.reply(.getCurrent, DeviceInterface.metadata(handler.currentActivity()))
        case .fetchPayload(let sequence):
            // Answered after the handler's await (the call stays open until then). The task
            // starts here, inside the read of the call, not at a later turn of the loop: a
            // handler that has the payload at once (an embedded app saves and encodes it
            // synchronously) answers in the same turn that read the call.
            let peer = peer
            Task.immediate { @MainActor in
                do throws(DeviceServiceError) {
                    answer.reply(.fetchPayload(sequence: sequence), try await handler.payload(sequence: sequence, for: peer))
                } catch {
                    Self.fail(answer, error)
                }
            }
        case .openStreams(let sequence, let id):
            // An id that is not the peer's next one, or past the cap, closes the link.
            guard let streams else { return Self.fail(answer, .noStreams("no streams on this link")) }
            guard streams.admits(id) else { return }
            do {
                let handOver = try handler.openStreams(sequence: sequence, stream: id, on: streams)
                answer.reply(.openStreams(sequence: sequence, stream: id), ())
                handOver()
            } catch {
                Self.fail(answer, error)
            }
        case .getRevocations:
            answer.reply(.getRevocations, handler.revocationList())
        case .getDiscoveryKey:
            do { answer.reply(.getDiscoveryKey, try handler.discoveryKey()) } catch { Self.fail(answer, error) }
        case .continued(let sequence):
            let peer = peer
            Task.immediate { @MainActor in  // as FetchPayload's: answered in this turn when the handler does not wait
                do throws(DeviceServiceError) {
                    try await handler.continued(sequence: sequence, by: peer)
                    answer.reply(.continued(sequence: sequence), ())
                } catch {
                    Self.fail(answer, error)
                }
            }
        }
    }

    private static func fail(_ answer: DBusAnswer<DeviceMethod>, _ error: DeviceServiceError) {
        switch error {
        case .notCurrent: answer.fail(.notCurrent, "that activity is no longer current")
        case .tooLarge(let reason): answer.fail(.tooLarge, reason)
        case .failed(let reason): answer.fail(.failed, reason)
        case .noStreams(let reason): answer.fail(.noStreams, reason)
        case .refused(let reason): answer.fail(.refused, reason)
        }
    }
}
