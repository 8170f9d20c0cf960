import Baton
import BatonContinuity
import Foundation

/// The connection as the app's `NearbyActivitySource`: a continuation's fetch, its
/// confirmation and its streams go through the agent, failing with the Handoff codes it saw.
extension AgentConnection {
    public func fetchPayload(of activity: NearbyActivity) async throws -> Data {
        try await callAgent(.fetchPayload(device: activity.device, sequence: activity.sequence))
    }

    public func confirmContinued(_ activity: NearbyActivity) async throws {
        try await callAgent(.continued(device: activity.device, sequence: activity.sequence))
    }

    public func openStreams(for activity: NearbyActivity) async throws -> any ContinuationStreamChannel {
        if isJoined, let bus, (agentVersion ?? 0) >= Self.pipelinedStreamsVersion {
            return try await openStreamsPipelined(for: activity, on: bus)
        }
        let token = try await callAgent(.openStreams(device: activity.device, sequence: activity.sequence))
        guard token.count == StreamRelay.tokenSize else {
            throw CocoaError.handoff(.userActivityHandoffFailed, "malformed OpenStreams reply")
        }
        do { return try await streamConnection(token: token) } catch {
            throw CocoaError.handoff(.userActivityConnectionUnavailable, "cannot reach the agent for the streams: \(error)")
        }
    }

    /// Calls `method` of the agent about `activity`; failures are the Handoff codes the agent
    /// saw, `.userActivityConnectionUnavailable` without an agent, and
    /// `.userActivityRemoteApplicationTimedOut` past `callTimeout`.
    private func callAgent<Reply>(_ call: DBusCall<AgentMethod, Reply>) async throws -> Reply {
        guard isJoined, let bus else {
            throw CocoaError.handoff(.userActivityConnectionUnavailable, "the Baton agent is not running (\(socketPath))")
        }
        do {
            return try await bus.call(call, timeout: callTimeout)
        } catch let error as GLibError {
            throw Self.handoffError(error)
        } catch let error as DBusMessageMismatch {
            throw CocoaError.handoff(HandoffFailure.code(for: error), "\(error)")
        }
    }

    /// The Handoff error for a failed call to the agent (`HandoffFailure.code(for:)`): the
    /// code its error name carries, `.userActivityRemoteApplicationTimedOut` past the call's
    /// timeout, else `.userActivityConnectionUnavailable`; with the agent's words.
    static func handoffError(_ error: GLibError) -> CocoaError {
        CocoaError.handoff(HandoffFailure.code(for: error), error.message)
    }
}
