import BatonContinuity
import BatonLoop
import Foundation

/// A continuation's payload fetched from the originating device while the app that is to
/// continue it starts (`Agent.continueNearby` launched it): the fetch runs beside the launch,
/// and the launched app's own `FetchPayload` for that activity takes its result instead of
/// crossing the network again.
///
/// The rule: a prefetch is for one launched app and is used once. It is taken by the first
/// `FetchPayload` for the same activity (device and sequence) from the app the continuation
/// was handed to; any other call fetches as usual. Whatever the fetch gave — the payload, or
/// the Handoff failure the node saw — is that call's answer, so the app sees the sequence
/// Apple's does (`willContinue…`, then `continue…` or `didFailToContinue…` with the same
/// code). The originating app is still saved before its payload is sent ("before the activity
/// is continued on another device", handoff-programming-guide, "User Activity Delegate"): only
/// a launch's length earlier than when the launched app would have asked. One not taken is
/// dropped with its continuation (the app did not join in time, or the waiting list was
/// full), or `Agent.appCallTimeout` after it was handed over.
@MainActor
final class PayloadPrefetch {
    /// The activity whose payload is fetched.
    let activity: NearbyActivity
    /// The waiting continuation it belongs to (`WaitingContinuation.id`).
    let continuation: UInt64
    /// The app the continuation was handed to (its `JoinedApp.number`), once it joined.
    var app: UInt64?
    /// The fetch through the node, started with the launch.
    let fetch: Task<Data, any Error>
    /// Drops it once handed over and not taken in time.
    var expiry: LoopSource?

    init(activity: NearbyActivity, continuation: UInt64, node: ContinuityNode) {
        self.activity = activity
        self.continuation = continuation
        fetch = Task { @MainActor in try await node.fetchPayload(of: activity) }
    }

    /// Whether `app`'s fetch of `activity` is the one this prefetch is for.
    func isFor(_ activity: NearbyActivity, from app: JoinedApp) -> Bool {
        self.app == app.number && self.activity.device == activity.device && self.activity.sequence == activity.sequence
    }

    /// Stops it unused.
    func drop() {
        expiry?.cancel()
        expiry = nil
        fetch.cancel()
    }
}
