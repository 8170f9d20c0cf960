import Baton
import BatonLoop
import Foundation

/// What this device answers its linked peers (`org.baton.Device1`, served on each link by
/// `DeviceService`): its activity and its payload, `Continued` from a device that fetched it,
/// its signed list and discovery key, and continuation streams on the link. Every call is first
/// checked against the list on disk (read only if it changed).
@MainActor
final class PayloadServer: DeviceServiceHandler {
    /// At most this many devices are remembered as having fetched the advertised sequence.
    static let maxFetchers = 64
    /// The devices (certificate serials) that fetched the payload of the advertised sequence:
    /// only they may say they continued it. At most `maxFetchers`, reset with each new sequence.
    private var fetchers: (sequence: UInt64, serials: Set<String>) = (0, [])
    private let trust: TrustSync
    private let links: LinkTable
    private let advertiser: Advertiser
    /// How long a continuation stream may wait on its peer (`ContinuityNode.streamIdleTimeout`).
    var streamIdleTimeout: Duration = .seconds(30)
    private let provider: any ActivityProvider
    private let log: PeerLogger
    private let diagnostics: Diagnostics

    init(trust: TrustSync, links: LinkTable, advertiser: Advertiser,
         provider: any ActivityProvider, log: PeerLogger, diagnostics: Diagnostics) {
        self.diagnostics = diagnostics
        self.trust = trust
        self.links = links
        self.advertiser = advertiser
        self.provider = provider
        self.log = log
    }

    /// Refuses a device the list on disk revokes — taken first if it changed
    /// (`TrustSync.syncRevocationsFromDisk()`) — and drops its link once the refusal is sent.
    func refusal(of peer: DevicePeer) -> String? {
        trust.syncRevocationsFromDisk()
        guard trust.identity.revocations.revokedSerials.contains(peer.serial) else { return nil }
        if let link = links[peer.id], link.serial == peer.serial {
            MainLoop.idle { [weak links] in links?.drop(link, because: "it has been revoked", kind: .revoked) }  // after the refusal is sent
        }
        return "\(trust.name(of: peer.id)) has been revoked"
    }

    func currentActivity() -> NearbyActivity? { advertiser.advertised }

    func payload(sequence requested: UInt64, for peer: DevicePeer) async throws(DeviceServiceError) -> Data {
        guard let activity = advertiser.provided(sequence: requested) else { throw .notCurrent }
        if fetchers.sequence != requested { fetchers = (requested, []) }
        if fetchers.serials.count < Self.maxFetchers { fetchers.serials.insert(peer.serial) }
        let history = provider.continuationHistory
        let record = history?.originatingRecord(activityType: activity.activityType, title: activity.title,
                                                device: trust.name(of: peer.id), sequence: requested)
        do {
            let payload = try await provider.payload(of: activity)
            if let record { history?.record(.payloadServed(bytes: payload.count), in: record) }
            return payload
        } catch {
            switch error {
            case .notCurrent:
                if let record { history?.record(.failed(code: CocoaError.Code.userActivityHandoffFailed.rawValue, reason: "the activity is no longer current"), in: record) }
                throw .notCurrent
            case .tooLarge(let reason):
                if let record { history?.record(.failed(code: CocoaError.Code.userActivityHandoffUserInfoTooLarge.rawValue, reason: reason), in: record) }
                throw .tooLarge(reason)
            case .failed(let reason):
                if let record { history?.record(.failed(code: CocoaError.Code.userActivityHandoffFailed.rawValue, reason: reason), in: record) }
                throw .failed(reason)
            }
        }
    }

    func revocationList() -> Data { trust.identity.revocationData }

    func discoveryKey() throws(DeviceServiceError) -> Data {
        let identity = trust.identity
        guard identity.discoveryKeyIsCurrent, let key = identity.discoveryKey else {
            throw .failed("no discovery key for revocation list \(identity.revocations.sequence)")
        }
        return key.bytes
    }

    /// Honoured only from a device that fetched that sequence's payload: another group device
    /// cannot make this app drop its activity.
    func continued(sequence: UInt64, by peer: DevicePeer) async throws(DeviceServiceError) {
        guard fetchers.sequence == sequence, fetchers.serials.contains(peer.serial) else {
            log.notice("ignoring Continued(\(sequence)) from \(trust.name(of: peer.id)): it did not fetch that activity")
            diagnostics.publish(.refused(from: trust.name(of: peer.id), reason: .continuedWithoutFetch))
            throw .refused("\(trust.name(of: peer.id)) did not fetch activity \(sequence)")
        }
        guard let activity = advertiser.provided(sequence: sequence) else { return }
        log.debug("\(trust.name(of: peer.id)) continued \(activity.activityType)")
        await provider.continued(activity)
        if let history = provider.continuationHistory {
            let record = history.originatingRecord(activityType: activity.activityType, title: activity.title,
                                                   device: trust.name(of: peer.id), sequence: sequence)
            history.record(.wasContinuedReceived, in: record)
        }
        diagnostics.publish(.continuedElsewhere(activityType: activity.activityType, by: trust.name(of: peer.id)))
    }

    /// Opens stream `id` on `streams` to the activity advertised with `sequence`, if it
    /// supports continuation streams and its app takes them (`NoStreams` otherwise); the
    /// streams go to the activity's delegate once the answer has gone. Recorded as
    /// `streamsOpened` in the originating record of that continuation, and, once the streams
    /// have ended, `streamsEnded` with the bytes this side sent and received over them.
    func openStreams(sequence: UInt64, stream id: UInt32, on streams: LinkStreams) throws(DeviceServiceError) -> @MainActor () -> Void {
        guard let activity = advertiser.provided(sequence: sequence) else { throw .notCurrent }
        guard activity.supportsContinuationStreams, provider.canOpenStreams(for: activity) else {
            throw .noStreams("\(activity.activityType) does not support continuation streams")
        }
        var stream: any ContinuationStreamChannel = streams.accept(id, idleTimeout: streamIdleTimeout)
        if let history = provider.continuationHistory, let link = links.all.first(where: { $0.streams === streams }) {
            let record = history.originatingRecord(activityType: activity.activityType, title: activity.title,
                                                   device: links.name(of: link), sequence: sequence, streams: true)
            history.record(.streamsOpened, in: record)
            stream = CountingStreamChannel(stream) { [weak history] sent, received in
                history?.record(.streamsEnded(sent: sent, received: received), in: record)
            }
        }
        let provider = provider, accepted = stream
        return { provider.acceptStreams(accepted, for: activity) }
    }
}
