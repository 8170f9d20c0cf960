import BatonLoop
import Foundation

/// A device holding the group's authority, open for a new device to pair: for `lifetime`, for
/// one grant issued, and for at most `maximumAttempts` sessions in which the person here was
/// asked (the code revealed) that then failed (declined, mismatched, timed out, broken off, a
/// name taken).
///
/// One newcomer at a time: another that says hello meanwhile is told the window is busy.
/// Connections that never reach the code (garbage, no certificate, silence, a hang-up before
/// the reveal) use no attempt: before the reveal nothing about the code has been learnt. The
/// listener bounds them in number and time. The newcomer names itself only in its verdict,
/// after its person's yes; the name is checked after both yeses, so the window is no oracle
/// of the group's names, and no refusal carries local text (paths): that is logged here. Code-stage sessions are spaced by
/// `attemptSpacing` (a newcomer that comes sooner waits out the rest). Nothing is written before both people confirmed: then the authority
/// issues the device for the key its connection proved (`GroupAuthority.grantDevice`) and only
/// then sends the grant.
@MainActor
public final class PairingWindow {
    /// What the person at the window is asked about. It holds no name: the newcomer says the
    /// name it asks for only after its own person's yes (`run` returns it once granted).
    public struct Request: Sendable {
        /// The code of this session.
        public let code: PairingCode
        /// The newcomer's IP address.
        public let peerHost: String?
        /// What the newcomer *says*: that its person types this side's code there (and it
        /// shows no code of its own). Unauthenticated, so it may change only the words: the
        /// person here must still confirm `code` itself (asked whether the newcomer says that
        /// code matched), never just whether to let the device in.
        public let newcomerTypes: Bool
    }

    /// What happened, for the window's log.
    public enum Event: Sendable {
        /// A newcomer was turned away before any code (`refusal`); that uses no attempt.
        case refused(PairingRefusal)
        /// A session failed; `attemptsLeft` remain (it used an attempt only if this side's person
        /// had been asked about the code).
        case attemptFailed(PairingError, attemptsLeft: Int)
    }

    /// How long a newcomer has for each message that needs no person.
    static let messageDeadline: Duration = .seconds(10)
    /// The least time between the end of one code-stage session and the start of the next.
    public var attemptSpacing: Duration = .seconds(1)
    /// Called with each event, on the loop.
    public var onEvent: ((Event) -> Void)?
    /// What the window does as typed events (open, each code shown to the person here, a
    /// newcomer refused, a session failed, a device paired): observers here, and the
    /// process's diagnostics pipe.
    public let diagnostics = Diagnostics()

    /// The listener the window uses.
    public let listener: PairingListener
    private let authority: GroupAuthority
    private let deviceDirectories: [URL]
    private let lifetime: Duration
    private var attemptsLeft: Int
    private let typing: Bool
    private let confirm: @MainActor (Request) async -> Bool
    private var session: (channel: PairingChannel, task: Task<Void, Never>)?
    private var lastSessionEnd: ContinuousClock.Instant?
    /// A newcomer waits out the spacing before its session.
    private var starting = false
    private var outcome: Result<String, PairingError>?
    /// The session in progress revealed its code: the person here was asked.
    private var asked = false
    /// The name of the device the session in progress issued, until it is delivered.
    private var issued: String?
    private var finished: CheckedContinuation<Void, Never>?
    private var deadline: LoopSource?
    /// The wait of a newcomer for the attempt spacing, cancelled when the window closes.
    private var spacing: Task<Void, Never>?

    /// A window on `listener` for `authority`. `confirm` asks the person here and returns true
    /// only if that person confirmed this session's code: typed the code the newcomer shows
    /// (`typing`) and it matched, or saw `Request.code` shown on both devices. It must never
    /// ask less because of `Request.newcomerTypes`, and must return false promptly when its
    /// task is cancelled. `typing` tells newcomers this side types their code, so they must show it. The list naming the new device is also written into
    /// each of `deviceDirectories` that belongs to the group (`grantDevice`).
    public init(authority: GroupAuthority, listener: PairingListener, updating deviceDirectories: [URL] = [],
                lifetime: Duration = .seconds(120), maximumAttempts: Int = 3, typing: Bool = false,
                confirm: @escaping @MainActor (Request) async -> Bool) {
        self.authority = authority
        self.listener = listener
        self.deviceDirectories = deviceDirectories
        self.lifetime = lifetime
        attemptsLeft = maximumAttempts
        self.typing = typing
        self.confirm = confirm
    }

