import BatonContinuity
import BatonLoop
import Foundation

/// What the agent says about the pairing window an app opened through it.
public enum AgentPairingEvent: Sendable, Equatable {
    /// A new device asks to join: this side's `code` ("123 456"), the device's IP address
    /// (`peer`), whether it says its person types the code (`newcomerTypes`: then ask whether
    /// it says the code matched), and the group's name. Answer with `answerPairing`.
    case request(id: UInt64, code: String, peer: String, newcomerTypes: Bool, group: String)
    /// Request `id` needs no answer any more (answered on the desktop, or its session ended).
    case requestEnded(id: UInt64)
    /// Something to tell the person (a newcomer refused, an attempt failed).
    case message(String)
    /// The window closed: with a device paired (`text` its name), or not (`text` why).
    case closed(paired: Bool, text: String)
}

extension AgentConnection {
    /// Opens a pairing window in the agent (it must hold the group's authority), listening on
    /// `host:port` (port 0: any) for `seconds`; returns the port. `events` gets what happens
    /// until `.closed`. The window closes when this connection leaves. Throws the agent's
    /// refusal (a `GLibError` whose message says why: no authority, a window open already).
    public func openPairingWindow(seconds: UInt32, host: String, port: UInt16,
                                  events: @escaping @MainActor (AgentPairingEvent) -> Void) async throws -> UInt16 {
        guard isJoined, let bus else {
            throw CocoaError.handoff(.userActivityConnectionUnavailable, "the Baton agent is not running (\(socketPath))")
        }
        for subscription in pairingSubscriptions { bus.unsubscribe(subscription) }
        let deliver: @MainActor (AgentSignal) -> Void = { signal in
            switch signal {
            case .pairingRequest(let id, let code, let peer, let types, let group):
                events(.request(id: id, code: code, peer: peer, newcomerTypes: types, group: group))
            case .pairingRequestEnded(let id): events(.requestEnded(id: id))
            case .pairingEvent(let text): events(.message(text))
            case .pairingWindowClosed(let paired, let text): events(.closed(paired: paired, text: text))
            case .nearbyChanged, .inspectionEvent: break
            }
        }
        pairingSubscriptions = [AgentSignal.Member.pairingRequest, .pairingRequestEnded, .pairingEvent, .pairingWindowClosed].map {
            bus.subscribe($0, deliver)
        }
        let listening = try await bus.call(.openPairingWindow(seconds: seconds, host: host, port: UInt32(port)), timeout: callTimeout)
        guard let port = UInt16(exactly: listening) else {
            throw CocoaError.handoff(.userActivityHandoffFailed, "malformed OpenPairingWindow reply")
        }
        return port
    }

    /// Answers request `id` of the window this app opened: `confirmed` if its person confirmed
    /// the code.
    public func answerPairing(_ id: UInt64, confirmed: Bool) {
        try? bus?.send(AgentMethod.answerPairing(request: id, confirmed: confirmed))
    }

    /// Closes the window this app opened.
    public func closePairingWindow() {
        try? bus?.send(AgentMethod.closePairingWindow)
    }
}
