import Baton
import BatonLoop
import Foundation

/// Fetching a payload without a task: the call is written in the caller's turn of the loop, and
/// `completion` runs in the turn that reads the reply. An agent forwarding an app's
/// `FetchPayload` answers the app from there, with no turn of the loop between reading the
/// device's reply and writing its own (an `await` resumes one turn later).
extension ContinuityNode {
    /// `fetchPayload(of:)` with a completion instead of `async`: the same call over the same
    /// link, the same failures (Handoff codes, `HandoffFailure.error(for:)`; a link replaced
    /// while the call was out is asked again over the one that stays), the same diagnostics.
    /// `completion` runs exactly once, on the loop, never before this returns.
    package func startFetchingPayload(of activity: NearbyActivity, timeout: Duration = .seconds(10),
                                      completion: @escaping @MainActor (Result<Data, CocoaError>) -> Void) {
        calls.startFetchingPayload(of: activity, timeout: timeout) { [weak self] result in
            if case .failure(let error) = result {
                self?.diagnostics.publish(.continuationFailed(activityType: activity.activityType, code: error.code.rawValue))
            }
            completion(result)
        }
    }
}

extension PeerCalls {
    /// See `ContinuityNode.startFetchingPayload(of:timeout:completion:)`.
    func startFetchingPayload(of activity: NearbyActivity, timeout: Duration,
                              completion: @escaping @MainActor (Result<Data, CocoaError>) -> Void) {
        start(.fetchPayload(sequence: activity.sequence), to: activity.device, timeout: timeout) { [weak self] result, link in
            if case .success = result, let link { self?.recordFetch(of: activity.sequence, over: link) }
            completion(result)
        }
    }

    /// Starts `call` over the link to `device` (as shown in `NearbyActivity.device`; see
    /// `LinkTable.link(shownAs:)`); a link replaced while the call was out (two devices that
    /// dialed each other at once) is asked again over the one that stays. `completion` gets the
    /// reply or the failure as a Handoff code, and the link that answered (nil when there was
    /// none); it runs exactly once, on the loop, never before this returns.
    func start<Reply>(_ call: DBusCall<DeviceMethod, Reply>, to device: String, timeout: Duration,
                      completion: @escaping @MainActor (Result<Reply, CocoaError>, PeerLink?) -> Void) {
        guard let link = links.link(shownAs: device) else {
            let error = CocoaError(.userActivityConnectionUnavailable, userInfo: [NSLocalizedDescriptionKey: "\(device) is not connected"])
            MainLoop.idle { completion(.failure(error), nil) }
            return
        }
        start(call, over: link, timeout: timeout) { [weak self] result in
            guard case .failure(let error) = result, error.code == .userActivityConnectionUnavailable,
                  let replacement = self?.links[link.id], replacement !== link, let self else {
                return completion(result, link)
            }
            self.start(call, over: replacement, timeout: timeout) { completion($0, replacement) }
        }
    }

    /// Starts `call` over `link`; its reply, or its failure as a Handoff code, goes to `completion`.
    func start<Reply>(_ call: DBusCall<DeviceMethod, Reply>, over link: PeerLink, timeout: Duration,
                      completion: @escaping @MainActor (Result<Reply, CocoaError>) -> Void) {
        let method = call.method
        do {
            try link.bus.bus.start(DeviceMethod.path, DeviceMethod.interface, method.member.rawValue, method.arguments,
                                   replyType: method.member.replyType, timeout: timeout) { values in
                switch values {
                case .success(let values):
                    guard let reply = call.reply(values) else {
                        let mismatch = DBusMessageMismatch(description: "the \(method.member.rawValue) reply is not \(method.member.replyType)")
                        return completion(.failure(HandoffFailure.error(for: mismatch)))
                    }
                    completion(.success(reply))
                case .failure(let error):
                    completion(.failure(HandoffFailure.error(for: error)))
                }
            }
        } catch {
            let failure = HandoffFailure.error(for: error)
            MainLoop.idle { completion(.failure(failure)) }
        }
    }
}
