import Baton
import BatonContinuity
import CGLib
import Foundation
import Logging

/// The app's side of `org.baton.App1`: every call the agent makes to the app is dispatched
/// here (`answer(_:)`), and the stream connections it hands over are taken here.
extension AgentConnection {
    /// Answers `call`, one of the agent's calls to this app (`AppMethod`): a continuation
    /// handed over, a payload to fetch (saved first), `Continued`, and streams arrived.
    func answer(_ call: MethodCall) {
        let answer = DBusAnswer<AppMethod>(call)
        let method: AppMethod
        do { method = try answer.method() } catch { return answer.fail(.failed, "bad arguments: \(error)") }
        let id: UInt64
        switch method {
        case .continueNearby(let encoded):
            guard let activity = AgentInterface.nearby(from: encoded) else { return answer.fail(.failed, "bad arguments") }
            answer.reply(.continueNearby(activity: encoded), ())
            // The agent hands a launched app its continuation right after answering `Join`:
            // the call can arrive before that answer has been taken here.
            guard isJoined else {
                if handedBeforeJoined.count < 8 { handedBeforeJoined.append(activity) }
                return
            }
            Application.shared.continueNearbyActivity(activity)
            return
        case .inspect(let actions): return answerInspection(answer, actions: actions)
        case .watchInspection(let on): return answerWatchInspection(answer, on: on)
        case .fetchPayload(let advertisement), .continued(let advertisement), .streamsArrived(let advertisement, _):
            id = advertisement
        }
        guard let activity = sent.last(where: { $0.generation == id }) else {
            return answer.fail(.notCurrent, "that activity is no longer advertised")
        }
        switch method {
        case .fetchPayload:
            // The originating side, recorded in the app's own history (the agent records the
            // device that asked in its own): the fetch asked, then served or failed.
            let history = Application.shared.continuationHistory
            let record = history.originatingRecord(activityType: activity.activityType, title: activity.title, device: nil, sequence: id)
            Task { @MainActor in
                do throws(ProvidedActivityError) {
                    answeringFetch = true
                    defer { answeringFetch = false }
                    let payload = try await activities.payload(of: activity)  // saved first
                    answer.reply(.fetchPayload(id: id), payload)
                    history.record(.payloadServed(bytes: payload.count), in: record)
                    if let advertised = Application.shared.advertisedUserActivity, advertisedID(of: advertised) == id {
                        hold(payload, id: id, of: advertised)
                    }
                } catch {
                    switch error {
                    case .notCurrent:
                        history.record(.failed(code: CocoaError.Code.userActivityHandoffFailed.rawValue, reason: "the activity is no longer current"), in: record)
                        answer.fail(.notCurrent, "that activity is no longer current")
                    case .tooLarge(let reason):
                        history.record(.failed(code: CocoaError.Code.userActivityHandoffUserInfoTooLarge.rawValue, reason: reason), in: record)
                        answer.fail(.tooLarge, reason)
                    case .failed(let reason):
                        history.record(.failed(code: CocoaError.Code.userActivityHandoffFailed.rawValue, reason: reason), in: record)
                        answer.fail(.failed, reason)
                    }
                }
            }
        case .continued:
            Task.immediate { @MainActor in
                await activities.continued(activity)
                let history = Application.shared.continuationHistory
                history.record(.wasContinuedReceived, in: history.originatingRecord(activityType: activity.activityType, title: activity.title,
                                                                                    device: nil, sequence: id))
                answer.reply(.continued(id: id), ())
            }
        case .streamsArrived(_, let token):
            guard token.count == StreamRelay.tokenSize else { return answer.fail(.failed, "bad arguments") }
            answer.reply(.streamsArrived(id: id, token: token), ())
            // Recorded in the app's own history: opened, then, once they have ended, the bytes
            // the app sent and received over them.
            let history = Application.shared.continuationHistory
            let record = history.originatingRecord(activityType: activity.activityType, title: activity.title,
                                                   device: nil, sequence: id, streams: true)
            history.record(.streamsOpened, in: record)
            Task { @MainActor in
                do {
                    let stream = CountingStreamChannel(try await self.streamConnection(token: token)) { [weak history] sent, received in
                        history?.record(.streamsEnded(sent: sent, received: received), in: record)
                    }
                    self.activities.acceptStreams(stream, for: activity)
                } catch {
                    self.log.notice("could not take continuation streams from the agent: \(error)")
                }
            }
        case .continueNearby, .inspect, .watchInspection:
            break  // answered above
        }
    }

    /// A second connection to the agent's socket for a relayed stream: `marker` (`S` for a
    /// token the agent gave) and `token`.
    func streamConnection(token: Data, marker: UInt8 = StreamRelay.marker) async throws -> LocalStream {
        let connection = try connectToSocket()
        let stream = LocalStream(connection)
        g_object_unref(UnsafeMutableRawPointer(connection))
        try await stream.writeRaw(Data([marker]) + token)
        return stream
    }

    /// The interface version from which the agent takes `OpenStreamsPipelined`.
    static let pipelinedStreamsVersion: UInt32 = 6

    /// The continuation streams of `activity`, opened without waiting for the agent (version
    /// 6): this side picks the token, sends `OpenStreamsPipelined` and at once connects with
    /// `P` and the token, and returns the stream before the reply, so what the app writes
    /// follows the call through the agent (the hop costs no round trip of its own). If the
    /// call fails, the stream fails with the Handoff code of the failure (as the agent's failure
    /// frame also says): its reads and writes throw it.
    func openStreamsPipelined(for activity: NearbyActivity, on bus: LocalBus) async throws -> LocalStream {
        let token = StreamRelay.randomToken()
        let method = AgentMethod.openStreamsPipelined(device: activity.device, sequence: activity.sequence, token: token)
        let stream: LocalStream
        do {
            let connection = try connectToSocket()
            stream = LocalStream(connection)
            g_object_unref(UnsafeMutableRawPointer(connection))
        } catch {
            throw CocoaError.handoff(.userActivityConnectionUnavailable, "cannot reach the agent for the streams: \(error)")
        }
        do {
            try bus.start(AgentMethod.path, AgentMethod.interface, method.member.rawValue, method.arguments,
                          replyType: method.member.replyType, timeout: callTimeout) { [weak stream] result in
                if case .failure(let error) = result { stream?.failLocally(Self.handoffError(error)) }
            }
        } catch {
            stream.close()
            throw (error as? GLibError).map(Self.handoffError) ?? CocoaError.handoff(.userActivityHandoffFailed, "\(error)")
        }
        do { try await stream.writeRaw(Data([StreamRelay.pipelinedMarker]) + token) } catch {
            stream.close()
            throw CocoaError.handoff(.userActivityConnectionUnavailable, "cannot reach the agent for the streams: \(error)")
        }
        return stream
    }
}