    /// Runs the window until it closes; returns the name of the device paired, or why it
    /// closed without one (`PairingError.windowClosed`).
    public func run() async -> Result<String, PairingError> {
        deadline = MainLoop.after(lifetime) { [weak self, lifetime] in
            self?.finish(.failure(.windowClosed("its time (\(lifetime)) is up")))
        }
        diagnostics.publish(.pairingWindowOpen(port: listener.port))
        Task { @MainActor [weak self] in
            while let listener = self?.listener, let channel = await listener.accept() {
                Task { @MainActor [weak self] in await self?.handle(channel) }
            }
        }
        if outcome == nil { await withLoopContinuation { finished = $0 } }
        return outcome!
    }

    /// Closes the window now.
    public func close() { finish(.failure(.windowClosed("it was closed"))) }

    private func finish(_ result: Result<String, PairingError>) {
        guard outcome == nil else { return }
        // A grant issued but not yet delivered: the device is in the roster, so say that, whatever ended it.
        if let issued, case .failure(let error) = result, !error.isNotSaved {
            outcome = .failure(.notSaved(name: issued, reason: "\(error)"))
        } else {
            outcome = result
        }
        deadline?.cancel()
        deadline = nil
        spacing?.cancel()
        listener.close()
        diagnostics.publish(.pairingWindowClosed(port: listener.port))
        if let session {
            session.channel.abort()
            session.task.cancel()
        }
        finished?.resume()
        finished = nil
    }

    private func handle(_ channel: PairingChannel) async {
        defer { channel.close() }
        guard case .hello(let version, let theyType)? = try? await channel.receive(.hello, within: Self.messageDeadline) else {
            return channel.abort()  // out of protocol before any code: uses no attempt
        }
        channel.pending?.authenticated()
        // A newcomer in session that has hung up (its FIN or reset is in, not yet read) is not
        // pairing any more: its session ends now, as it would on its next read, before this
        // one is told the window is busy.
        if let current = session, current.channel.peerHasGone {
            current.channel.abort()
            await current.task.loopValue()
        }
        let refusal: PairingRefusal? =
            outcome != nil ? .closing
            : version != PairingMessage.version ? .version
            : session != nil || starting ? .busy
            : typing && theyType ? .bothTyping
            : nil
        if let refusal {
            diagnostics.publish(.pairingRefused(reason: refusal))
            onEvent?(.refused(refusal))
            try? await channel.send(.commit(refusal: refusal, commitment: Data(), reason: "", typing: typing))
            return
        }
        // Attempts are spaced: a newcomer right after another waits out the rest of the spacing.
        if let last = lastSessionEnd, ContinuousClock.now - last < attemptSpacing {
            starting = true
            // A timer that ends with the window (`finish` cancels it).
            let rest = attemptSpacing - (ContinuousClock.now - last)
            let wait = Task { @MainActor in await loopSleep(for: rest) }
            spacing = wait
            await wait.loopValue()
            spacing = nil
            starting = false
            guard outcome == nil else {
                try? await channel.send(.commit(refusal: .closing, commitment: Data(), reason: "", typing: typing))
                return
            }
        }
        let task = Task { @MainActor [weak self] in
            guard let self else { return }
            await self.pair(channel, newcomerTypes: theyType)
        }
        session = (channel, task)
        await task.loopValue()
    }

    /// One session from the commitment on.
    private func pair(_ channel: PairingChannel, newcomerTypes: Bool) async {
        let result: Result<String, PairingError>
        do throws(PairingError) {
            result = .success(try await session(channel, newcomerTypes: newcomerTypes))
        } catch {
            result = .failure(error)
        }
        let counts = asked
        asked = false
        lastSessionEnd = ContinuousClock.now
        switch result {
        case .success(let name):
            diagnostics.publish(.paired(device: name))
            finish(.success(name))
        case .failure(let error) where error.isNotSaved:
            // Issued: one grant per window, and the failure names the device to check.
            finish(.failure(error))
        case .failure(let error):
            guard outcome == nil else { break }
            if counts { attemptsLeft -= 1 }
            diagnostics.publish(.pairingFailed(reason: .init(error), attemptsLeft: attemptsLeft))
            onEvent?(.attemptFailed(error, attemptsLeft: attemptsLeft))
            if attemptsLeft <= 0 { finish(.failure(.windowClosed("its attempts are used"))) }
        }
        issued = nil
        session = nil
    }

