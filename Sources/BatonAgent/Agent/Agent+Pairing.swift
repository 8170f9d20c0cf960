import BatonContinuity
import Foundation

/// An app's calls about pairing, answered by the agent's pairing window (`AgentPairing`).
extension Agent {
    /// `OpenPairingWindow(u seconds, s host, u port) -> (u port)`, `AnswerPairing(t request, b
    /// confirmed)`, `ClosePairingWindow()`: the window's signals go to the app that opened it.
    func answerPairing(_ call: DBusAnswer<AgentMethod>, _ method: AgentMethod, from app: JoinedApp) {
        guard let pairing else { return call.fail(.refused, "this agent opens no pairing windows") }
        let opener = ObjectIdentifier(app)
        switch method {
        case .openPairingWindow(let seconds, let host, let port):
            guard port <= UInt16.max, Self.acceptable(host) else {
                return call.fail(.refused, "bad arguments")
            }
            do {
                let listening = try pairing.open(lifetime: .seconds(Int64(seconds)), host: host, port: UInt16(port), opener: opener) { [weak app] signal in
                    app?.bus.emit(signal)
                }
                log.info("\(app.name) opened a pairing window")
                call.reply(.openPairingWindow(seconds: seconds, host: host, port: port), UInt32(listening))
            } catch {
                call.fail(.refused, "\(error)")
            }
        case .answerPairing(let request, let confirmed):
            pairing.answer(request, confirmed: confirmed, opener: opener)
            call.reply(.answerPairing(request: request, confirmed: confirmed), ())
        default:
            pairing.close(opener: opener)
            call.reply(.closePairingWindow, ())
        }
    }
}
