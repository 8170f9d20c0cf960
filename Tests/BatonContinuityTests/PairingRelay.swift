@testable import BatonContinuity
import BatonLoop
import Foundation

/// A machine in the middle of a pairing that terminates TLS on both sides, each with a key of
/// its own: towards the newcomer it plays the window, towards the window the newcomer. It passes
/// the hello on, commits and reveals nonces of its own on each side (the best it can do: a relay
/// that forwards the nonce messages verbatim is caught at the commitment, which names each
/// session's exporter), then forwards every byte both ways. Or, `verbatim`, it forwards every
/// byte from the start.
@MainActor
final class PairingRelay {
    let listener: PairingListener
    /// How many connections it relayed.
    private(set) var relayed = 0

    init(to port: UInt16, verbatim: Bool = false) throws {
        listener = try PairingListener()
        Task { @MainActor [listener] in
            while let down = await listener.accept() {
                guard let up = try? await PairingChannel.connect(host: "127.0.0.1", port: port) else {
                    down.abort()
                    continue
                }
                self.relayed += 1
                Task { @MainActor in
                    if !verbatim {
                        do throws(PairingError) { try await Self.interpose(down, up) } catch {
                            down.abort()
                            up.abort()
                            return
                        }
                    }
                    Task { @MainActor in await down.forward(to: up) }
                    await up.forward(to: down)
                }
            }
        }
    }

    var port: UInt16 { listener.port }

    func close() { listener.close() }

    private static func interpose(_ down: PairingChannel, _ up: PairingChannel) async throws(PairingError) {
        down.pending?.authenticated()
        try await up.send(try await down.receive(.hello, within: .seconds(10)))
        let commit = try await up.receive(.commit, within: .seconds(10))
        guard case .commit(.none, _, _, let typing) = commit else { return try await down.send(commit) }
        let towardsNewcomer = PairingCode.nonce()
        try await down.send(.commit(refusal: .none, commitment: PairingCode.commitment(exporter: down.exporter, nonce: towardsNewcomer),
                                    reason: "", typing: typing))
        _ = try await down.receive(.nonce, within: .seconds(10))
        try await up.send(.nonce(PairingCode.nonce()))
        _ = try await up.receive(.reveal, within: .seconds(10))
        try await down.send(.reveal(towardsNewcomer))
    }
}