    private func session(_ channel: PairingChannel, newcomerTypes: Bool) async throws(PairingError) -> String {
        let nonce = PairingCode.nonce()
        try await channel.send(.commit(refusal: .none, commitment: PairingCode.commitment(exporter: channel.exporter, nonce: nonce),
                                       reason: "", typing: typing))
        guard case .nonce(let theirs) = try await channel.receive(.nonce, within: Self.messageDeadline) else {
            throw .malformedMessage(step: "nonce")
        }
        try await channel.send(.reveal(nonce))
        asked = true
        let code = PairingCode(exporter: channel.exporter, authorityKey: channel.ownKeyInfo, newcomerKey: channel.peerKeyInfo,
                               authorityNonce: nonce, newcomerNonce: theirs)
        let request = Request(code: code, peerHost: channel.peerHost, newcomerTypes: newcomerTypes)
        // Only a code the person here is shown: a side that types the other's code never sees its own.
        if !typing { diagnostics.publish(.pairingCode(code: code.description, onWindow: true)) }
        // The person's answer is bounded by the window's end, which aborts the session.
        let race = await ConfirmationRace.run(local: { [confirm] in await confirm(request) },
                                              remote: { () throws(PairingError) in try await channel.receive(.verdict, within: .seconds(3600)) })
        let verdict: Result<PairingMessage, PairingError>
        switch race.first {
        case .local(false):
            try? await channel.send(.grant(ok: false, grant: Data(), reason: "not confirmed on the other device"))
            race.remote.cancel()
            throw .declinedHere
        case .local(true):
            verdict = await race.remote.loopValue()
        case .remote(let result):
            verdict = result
            if case .success(.verdict(true, _)) = result {
                // The window's end cancels this task: the question goes with it.
                let local = race.local
                guard await withTaskCancellationHandler(operation: { @MainActor in await local.loopValue() }, onCancel: { local.cancel() }) else {
                    try? await channel.send(.grant(ok: false, grant: Data(), reason: "not confirmed on the other device"))
                    throw .declinedHere
                }
            } else {
                race.local.cancel()
            }
        }
        guard case .verdict(let yes, let name) = try verdict.get() else { throw .malformedMessage(step: "verdict") }
        guard yes else { throw .declinedThere(reason: "") }
        guard !Task.isCancelled, outcome == nil else { throw .windowClosed("it closed before the grant") }
        let grant: Data
        do {
            // The name is checked here, after both yeses (again inside `grantDevice`, at the write).
            try authority.checkNewDeviceName(name)
            grant = try authority.grantDevice(named: name, publicKey: channel.peerKey, updating: deviceDirectories).serialized()
        } catch {
            // The peer is confirmed now, yet local detail (paths) stays here: a fixed reason.
            let reason = switch error as? TrustError {
            case .deviceExists?: "the name is taken in the group: pair again with another --name"
            case .invalidDeviceName?: "that name cannot be given: pair again with another --name"
            default: "the group could not issue it"
            }
            try? await channel.send(.grant(ok: false, grant: Data(), reason: reason))
            throw .cannotIssue(reason: "\(error)")
        }
        // Issued: from here on every failure leaves the device in the roster, and says so, naming it.
        issued = name
        do throws(PairingError) {
            try await channel.send(.grant(ok: true, grant: grant, reason: ""))
            guard case .saved(let ok, let reason) = try await channel.receive(.saved, within: Self.messageDeadline) else {
                throw .malformedMessage(step: "saved")
            }
            guard ok else { throw .notSaved(name: name, reason: "it could not: \(PrintableText.escaped(reason))") }
        } catch where error.isNotSaved {
            throw error
        } catch {
            throw .notSaved(name: name, reason: "\(error)")
        }
        return name
    }
}
