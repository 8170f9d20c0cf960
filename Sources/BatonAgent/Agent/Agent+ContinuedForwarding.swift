import Baton
import BatonContinuity
import Foundation

/// An app's `Continued` forwarded to the activity's device in the loop turn that read it, and
/// answered in the turn that reads the device's acknowledgement, as a `FetchPayload` is
/// (`Agent+FetchForwarding`): the continuing app finishes its continuation only once that
/// answer has come (Baton's `Continued` acknowledgement), so each turn of the agent's loop on
/// the way is a wake-up more before the app is done.
extension Agent {
    /// Tells `activity`'s device (`device`, `sequence`) that `app` continued it, now, and
    /// answers `call` from the device's reply, recording `wasContinuedSent` (or the failure) in
    /// the continuation history as the task's path did; failures are the Handoff codes the node
    /// gives, by their agent error names. Counted in the app's calls waiting until answered.
    func forwardContinued(_ call: DBusAnswer<AgentMethod>, device: String, sequence: UInt64, _ activity: NearbyActivity, for app: JoinedApp) {
        let history = continuationHistory
        let record = history.record(of: activity, streams: false)
        app.pendingCalls += 1
        node.startConfirmingContinued(activity) { [weak app] result in
            app?.pendingCalls -= 1
            switch result {
            case .success:
                call.reply(.continued(device: device, sequence: sequence), ())
                history.record(.wasContinuedSent, in: record)
            case .failure(let error):
                Agent.fail(call, with: error, recordedIn: record, of: history)
            }
        }
    }
}
