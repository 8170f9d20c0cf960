import BatonLoop

/// The wait of a pairing after the code is shown: the person's answer on this device, and the
/// other device's next message, whichever comes first. A "no" on either side ends it at once,
/// so neither person is left with a question the other side has already answered.
@MainActor
enum ConfirmationRace {
    /// What came first.
    enum First {
        case local(Bool)
        case remote(Result<PairingMessage, PairingError>)
    }

    /// Runs `local` (the person's answer; it must end promptly, with false, when its task is
    /// cancelled) and `remote` (the next message) together; returns the first to finish, and
    /// the tasks, to await or cancel the other.
    static func run(local: @escaping @MainActor () async -> Bool,
                    remote: @escaping @MainActor () async throws(PairingError) -> PairingMessage)
        async -> (first: First, local: Task<Bool, Never>, remote: Task<Result<PairingMessage, PairingError>, Never>) {
        let localTask = Task { @MainActor in await local() }
        let remoteTask = Task { @MainActor () -> Result<PairingMessage, PairingError> in
            do throws(PairingError) { return .success(try await remote()) } catch { return .failure(error) }
        }
        let first = await withLoopContinuation { (continuation: CheckedContinuation<First, Never>) in
            let once = ResumeOnce(continuation)
            Task { @MainActor in once.resume(.local(await localTask.loopValue())) }
            Task { @MainActor in once.resume(.remote(await remoteTask.loopValue())) }
        }
        return (first, localTask, remoteTask)
    }
}

/// A continuation resumed by the first of several callers.
@MainActor
private final class ResumeOnce {
    private var continuation: CheckedContinuation<ConfirmationRace.First, Never>?
    init(_ continuation: CheckedContinuation<ConfirmationRace.First, Never>) { self.continuation = continuation }
    func resume(_ value: ConfirmationRace.First) {
        continuation?.resume(returning: value)
        continuation = nil
    }
}
