import BatonContinuity

/// A call the agent answers later, counted among its caller's calls waiting.
extension Agent {
    /// Answers `caller`'s `call` with `answer`, run as one of the caller's calls waiting: past
    /// `maximumPendingCallsPerApp` the call is refused at once, so one app cannot pile up calls;
    /// if the agent has gone by the time `answer` would run, the call fails as the connection
    /// being unavailable.
    func answerWaiting(_ call: DBusAnswer<AgentMethod>, from caller: JoinedApp,
                       _ answer: @escaping @MainActor (Agent, DBusAnswer<AgentMethod>) async -> Void) {
        guard caller.pendingCalls < maximumPendingCallsPerApp else {
            return call.fail(.refused, "too many calls waiting (at most \(maximumPendingCallsPerApp))")
        }
        caller.pendingCalls += 1
        Task { @MainActor [weak self, weak caller] in
            defer { caller?.pendingCalls -= 1 }
            guard let self else { return call.fail(.connectionUnavailable, "the agent is stopping") }
            await answer(self, call)
        }
    }
}
