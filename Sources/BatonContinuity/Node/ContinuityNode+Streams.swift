import Baton
import BatonLoop
import Foundation

/// Continuation streams between devices (handoff-programming-guide, "Using Continuation
/// Streams"), carried on the link the two devices already have (`LinkStreams`): the continuing
/// side picks a stream id and calls `OpenStreams(sequence, id)`; the originating device opens
/// the stream, answers, and hands it to the activity's delegate. One round trip on a warm link;
/// a stream that cannot be opened or is refused fails with an error instead of reading as an
/// empty stream.
extension ContinuityNode {
    /// On the continuing side: a stream channel to `activity` on its device, once that device
    /// has opened it. Fails with `featureUnsupported` when the activity does not take streams,
    /// `userActivityRemoteApplicationTimedOut` when the device does not answer within
    /// `streamAcceptanceTimeout`, `userActivityHandoffFailed` when it refuses (or the link
    /// already has `LinkStreams.maximumStreams` open), `userActivityConnectionUnavailable` when
    /// there is no link.
    public func openStreams(for activity: NearbyActivity) async throws -> any ContinuationStreamChannel {
        let idle = streamIdleTimeout, timeout = streamAcceptanceTimeout
        var opened: LinkStream?
        do {
            _ = try await callDevice(activity.device) { bus in
                guard let link = links[bus.channel.peerIdentifier], link.bus === bus, !bus.bus.isClosed else {
                    throw CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "\(activity.device) is not connected"])
                }
                guard let stream = link.streams.makeStream(idleTimeout: idle) else {
                    throw CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey:
                        "\(LinkStreams.maximumStreams) continuation streams are open to \(activity.device) already"])
                }
                opened = stream
                do {
                    try await bus.call(.openStreams(sequence: activity.sequence, stream: stream.id), timeout: timeout)
                } catch {
                    stream.abort()
                    opened = nil
                    throw error
                }
            }
        } catch {
            throw Self.handoffError(for: error)
        }
        guard let opened else {
            throw CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "\(activity.device) is not connected"])
        }
        log.debug("streams open to \(activity.device) for \(activity.activityType)")
        return opened
    }
}
