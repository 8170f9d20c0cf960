import BatonLoop
import Crypto
import Foundation

/// The side of a pairing on the device that joins: it makes its own P-256 key, in memory,
/// connects to a pairing window with a self-signed certificate for it (the TLS handshake proves
/// it holds the key), and, once the person here confirms the code, asks for a name (nothing
/// names the device before that yes) and, once the window's person confirmed too, takes the
/// device certificate the group issued for exactly that key.
///
/// The key never leaves this process: the connection carries only its certificate, the
/// messages of `PairingMessage`, and nothing at all is written here before the grant came
/// and verified (`save`).
@MainActor
public final class PairingNewcomer {
    /// The name asked for.
    public let name: String
    /// This device's own new key and its self-signed certificate.
    let certificate: PairingCertificate
    /// How long the window has to answer each message that needs no person.
    static let messageDeadline: Duration = .seconds(10)
    /// Every byte this side writes to the connection (for the tests).
    var onSend: ((Data) -> Void)?
    /// True once the attempt under way showed its code (`join` tries it again only before).
    private var prompted = false
    /// What the newcomer does as typed events (the code shown to the person here, joined, or
    /// why it failed, with the attempts left): observers here, and the process's diagnostics pipe.
    public let diagnostics = Diagnostics()

    /// What the person on the new device is asked about.
    public struct Prompt: Sendable {
        /// The code of this session.
        public let code: PairingCode
        /// What the window *says*: that its person types this code there (and it shows no code
        /// of its own). Unauthenticated, so it may change only the words: the person here must
        /// still confirm `code` itself (asked whether the window says that code matched),
        /// never just whether to join.
        public let windowTypes: Bool
    }

    /// A newcomer asking for `name`, with a new key.
    public init(name: String) throws(PairingError) {
        self.name = name
        certificate = try PairingCertificate(key: P256.Signing.PrivateKey())
    }

    /// Pairs with the window at `host:port`: `confirm` gets the code (`Prompt`) and returns whether the
    /// person here confirmed that code — compared it with the window's, or typed the window's
    /// and it matched (`typing` tells the window this side types its code) — whatever
    /// `Prompt.windowTypes` says; it must return false promptly when its task is cancelled (the
    /// other side said no). The whole pairing takes at most `timeout`. Once the grant came and
    /// verified against this device's key, `save` writes the identity (all or nothing); the
    /// window hears whether it did. Returns the identity saved.
    ///
    /// An attempt that fails before any code was shown, for a reason that may pass by itself
    /// (the window's port refused or reset the connection, its listener was full, the handshake
    /// failed), is made again as `retry` says, within `timeout`; `onRetry` hears each failure,
    /// the delay before the next attempt and how many attempts are left. A refusal, a "no" on
    /// either side or a code that does not match is never tried again (`PairingRetry`). Every
    /// attempt presents this newcomer's one key; one pairing at a time.
    public func join(host: String, port: UInt16, typing: Bool, timeout: Duration, retry: PairingRetry = .never,
                     onRetry: (@MainActor (_ failure: PairingError, _ delay: Duration, _ attemptsLeft: Int) -> Void)? = nil,
                     confirm: @escaping @MainActor (Prompt) async -> Bool,
                     save: @MainActor (DeviceIdentity) throws -> Void) async throws(PairingError) -> DeviceIdentity {
        do throws(PairingError) {
            let identity = try await attempts(host: host, port: port, typing: typing, timeout: timeout, retry: retry,
                                              onRetry: onRetry, confirm: confirm, save: save)
            diagnostics.publish(.joinedGroup(group: identity.groupName, device: identity.name))
            return identity
        } catch {
            diagnostics.publish(.pairingFailed(reason: .init(error), attemptsLeft: nil))
            throw error
        }
    }

