import Baton
import BatonLoop
import Foundation

/// Continuation streams between devices (handoff-programming-guide, "Using Continuation
/// Streams"), carried on the link the two devices already have (`LinkStreams`): the continuing
/// side picks a stream id and sends `OpenStreams(sequence, id)`; the originating device opens
/// the stream, answers, and hands it to the activity's delegate. The continuing side does not
/// wait for that answer: its first bytes follow the call on the link (pipelined), so a request
/// and its response take one round trip on a warm link. A refused open reaches the streams as
/// their error; they never read as empty.
extension ContinuityNode {
    /// On the continuing side: a stream channel to `activity` on its device, opened and
    /// returned at once: what is written to it travels right behind `OpenStreams`, before the
    /// device has answered (`LinkStreams.open`).
    ///
    /// Throws, as Handoff codes, what is known before anything is sent:
    /// `userActivityConnectionUnavailable` when there is no link to the device,
    /// `userActivityHandoffFailed` when the link already has `LinkStreams.maximumStreams` of
    /// this side's streams open. What the device answers later reaches the stream as its error
    /// (its reads and writes throw it), as a refused connection does for a pair of streams:
    /// `featureUnsupported` when the activity does not take streams,
    /// `userActivityHandoffFailed` when the device refuses them (or the activity is no longer
    /// current), `userActivityRemoteApplicationTimedOut` when it does not answer within
    /// `streamAcceptanceTimeout`, `userActivityConnectionUnavailable` when the link goes first.
    public func openStreams(for activity: NearbyActivity) async throws -> any ContinuationStreamChannel {
        guard let link = links.link(shownAs: activity.device), !link.bus.bus.isClosed else {
            throw CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "\(activity.device) is not connected"])
        }
        guard let stream = link.streams.open(sequence: activity.sequence, idleTimeout: streamIdleTimeout, timeout: streamAcceptanceTimeout) else {
            if link.bus.bus.isClosed {
                throw CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "\(activity.device) is not connected"])
            }
            throw CocoaError(.userActivityHandoffFailed, userInfo: [NSLocalizedDescriptionKey:
                "\(LinkStreams.maximumStreams) continuation streams are open to \(activity.device) already"])
        }
        log.debug("streams opening to \(activity.device) for \(activity.activityType)")
        return stream
    }
}
