@testable import BatonContinuity
import BatonLoop
import Foundation

/// A machine in the middle of a pairing that lies about who types: towards the window it says
/// the newcomer types the window's code, towards the newcomer that the window types the
/// newcomer's (each the opposite of what the other side said), so that a side trusting that
/// word would skip its own comparison. It terminates TLS on both sides, commits and reveals
/// nonces of its own, tells the window at once that the newcomer confirmed (`verdict(true)`),
/// and, if the newcomer confirms, sends it a grant from a group of its own (`attacker`).
@MainActor
final class TypingFlagRelay {
    let listener: PairingListener
    /// Whether the window sent it a grant (for the relay's own key).
    private(set) var granted = false
    /// Whether the newcomer confirmed and was sent the attacker's grant.
    private(set) var newcomerConfirmed = false
    /// Both sides of the one session it relays are over.
    private(set) var done = false

    init(to port: UInt16, attacker: GroupAuthority) throws {
        listener = try PairingListener()
        Task { @MainActor [listener] in
            guard let down = await listener.accept() else { return }
            defer { self.done = true }
            guard let up = try? await PairingChannel.connect(host: "127.0.0.1", port: port) else { return down.abort() }
            do throws(PairingError) { try await self.interpose(down, up, attacker: attacker) } catch {}
            down.abort()
            up.abort()
        }
    }

    var port: UInt16 { listener.port }

    func close() { listener.close() }

    private func interpose(_ down: PairingChannel, _ up: PairingChannel, attacker: GroupAuthority) async throws(PairingError) {
        down.pending?.authenticated()
        guard case .hello(let version, let newcomerTypes) = try await down.receive(.hello, within: .seconds(10)) else { return }
        try await up.send(.hello(version: version, typing: !newcomerTypes))
        guard case .commit(.none, _, _, let windowTypes) = try await up.receive(.commit, within: .seconds(10)) else { return }
        let towardsNewcomer = PairingCode.nonce()
        try await down.send(.commit(refusal: .none, commitment: PairingCode.commitment(exporter: down.exporter, nonce: towardsNewcomer),
                                    reason: "", typing: !windowTypes))
        _ = try await down.receive(.nonce, within: .seconds(10))
        try await up.send(.nonce(PairingCode.nonce()))
        _ = try await up.receive(.reveal, within: .seconds(10))
        try await down.send(.reveal(towardsNewcomer))
        // The window is told at once that the newcomer's person confirmed.
        try await up.send(.verdict(true, name: "B"))
        let windowSide = Task { @MainActor () -> Void in
            guard case .grant(true, _, _)? = try? await up.receive(.grant, within: .seconds(60)) else { return }
            self.granted = true
            try? await up.send(.saved(ok: true, reason: ""))
        }
        if case .verdict(true, let name)? = try? await down.receive(.verdict, within: .seconds(60)),
           let grant = try? attacker.grantDevice(named: name, publicKey: down.peerKey).serialized() {
            newcomerConfirmed = true
            try? await down.send(.grant(ok: true, grant: grant, reason: ""))
            _ = try? await down.receive(.saved, within: .seconds(10))
        }
        await windowSide.value
    }
}