    /// `join`'s attempts, each made again as `retry` says while it may pass by itself.
    private func attempts(host: String, port: UInt16, typing: Bool, timeout: Duration, retry: PairingRetry,
                          onRetry: (@MainActor (_ failure: PairingError, _ delay: Duration, _ attemptsLeft: Int) -> Void)?,
                          confirm: @escaping @MainActor (Prompt) async -> Bool,
                          save: @MainActor (DeviceIdentity) throws -> Void) async throws(PairingError) -> DeviceIdentity {
        let started = ContinuousClock.now
        var attempt = 1
        while true {
            prompted = false
            do throws(PairingError) {
                return try await join(host: host, port: port, typing: typing, timeout: timeout, started: started, confirm: confirm, save: save)
            } catch {
                let delay = retry.delay(after: attempt)
                guard !prompted, attempt < retry.attempts, PairingRetry.mayPass(error), !Task.isCancelled,
                      ContinuousClock.now - started + delay < timeout else { throw error }
                onRetry?(error, delay, retry.attempts - attempt)
                await withLoopContinuation { (resumed: CheckedContinuation<Void, Never>) in
                    MainLoop.after(delay) { resumed.resume() }
                }
                attempt += 1
            }
        }
    }

    /// One attempt of `join`, begun with the pairing at `started`.
    private func join(host: String, port: UInt16, typing: Bool, timeout: Duration, started: ContinuousClock.Instant,
                      confirm: @escaping @MainActor (Prompt) async -> Bool,
                      save: @MainActor (DeviceIdentity) throws -> Void) async throws(PairingError) -> DeviceIdentity {
        let channel = try await PairingChannel.connect(host: host, port: port, certificate: certificate)
        channel.onSend = onSend
        defer { channel.close() }
        // The name goes only with this side's yes (the verdict): a window, a stranger's too, learns nothing before.
        try await channel.send(.hello(version: PairingMessage.version, typing: typing))
        guard case .commit(let refusal, let commitment, let reason, let windowTypes) = try await channel.receive(.commit, within: Self.messageDeadline) else {
            throw .malformedMessage(step: "commit")
        }
        guard refusal == .none else { throw .refused(refusal, reason: reason) }
        let nonce = PairingCode.nonce()
        try await channel.send(.nonce(nonce))
        guard case .reveal(let theirs) = try await channel.receive(.reveal, within: Self.messageDeadline) else {
            throw .malformedMessage(step: "reveal")
        }
        guard PairingCode.commitment(exporter: channel.exporter, nonce: theirs) == commitment else {
            channel.abort()
            throw .commitmentMismatch
        }
        let code = PairingCode(exporter: channel.exporter, authorityKey: channel.peerKeyInfo, newcomerKey: channel.ownKeyInfo,
                               authorityNonce: theirs, newcomerNonce: nonce)
        let remaining = max(timeout - (ContinuousClock.now - started), .seconds(1))
        let prompt = Prompt(code: code, windowTypes: windowTypes)
        prompted = true  // from here on, never tried again
        // Only a code the person here is shown: a side that types the other's code never sees its own.
        if !typing { diagnostics.publish(.pairingCode(code: code.description, onWindow: false)) }
        let race = await ConfirmationRace.run(local: { await confirm(prompt) },
                                              remote: { () throws(PairingError) in try await channel.receive(.grant, within: remaining) })
        let answer: Result<PairingMessage, PairingError>
        switch race.first {
        case .local(false):
            try? await channel.send(.verdict(false, name: ""))
            race.remote.cancel()
            throw .declinedHere
        case .local(true):
            try await channel.send(.verdict(true, name: name))
            answer = await race.remote.loopValue()
        case .remote(let result):
            race.local.cancel()
            answer = result
            // A grant before this side's verdict is out of protocol; a refusal ends it.
            if case .success(.grant(true, _, _)) = result { throw .malformedMessage(step: "grant (before the verdict)") }
        }
        guard case .grant(let ok, let bytes, let reason) = try answer.get() else { throw .malformedMessage(step: "grant") }
        guard ok else { throw .declinedThere(reason: reason) }
        // The grant is checked, then saved: a grant that does not fit is refused; one that fits
        // but cannot be written is "issued, not saved" (the window has added the device by now).
        // The window gets fixed words either way; the detail (paths) stays here.
        let identity: DeviceIdentity
        do {
            identity = try DeviceGrant(serialized: bytes).identity(privateKey: certificate.key, expectedName: name)
        } catch {
            try? await channel.send(.saved(ok: false, reason: "the grant was refused"))
            throw .grantRefused(error as? TrustError ?? .grantRefused(reason: "\(error)"))
        }
        do {
            try save(identity)
        } catch {
            try? await channel.send(.saved(ok: false, reason: "the new device could not save its identity"))
            throw .notSaved(name: name, reason: "\(error)")
        }
        try? await channel.send(.saved(ok: true, reason: ""))
        return identity
    }
}
