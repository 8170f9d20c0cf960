import BatonContinuity
import BatonLoop
import Foundation
import Logging

/// The agent's pairing windows: on the device that holds the group's authority, the agent opens
/// a `PairingWindow` when asked (`open`; over D-Bus `OpenPairingWindow`, which `baton pair
/// --accept` calls when an agent runs) and answers its requests from two places at once: the
/// app that opened it (`PairingRequest` signals, answered with `AnswerPairing`: the terminal
/// of `baton pair --accept`) and, on a desktop, a notification with Accept and Decline
/// (`PairingNotifier`). The first answer counts; the other question is withdrawn.
///
/// The authority is read from `authorityFolder` (a Baton configuration folder holding
/// `group/`) each time a window opens, so a group made after the agent started is found. One
/// window at a time, with `PairingWindow`'s bounds (one pairing, its time, its attempts); it
/// closes when the app that opened it leaves. Everything runs as tasks on the agent's loop:
/// a request waiting for its answer never holds up the agent's other work. After a pairing,
/// the agent's own device holds the list naming the new device at once (written beside its
/// identity and read again), so the new device's agent links straight away.
@MainActor
public final class AgentPairing {
    /// The configuration folder whose `group/` holds the authority.
    public let authorityFolder: ConfigDirectory
    /// The desktop notifications for requests (nil: none; requests go to the opener only).
    public var notifier: PairingNotifier?
    /// The longest a window may be asked to stay open.
    nonisolated public static let maximumLifetime: Duration = .seconds(3600)
    /// Whether a window is open now.
    public var isOpen: Bool { window != nil }

    /// Says what happened to the app that opened the window (nil for a window opened in-process).
    typealias Signal = @MainActor (AgentSignal) -> Void

    private weak var node: ContinuityNode?
    private let identityDirectory: URL?
    /// The agent's client of avahi-daemon, the one its node's discovery uses too.
    private let avahi: AvahiConnection
    private let log = Logger(label: "baton.agent")
    private var window: PairingWindow?
    private var advertisement: PairingAdvertisement?
    private var opener: ObjectIdentifier?
    private var signal: Signal?
    private var nextRequest: UInt64 = 0
    /// The answer each request waits for, by request number.
    private var questions: [UInt64: CheckedContinuation<Bool, Never>] = [:]

    /// Pairing for the agent whose node is `node` (its identity in `identityDirectory`), with
    /// the authority in `authorityFolder`; windows are published through `avahi`.
    init(authorityFolder: ConfigDirectory, node: ContinuityNode, identityDirectory: URL?, avahi: AvahiConnection) {
        self.avahi = avahi
        self.authorityFolder = authorityFolder
        self.node = node
        self.identityDirectory = identityDirectory
    }

    /// Why a window cannot be opened.
    public enum Refusal: Error, Sendable, CustomStringConvertible {
        /// A window is open already.
        case alreadyOpen
        /// No authority could be read from the folder (`reason`).
        case noAuthority(path: String, reason: String)
        /// The lifetime is not 1 s to `maximumLifetime`.
        case badLifetime
        /// The listener could not be opened.
        case cannotListen(PairingError)

        /// The refusal in words.
        public var description: String {
            switch self {
            case .alreadyOpen: "a pairing window is open already"
            case .noAuthority(let path, let reason):
                "this agent holds no group authority (\(PrintableText.escaped(path))): \(reason); start batond with --authority DIR, or set Authority= in agent.conf"
            case .badLifetime: "a pairing window stays open 1 to \(AgentPairing.maximumLifetime.components.seconds) seconds"
            case .cannotListen(let error): "\(error)"
            }
        }
    }

    /// Opens a window listening on `host:port` (port 0: any) for `lifetime`, published
    /// through DNS-SD beyond loopback, its requests answered on the desktop only (`notifier`):
    /// for a host that embeds the agent and opens windows itself. Returns the port.
    public func open(lifetime: Duration, host: String = "0.0.0.0", port: UInt16 = 0) throws(Refusal) -> UInt16 {
        try open(lifetime: lifetime, host: host, port: port, opener: nil, signal: nil)
    }

    /// Closes the window, if one is open.
    public func close() { window?.close() }

