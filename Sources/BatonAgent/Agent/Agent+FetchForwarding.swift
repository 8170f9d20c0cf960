import Baton
import BatonContinuity
import BatonLoop
import Foundation

/// An app's `FetchPayload` forwarded to the activity's device in the loop turn that read it,
/// and answered in the turn that reads the device's reply: the agent adds no turn of its loop
/// to the warm continuation's path (a task's `await` would add one at the call and one at the
/// reply).
extension Agent {
    /// Forwards `method` in turn when it is a `FetchPayload` that no payload fetched while
    /// `app` was launched waits for (`forwardFetch`) or a `Continued` (`forwardContinued`);
    /// false, and nothing done, otherwise.
    func forwardedInTurn(_ call: DBusAnswer<AgentMethod>, _ method: AgentMethod, _ activity: NearbyActivity, for app: JoinedApp) -> Bool {
        switch method {
        case .fetchPayload(let device, let sequence) where !prefetches.contains(where: { $0.isFor(activity, from: app) }):
            forwardFetch(call, device: device, sequence: sequence, activity, for: app)
        case .continued(let device, let sequence):
            forwardContinued(call, device: device, sequence: sequence, activity, for: app)
        default:
            return false
        }
        return true
    }

    /// Forwards `app`'s `FetchPayload` of `activity` (`device`, `sequence`) to its device now
    /// and answers `call` from the device's reply, recording both in the continuation history
    /// as the task's path does; failures are the Handoff codes the node gives, by their agent
    /// error names. Counted in the app's calls waiting until answered.
    private func forwardFetch(_ call: DBusAnswer<AgentMethod>, device: String, sequence: UInt64, _ activity: NearbyActivity, for app: JoinedApp) {
        let history = continuationHistory
        let record = history.record(of: activity, streams: false)
        app.pendingCalls += 1
        node.startFetchingPayload(of: activity) { [weak app] result in
            app?.pendingCalls -= 1
            switch result {
            case .success(let payload):
                call.reply(.fetchPayload(device: device, sequence: sequence), payload)
                history.record(.payloadFetched(bytes: payload.count), in: record)
            case .failure(let error):
                Agent.fail(call, with: error, recordedIn: record, of: history)
            }
        }
    }
}
