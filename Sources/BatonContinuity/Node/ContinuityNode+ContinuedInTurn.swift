import Baton
import BatonLoop
import Foundation

/// Saying an activity was continued without a task, as `startFetchingPayload` fetches: the
/// call is written in the caller's turn of the loop, and `completion` runs in the turn that
/// reads the device's acknowledgement. An agent forwarding an app's `Continued` answers the app
/// from there, with no turn of the loop between reading the device's reply and writing its own.
extension ContinuityNode {
    /// `confirmContinued(_:)` with a completion instead of `async`: the same `FetchPayload`
    /// sent first to a device this one did not fetch the activity from, the same call over the
    /// same link, the same failures (Handoff codes, `HandoffFailure.error(for:)`; a link
    /// replaced while the call was out is asked again over the one that stays), the same
    /// diagnostics (`continued`, or `continuationFailed` with the code). `completion` runs
    /// exactly once, on the loop, never before this returns.
    package func startConfirmingContinued(_ activity: NearbyActivity, timeout: Duration = .seconds(10),
                                          completion: @escaping @MainActor (Result<Void, CocoaError>) -> Void) {
        calls.startConfirmingContinued(activity, timeout: timeout) { [weak self] result in
            switch result {
            case .success:
                self?.diagnostics.publish(.continued(activityType: activity.activityType, from: activity.device))
            case .failure(let error):
                self?.diagnostics.publish(.continuationFailed(activityType: activity.activityType, code: error.code.rawValue))
            }
            completion(result)
        }
    }
}

extension PeerCalls {
    /// See `ContinuityNode.startConfirmingContinued(_:timeout:completion:)`.
    func startConfirmingContinued(_ activity: NearbyActivity, timeout: Duration,
                                  completion: @escaping @MainActor (Result<Void, CocoaError>) -> Void) {
        if let link = links.link(shownAs: activity.device) { askBeforeContinued(activity, over: link) }
        start(.continued(sequence: activity.sequence), to: activity.device, timeout: timeout) { result, _ in completion(result) }
    }
}