    /// Opens a window as `open(lifetime:host:port:)` does. `opener` identifies the app that
    /// asked (the window closes when it leaves, `openerLeft`) and `signal` tells it what happens.
    func open(lifetime: Duration, host: String, port: UInt16, opener: ObjectIdentifier?,
              signal: Signal?) throws(Refusal) -> UInt16 {
        guard window == nil else { throw .alreadyOpen }
        guard lifetime >= .seconds(1), lifetime <= Self.maximumLifetime else { throw .badLifetime }
        let authority: GroupAuthority
        do { authority = try GroupAuthority.load(from: authorityFolder) } catch {
            throw .noAuthority(path: authorityFolder.groupDirectory.path, reason: "\(error)")
        }
        let listener: PairingListener
        do { listener = try PairingListener(host: host, port: port) } catch { throw .cannotListen(error) }
        let group = authority.name
        let window = PairingWindow(authority: authority, listener: listener, updating: identityDirectory.map { [$0] } ?? [],
                                   lifetime: lifetime) { [weak self] request in
            await self?.ask(request, group: group) ?? false
        }
        window.onEvent = { [weak self] event in
            let text = switch event {
            case .refused(let refusal): "refused a new device: \(refusal)"
            case .attemptFailed(let error, let left): "pairing failed: \(error) (\(left) attempt\(left == 1 ? "" : "s") left)"
            }
            self?.log.notice("\(text)")
            self?.signal?(.pairingEvent(text: text))
        }
        self.window = window
        self.opener = opener
        self.signal = signal
        if !PeerAddress.isLoopback(host) {
            let advertisement = PairingAdvertisement(port: listener.port, avahi: avahi)
            advertisement.onUnavailable = { [weak self] reason in self?.log.info("pairing window not published through DNS-SD: \(reason)") }
            advertisement.start()
            self.advertisement = advertisement
        }
        log.notice("pairing window open on port \(listener.port) for \(lifetime)")
        Task { @MainActor [weak self] in
            let result = await window.run()
            self?.closed(window, result)
        }
        return listener.port
    }

    /// Closes the window if the app `opener` opened it.
    func close(opener: ObjectIdentifier) {
        guard let window, opener == self.opener else { return }
        window.close()
    }

    /// The app `opener` left: its window closes.
    func openerLeft(_ opener: ObjectIdentifier) {
        guard self.opener == opener else { return }
        signal = nil
        window?.close()
    }

    /// The opener's answer to request `id` (true: its person confirmed the code).
    func answer(_ id: UInt64, confirmed: Bool, opener: ObjectIdentifier?) {
        guard opener == self.opener else { return }
        settle(id, confirmed)
    }

    private func settle(_ id: UInt64, _ confirmed: Bool) {
        questions.removeValue(forKey: id)?.resume(returning: confirmed)
    }

    /// Stops: the window closes (its requests answer no).
    func stop() {
        signal = nil
        window?.close()
    }

    /// Asks the opener and the desktop at once; the first answer counts. Cancelled (the
    /// session or window ended): false, and both questions are withdrawn.
    private func ask(_ request: PairingWindow.Request, group: String) async -> Bool {
        nextRequest += 1
        let id = nextRequest
        let peer = request.peerHost ?? ""
        log.notice("pairing request \(id)\(peer.isEmpty ? "" : " from \(peer)"): code \(request.code)")
        signal?(.pairingRequest(request: id, code: request.code.description, peer: peer, newcomerTypes: request.newcomerTypes, group: group))
        let notification = notifier.map { notifier in
            Task { @MainActor [weak self] in
                guard let answer = await notifier.ask(code: request.code, newcomerTypes: request.newcomerTypes, from: request.peerHost,
                                                      group: group) else { return }
                self?.log.notice("pairing request \(id) \(answer ? "accepted" : "declined") on the desktop")
                self?.settle(id, answer)
            }
        }
        let confirmed = await withTaskCancellationHandler {
            await withLoopContinuation { questions[id] = $0 }
        } onCancel: {
            Task { @MainActor [weak self] in self?.settle(id, false) }
        }
        notification?.cancel()
        signal?(.pairingRequestEnded(request: id))
        return confirmed
    }

    private func closed(_ closing: PairingWindow, _ result: Result<String, PairingError>) {
        guard window === closing else { return }
        advertisement?.stop()
        advertisement = nil
        window = nil
        switch result {
        case .success(let name):
            log.notice("paired '\(PrintableText.escaped(name))': it is a device of the group now")
            // The list naming it was written beside this device's identity: held at once.
            node?.rereadIdentityFiles()
            signal?(.pairingWindowClosed(paired: true, text: name))
        case .failure(let error):
            log.notice("pairing window closed: \(error)")
            signal?(.pairingWindowClosed(paired: false, text: "\(error)"))
        }
        signal = nil
        opener = nil
    }
}
