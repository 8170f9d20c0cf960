import Baton
import CGLib
import Foundation

/// This device's calls to its linked peers, on the continuing side: fetching an activity's
/// payload and saying it was continued, with failures as Handoff's error codes.
@MainActor
final class PeerCalls {
    /// The sequence of the activity last fetched from each device (one entry per device, by identifier).
    private var fetched: [String: UInt64] = [:]
    private let links: LinkTable
    private let log: PeerLogger

    init(links: LinkTable, log: PeerLogger) {
        self.links = links
        self.log = log
    }

    /// The payload of `activity`, pulled from its device (which saves it first).
    func fetchPayload(of activity: NearbyActivity) async throws -> Data {
        let (reply, link) = try await callDevice(activity.device, "FetchPayload", .tuple([.uint64(activity.sequence)]), replyType: "(ay)")
        guard case .tuple(let items) = reply, case .bytes(let payload)? = items.first else {
            throw CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey: "malformed FetchPayload reply"])
        }
        fetched[link.id] = activity.sequence
        return payload
    }

    /// See `ContinuityNode.confirmContinued(_:)`.
    func confirmContinued(_ activity: NearbyActivity) async throws {
        if let link = links.link(shownAs: activity.device), fetched[link.id] != activity.sequence {
            do {
                try link.bus.callWithoutReply("FetchPayload", .tuple([.uint64(activity.sequence)]))
                fetched[link.id] = activity.sequence
            } catch {
                log.notice("could not ask \(activity.device) for its activity before saying it was continued: \(error)")
            }
        }
        _ = try await callDevice(activity.device, "Continued", .tuple([.uint64(activity.sequence)]), replyType: "()")
    }

    /// Calls `method` of `device`'s `org.baton.Device1` over its link (`device` as shown in
    /// `NearbyActivity.device`; see `LinkTable.link(shownAs:)`); returns the reply and
    /// the link that answered. Failures are Handoff codes: `NoStreams` → `.featureUnsupported`,
    /// `TooLarge` → `.userActivityHandoffUserInfoTooLarge`, `NotCurrent` and `Failed` →
    /// `.userActivityHandoffFailed`, a D-Bus timeout → `.userActivityRemoteApplicationTimedOut`,
    /// no link or a broken one → `.userActivityConnectionUnavailable`.
    ///
    /// When both devices dialed at once, the link can be replaced while a call is out; the call
    /// is then made again over the link that stays (every method is safe to repeat).
    func callDevice(_ device: String, _ method: String, _ parameters: Variant,
                    replyType: String) async throws -> (Variant, PeerLink) {
        guard let link = links.link(shownAs: device) else {
            throw CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "\(device) is not connected"])
        }
        do {
            return (try await Self.call(method, parameters, replyType: replyType, over: link), link)
        } catch let error as CocoaError where error.code == .userActivityConnectionUnavailable {
            guard let replacement = links[link.id], replacement !== link else { throw error }
            return (try await Self.call(method, parameters, replyType: replyType, over: replacement), replacement)
        }
    }

    private static func call(_ method: String, _ parameters: Variant, replyType: String, over link: PeerLink) async throws -> Variant {
        do {
            return try await link.bus.call(method, parameters, replyType: replyType)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw handoffError(for: error)
        }
    }

    /// The Handoff code for a failed call to a peer (see `callDevice`), decided from the
    /// error's type: the D-Bus error name the peer answered with, GIO's error code, or a
    /// reply that broke the protocol. Never from the message's text.
    nonisolated static func handoffError(for error: any Error) -> CocoaError {
        let code: CocoaError.Code
        switch error {
        case let error as GLibError:
            switch error.remoteDBusErrorName {
            case DeviceInterface.ErrorName.noStreams?: code = .featureUnsupported
            case DeviceInterface.ErrorName.tooLarge?: code = .userActivityHandoffUserInfoTooLarge
            case DeviceInterface.ErrorName.notCurrent?, DeviceInterface.ErrorName.failed?, DeviceInterface.ErrorName.refused?:
                code = .userActivityHandoffFailed
            case .some: code = .userActivityHandoffFailed  // another D-Bus error: the peer answered, but not with this
            case nil:
                if error.isIOError(G_IO_ERROR_TIMED_OUT) {
                    code = .userActivityRemoteApplicationTimedOut
                } else if error.isIOError(G_IO_ERROR_INVALID_ARGUMENT) {
                    code = .userActivityHandoffFailed  // GDBus: the reply is not of the type asked for
                } else {
                    code = .userActivityConnectionUnavailable
                }
            }
            return CocoaError(code, userInfo: [NSLocalizedDescriptionKey: error.description])
        case let error as PeerProtocolError:
            return CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey: error.description])
        case let error as CocoaError:
            return error
        default:
            return CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
        }
    }
}
