import BatonAgent
import BatonContinuity
import Foundation

/// `baton pair --accept` through the agent (`batond`) that runs for this device: the agent
/// opens the window (it holds the listener, the authority and, on a desktop, the notification
/// with Accept and Decline), and this terminal is asked each request's code too; the first
/// answer, here or on the desktop, counts. At the end of input this terminal answers nothing
/// and leaves it to the desktop (or the window's time). The window closes when this command
/// ends (Ctrl-C included).
final class PairThroughAgent: AgentToolApp {
    let seconds: Int
    let listen: PeerAddress
    /// The terminal's question for each request still open, by request.
    private var questions: [UInt64: Task<Void, Never>] = [:]
    private var windowDeadline: LoopSource?

    init(connection: AgentConnection, seconds: Int, listen: PeerAddress) {
        self.seconds = seconds
        self.listen = listen
        super.init(connection: connection)
    }

    override func joined() {
        super.joined()
        guard windowDeadline == nil else { return }  // joined again after the agent came back: the window went with it
        // The agent says when the window closes; should it not (it went away), stop a little after.
        windowDeadline = MainLoop.after(.seconds(Int64(seconds) + 10)) { [weak self] in
            self?.failure = "the agent did not say the pairing window closed"
            Application.shared.terminate(nil)
        }
        Task { @MainActor in
            do {
                let port = try await connection.openPairingWindow(seconds: UInt32(seconds), host: listen.host, port: listen.port) { [weak self] event in
                    self?.handle(event)
                }
                say("pairing window open on \(PeerAddress(host: listen.host, port: port)) for \(seconds) s, in the agent (batond)"
                    + " at \(connection.socketPath): requests are also shown as desktop notifications")
            } catch {
                failure = (error as? GLibError)?.message ?? "\(error)"
                Application.shared.terminate(nil)
            }
        }
    }

    private func handle(_ event: AgentPairingEvent) {
        switch event {
        case .request(let id, let code, let peer, let newcomerTypes, let group):
            let from = peer.isEmpty ? "" : " from \(shown(peer))"
            let question: String
            if newcomerTypes {
                say("a new device\(from) wants to join group '\(shown(group))': code \(shown(code)) (type it on the new device)")
                question = "Does the new device say 'code \(shown(code)) matches'? [y/N]"
            } else {
                say("a new device\(from) wants to join group '\(shown(group))': code \(shown(code))")
                question = "Does the new device show \(shown(code))? [y/N]"
            }
            questions[id] = Task { @MainActor [weak self] in
                let answer = await TerminalAnswers.shared.yesOrNo(question)
                guard let self, !Task.isCancelled, self.questions.removeValue(forKey: id) != nil, let answer else { return }
                self.connection.answerPairing(id, confirmed: answer)
            }
        case .requestEnded(let id):
            guard let question = questions.removeValue(forKey: id) else { return }
            question.cancel()
            say("(answered on the desktop, or the pairing ended)")
        case .message(let text):
            say(text)
        case .closed(let paired, let text):
            if paired {
                say("paired '\(shown(text))': it is a device of the group now")
            } else {
                failure = text
            }
            windowDeadline?.cancel()
            Application.shared.terminate(nil)
        }
    }
}
