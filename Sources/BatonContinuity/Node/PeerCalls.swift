import Baton
import CGLib
import Foundation

/// This device's calls to its linked peers, on the continuing side: fetching an activity's
/// payload and saying it was continued, with failures as Handoff's error codes.
@MainActor
final class PeerCalls {
    /// The sequence of the activity last fetched from each device (one entry per device, by identifier).
    private var fetched: [String: UInt64] = [:]
    let links: LinkTable
    private let log: PeerLogger

    init(links: LinkTable, log: PeerLogger) {
        self.links = links
        self.log = log
    }

    /// The payload of `activity`, pulled from its device (which saves it first).
    func fetchPayload(of activity: NearbyActivity) async throws -> Data {
        let (payload, link) = try await callDevice(activity.device) { bus in try await bus.call(.fetchPayload(sequence: activity.sequence)) }
        fetched[link.id] = activity.sequence
        return payload
    }

    /// Records that `sequence` was fetched over `link`, as `fetchPayload(of:)` does.
    func recordFetch(of sequence: UInt64, over link: PeerLink) { fetched[link.id] = sequence }

    /// See `ContinuityNode.confirmContinued(_:)`.
    func confirmContinued(_ activity: NearbyActivity) async throws {
        if let link = links.link(shownAs: activity.device) { askBeforeContinued(activity, over: link) }
        _ = try await callDevice(activity.device) { bus in try await bus.call(.continued(sequence: activity.sequence)) }
    }

    /// Sends `FetchPayload` of `activity` over `link` without asking for a reply, unless it was
    /// fetched over that link: its device honours `Continued` only from a device that fetched it
    /// (see `ContinuityNode.confirmContinued(_:)`).
    func askBeforeContinued(_ activity: NearbyActivity, over link: PeerLink) {
        guard fetched[link.id] != activity.sequence else { return }
        do {
            try link.bus.send(.fetchPayload(sequence: activity.sequence))
            fetched[link.id] = activity.sequence
        } catch {
            log.notice("could not ask \(activity.device) for its activity before saying it was continued: \(error)")
        }
    }

    /// Makes `call` of `device`'s `org.baton.Device1` over its link (`device` as shown in
    /// `NearbyActivity.device`; see `LinkTable.link(shownAs:)`); returns its result and the
    /// link that answered. Failures are Handoff codes (`HandoffFailure.error(for:)`):
    /// `NoStreams` → `.featureUnsupported`, `TooLarge` → `.userActivityHandoffUserInfoTooLarge`,
    /// `NotCurrent`, `Failed`, `Refused` and a malformed reply → `.userActivityHandoffFailed`,
    /// a D-Bus timeout → `.userActivityRemoteApplicationTimedOut`, no link or a broken one →
    /// `.userActivityConnectionUnavailable`.
    ///
    /// When both devices dialed at once, the link can be replaced while a call is out; the call
    /// is then made again over the link that stays (every method is safe to repeat).
    func callDevice<Result>(_ device: String, _ call: @MainActor (PeerBus) async throws -> Result) async throws -> (Result, PeerLink) {
        guard let link = links.link(shownAs: device) else {
            throw CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "\(device) is not connected"])
        }
        do {
            return (try await Self.make(call, over: link), link)
        } catch let error as CocoaError where error.code == .userActivityConnectionUnavailable {
            guard let replacement = links[link.id], replacement !== link else { throw error }
            return (try await Self.make(call, over: replacement), replacement)
        }
    }

    private static func make<Result>(_ call: @MainActor (PeerBus) async throws -> Result, over link: PeerLink) async throws -> Result {
        do {
            return try await call(link.bus)
        } catch let error as CancellationError {
            throw error
        } catch {
            throw HandoffFailure.error(for: error)
        }
    }
}
