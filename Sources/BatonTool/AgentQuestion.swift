import BatonAgent
import Foundation

/// Joins the agent as a tool, asks it one question (`ask`: its status, its inspection), hands
/// the answer, or why there is none, to `done` while still connected, and quits.
final class AgentQuestion<Answer>: AgentToolApp {
    let ask: @MainActor (AgentConnection) async throws -> Answer
    let done: @MainActor (Result<Answer, any Error>) -> Void

    init(connection: AgentConnection, ask: @escaping @MainActor (AgentConnection) async throws -> Answer,
         done: @escaping @MainActor (Result<Answer, any Error>) -> Void) {
        self.ask = ask
        self.done = done
        super.init(connection: connection)
    }

    override func joined() {
        super.joined()
        Task { @MainActor in
            do { done(.success(try await ask(connection))) } catch { done(.failure(error)) }
            Application.shared.terminate(nil)
        }
    }
}
