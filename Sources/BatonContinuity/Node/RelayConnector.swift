import BatonLoop
import Foundation

/// The node's part that links with the group's devices beyond the LAN (docs/PROTOCOL.md, 7.4):
/// while the group's signed list carries relay settings with a broker, it runs
/// `BrokerSignalling`, and for each device of the group (the list's roster) that is not linked
/// once the LAN's first round of dials has settled — and again whenever a link to one drops —
/// it runs an ICE attempt: a new `IceSession`, the descriptions exchanged sealed through the
/// broker, the connectivity checks, then `SecureChannel.open(over:role:identity:credential:)`
/// (the admission gate and mutual TLS, exactly as a LAN link), and hands the verified channel
/// and its path to `adopt` (the node's links).
///
/// The LAN comes first: a device linked is never tried, an offer from a device linked is
/// declined, and a channel whose device got linked on the LAN meanwhile is closed unused. One
/// side starts: the device whose identifier sorts first (`IceSession.Role.for`, the
/// controlling side) sends the offer, the other answers. One attempt per device at a time, at
/// most `maximumAttempts` in all; every step has a deadline; a failed offer is tried again
/// after a delay that doubles from `firstRetryDelay` up to `maximumRetryDelay`, and so is a
/// link that drops sooner than `minimumLinkLifetime` after it came up (published as a failure,
/// `droppedSoon`), so a path that keeps dropping at once is not retried in a tight loop. Each attempt
/// is published as typed events (`relayAttemptStarted`, `…Succeeded` with its path,
/// `…Failed` with its reason), and each `BrokerEvent` as its `DiagnosticEvent`.
@MainActor
final class RelayConnector {
    /// Makes a link of a verified channel over ICE, on `path`; false if it could not.
    typealias Adopt = @MainActor (SecureChannel, IcePath) async -> Bool

    /// How long the offering side waits for the answer after sending its offer (the peer
    /// gathers its candidates meanwhile, within their own deadline).
    var answerDeadline: Duration = .seconds(30)
    /// How often the offer is sent again while no reply came (MQTT QoS 0: a device that was
    /// not subscribed yet when it went out never got it). The answering side takes an attempt
    /// once, whatever number of its offers arrive.
    var offerRepeatInterval: Duration = .seconds(3)
    /// How long the connectivity checks may take, on either side.
    var connectDeadline: Duration = .seconds(30)
    /// The delay before the first new offer after a failed one; it doubles with each failure.
    var firstRetryDelay: Duration = .seconds(5)
    /// The longest delay between offers to a device.
    var maximumRetryDelay: Duration = .seconds(300)
    /// A link made here that drops sooner than this after it came up counts as a failed
    /// attempt (tried again after the back-off); one that lived longer resets the back-off.
    var minimumLinkLifetime: Duration = .seconds(30)
    /// At most this many attempts run at once (offered and answered); an offer beyond it is
    /// declined.
    var maximumAttempts = 8
    /// Host candidates on these addresses only (empty: every interface but loopback; tests
    /// give `127.0.0.1`).
    var hostAddresses: [String] = []
    /// Relayed candidates only (`IceConfiguration.relayOnly`; tests of the relay).
    var relayOnly = false
    /// Changes the broker settings the relay settings give before signalling starts (tests: a
    /// broker of their own CA, short retry delays).
    var adjustBrokerSettings: (@MainActor (inout BrokerSignallingSettings) -> Void)?

    /// The relay settings held now (nil: none, nothing runs).
    private(set) var settings: RelaySettings?
    /// Signalling through the broker, while the settings name one and the connector runs.
    private(set) var signalling: BrokerSignalling?
    /// The attempts running, by the device's identifier.
    var attempts: [String: RelayAttempt] = [:]

    let identity: @MainActor () -> DeviceIdentity
    private let identityFolder: URL
    private let credential: TLSCredential
    private let isLinked: @MainActor (String) -> Bool
    private let adopt: Adopt
    let diagnostics: Diagnostics
    let log: PeerLogger
    private(set) var running = false
    /// True once the LAN's first round of dials has settled (`lanSettled()`).
    private var lanHasSettled = false
    /// The next offer's timer, by the device's identifier (`RelayConnector+Retry.swift`).
    var retries: [String: LoopSource] = [:]
    /// The delay before the offer after the next failure, by the device's identifier.
    var backoff: [String: Duration] = [:]
    /// When each link this connector made came up, by the device's identifier, until it drops.
    var linkedSince: [String: ContinuousClock.Instant] = [:]
    /// Devices already told the broker is unavailable, until it connects.
    private var saidBrokerDown: Set<String> = []
    /// True from a failed or lost broker connection until it connects.
    private var brokerFailed = false
    /// Devices whose links were cut because the group revoked them, and those the list held
    /// names revoked (`RevocationList.revokedDevices`): never tried, never answered.
    var revoked: Set<String> = []
    /// The last attempt answered, by the offering device: its repeated offers are not answered
    /// again (at most `maximumRemembered` devices).
    private var answered: [String: UInt64] = [:]
    private static let maximumRemembered = 256

    /// A connector for the device whose identity `identity` gives (the one the node holds now)
    /// and whose files are in `identityFolder`; `isLinked` says whether a device (by
    /// identifier) has a link now; `adopt` takes the links it makes.
    init(identity: @escaping @MainActor () -> DeviceIdentity, identityFolder: URL, credential: TLSCredential,
         isLinked: @escaping @MainActor (String) -> Bool, adopt: @escaping Adopt, diagnostics: Diagnostics, log: PeerLogger) {
        self.identity = identity
        self.identityFolder = identityFolder
        self.credential = credential
        self.isLinked = isLinked
        self.adopt = adopt
        self.diagnostics = diagnostics
        self.log = log
    }

    isolated deinit { stop() }

    /// Starts with the relay settings of the list held (nothing runs without them).
    func start() {
        guard !running else { return }
        running = true
        listChanged()
    }

    /// Stops signalling, every attempt and every retry; forgets that the LAN settled.
    func stop() {
        running = false
        lanHasSettled = false
        tearDown()
        settings = nil
    }

    /// The node holds a newer list or key: signalling follows the identity (its senders are
    /// checked against the new list, its topics follow the key), and restarts — or stops —
    /// if the list's relay settings name another broker, or none.
    func listChanged() {
        guard running else { return }
        let current = identity()
        stopOffering(toRevokedIn: current)
        let relay = current.revocations.relay
        if let relay, relay != settings, relay.broker == settings?.broker, signalling != nil {
            // The same broker, other TURN servers or another secret (a revocation replaces
            // it): the broker connection and the attempts under way stay; attempts from now on
            // use the new settings.
            settings = relay
            signalling?.update(identity: current)
            tryDevices()
        } else if relay != settings || signalling == nil && relay?.broker != nil {
            tearDown()
            settings = relay
            startSignalling()
        } else {
            signalling?.update(identity: current)
            tryDevices()
        }
    }

    /// The LAN's first round of dials (and discovery's first browse) has settled: the devices
    /// still not linked are tried.
    func lanSettled() {
        guard running else { return }
        lanHasSettled = true
        tryDevices()
    }

    private func tearDown() {
        signalling?.stop()
        signalling = nil
        for attempt in attempts.values { attempt.cancel() }
        attempts = [:]
        for timer in retries.values { timer.cancel() }
        retries = [:]
        backoff = [:]
        linkedSince = [:]
        saidBrokerDown = []
        brokerFailed = false
        answered = [:]
    }

    private func startSignalling() {
        guard let settings, var brokerSettings = BrokerSignallingSettings(relaySettings: settings, identityFolder: identityFolder)
        else { return }
        adjustBrokerSettings?(&brokerSettings)
        do {
            let signalling = try BrokerSignalling(identity: identity(), identityFolder: identityFolder, settings: brokerSettings)
            signalling.onEvent = { [weak self] event in self?.brokerSaid(event) }
            signalling.onReceive = { [weak self] from, blob in self?.received(blob, from: from) }
            self.signalling = signalling
            signalling.start()
        } catch {
            log.error("cannot signal through the group's broker: \(error)")
        }
    }

    private func brokerSaid(_ event: BrokerEvent) {
        diagnostics.publish(DiagnosticEvent(event))
        switch event {
        case .connected:
            saidBrokerDown = []
            brokerFailed = false
            tryDevices()
        case .connectFailed, .disconnected:
            brokerFailed = true
            tryDevices()  // says, once for each device, that the broker is unavailable
        case .refused:
            break
        }
    }

    // MARK: Offering

    /// The devices of the group this one offers to: in the list's roster, not this device, and
    /// the one whose identifier sorts after this one's.
    func offersTo(_ device: String, me: String) -> Bool {
        device != me && IceSession.Role.for(local: me, remote: device) == .controlling
    }

    private func tryDevices() {
        guard running, lanHasSettled, signalling != nil else { return }
        let current = identity()
        for device in current.revocations.deviceNames.keys.sorted() where offersTo(device, me: current.identifier) {
            tryDevice(device)
        }
    }

    func tryDevice(_ device: String) {
        let current = identity()
        guard running, lanHasSettled, let settings, let signalling, current.revocations.deviceNames[device] != nil,
              !revoked.contains(device), !current.revocations.revokedDevices.contains(device), offersTo(device, me: current.identifier), !isLinked(device), attempts[device] == nil,
              retries[device] == nil, attempts.count < maximumAttempts else { return }
        guard signalling.isConnected else {
            if brokerFailed, saidBrokerDown.insert(device).inserted {
                diagnostics.publish(.relayAttemptFailed(peer: current.deviceName(of: device), reason: .brokerUnavailable,
                                                        retryAfterMilliseconds: nil))
            }
            return
        }
        let attempt = RelayAttempt(peer: device, id: UInt64.random(in: 1...UInt64.max), role: .controlling)
        attempts[device] = attempt
        diagnostics.publish(.relayAttemptStarted(peer: current.deviceName(of: device), offering: true))
        attempt.task = Task { @MainActor [weak self] in
            let outcome: Result<IcePath, DiagnosticEvent.RelayFailure>
            do throws(DiagnosticEvent.RelayFailure) {
                guard let self else { return }
                outcome = .success(try await self.offer(attempt, settings: settings))
            } catch {
                outcome = .failure(error)
            }
            self?.finished(attempt, outcome)
        }
    }

    private func offer(_ attempt: RelayAttempt, settings: RelaySettings) async throws(DiagnosticEvent.RelayFailure) -> IcePath {
        let session = try makeSession(for: attempt, settings: settings)
        let local: IceDescription
        do throws(IceError) { local = try await session.localDescription() } catch { throw attempt.failure(error) }
        let offer = RelayMessage(kind: .offer, attempt: attempt.id, description: local)
        var waited: Duration = .zero
        var reply: RelayMessage?
        while reply == nil, waited < answerDeadline, !attempt.isCancelled {
            try send(offer, to: attempt)
            let step = min(offerRepeatInterval, answerDeadline - waited)
            reply = await attempt.waitForReply(within: step)
            waited += step
        }
        guard let reply else { throw attempt.isCancelled ? .cancelled : .noAnswer }
        guard reply.kind == .answer, let remote = reply.description else { throw .declined }
        return try await link(attempt, session: session, remote: remote)
    }

    // MARK: Answering

    private func received(_ blob: Data, from device: String) {
        guard running, settings != nil else { return }
        let current = identity()
        let message: RelayMessage
        do { message = try RelayMessage.decode(blob) } catch {
            log.notice("a relay message from \(current.deviceName(of: device)) was refused: \(error)")
            diagnostics.publish(.relayAttemptFailed(peer: current.deviceName(of: device), reason: .invalidDescription,
                                                    retryAfterMilliseconds: nil))
            return
        }
        switch message.kind {
        case .answer, .decline:
            guard let attempt = attempts[device], attempt.role == .controlling, attempt.id == message.attempt else { return }
            attempt.deliver(message)
        case .offer:
            answer(message, from: device, me: current)
        }
    }

    private func answer(_ offer: RelayMessage, from device: String, me current: DeviceIdentity) {
        guard let settings, let remote = offer.description, !revoked.contains(device), !current.revocations.revokedDevices.contains(device),
              IceSession.Role.for(local: current.identifier, remote: device) == .controlled else { return }
        guard answered[device] != offer.attempt else { return }  // the same offer again
        if let running = attempts[device] {
            attempts[device] = nil
            running.cancel()  // the peer gave that one up and offers anew
        }
        guard !isLinked(device), attempts.count < maximumAttempts else {
            try? signalling?.send(RelayMessage(kind: .decline, attempt: offer.attempt, description: nil).encoded(), to: device)
            return
        }
        let attempt = RelayAttempt(peer: device, id: offer.attempt, role: .controlled)
        attempts[device] = attempt
        if answered.count >= Self.maximumRemembered { answered = [:] }
        answered[device] = offer.attempt
        diagnostics.publish(.relayAttemptStarted(peer: current.deviceName(of: device), offering: false))
        attempt.task = Task { @MainActor [weak self] in
            let outcome: Result<IcePath, DiagnosticEvent.RelayFailure>
            do throws(DiagnosticEvent.RelayFailure) {
                guard let self else { return }
                let session = try makeSession(for: attempt, settings: settings)
                let local: IceDescription
                do throws(IceError) { local = try await session.localDescription() } catch { throw attempt.failure(error) }
                try send(RelayMessage(kind: .answer, attempt: attempt.id, description: local), to: attempt)
                outcome = .success(try await link(attempt, session: session, remote: remote))
            } catch {
                outcome = .failure(error)
            }
            self?.finished(attempt, outcome)
        }
    }

    // MARK: Both sides

    private func makeSession(for attempt: RelayAttempt, settings: RelaySettings) throws(DiagnosticEvent.RelayFailure) -> IceSession {
        guard !attempt.isCancelled else { throw .cancelled }
        let configuration = IceConfiguration(relaySettings: settings, deviceIdentifier: identity().identifier,
                                             hostAddresses: hostAddresses, relayOnly: relayOnly)
        do throws(IceError) {
            let session = try IceSession(configuration: configuration, role: attempt.role)
            attempt.session = session
            return session
        } catch {
            throw attempt.failure(error)
        }
    }

    private func send(_ message: RelayMessage, to attempt: RelayAttempt) throws(DiagnosticEvent.RelayFailure) {
        guard !attempt.isCancelled else { throw .cancelled }
        guard let signalling, (try? signalling.send(message.encoded(), to: attempt.peer)) != nil else { throw .brokerUnavailable }
    }

    /// The checks with `remote`, then the link over the stream, checked to be with the
    /// attempt's device and handed to `adopt` unless the device got linked on the LAN.
    private func link(_ attempt: RelayAttempt, session: IceSession, remote: IceDescription)
        async throws(DiagnosticEvent.RelayFailure) -> IcePath {
        let stream: IceStream
        do throws(IceError) { stream = try await session.connect(remote: remote, deadline: connectDeadline) } catch {
            throw attempt.failure(error)
        }
        let channel: SecureChannel
        do {
            channel = try await SecureChannel.open(over: stream, role: attempt.role, identity: identity(), credential: credential)
        } catch {
            throw attempt.isCancelled ? .cancelled : .linkFailed
        }
        guard channel.peerIdentifier == attempt.peer else {
            channel.close()
            throw .linkFailed
        }
        guard !attempt.isCancelled else {
            channel.close()
            throw .cancelled
        }
        guard !isLinked(attempt.peer) else {
            channel.close()
            throw .linkedOnLAN
        }
        let path = session.selectedPath ?? stream.path
        guard await adopt(channel, path) else { throw .notAdopted }
        return path
    }

    private func finished(_ attempt: RelayAttempt, _ outcome: Result<IcePath, DiagnosticEvent.RelayFailure>) {
        attempt.session?.close()
        let isCurrent = attempts[attempt.peer] === attempt
        if isCurrent { attempts[attempt.peer] = nil }
        guard running else { return }
        let name = identity().deviceName(of: attempt.peer)
        switch outcome {
        case .success(let path):
            linkedSince[attempt.peer] = .now  // the back-off stays until the link has lived long enough
            log.info("linked with \(name) beyond the LAN (\(path))")
            diagnostics.publish(.relayAttemptSucceeded(peer: name, path: path))
        case .failure(let reason):
            var retry: Duration?
            if isCurrent, attempt.role == .controlling, reason != .cancelled { retry = scheduleRetry(attempt.peer) }
            log.info("no link with \(name) beyond the LAN: \(reason)")
            diagnostics.publish(.relayAttemptFailed(peer: name, reason: reason, retryAfterMilliseconds: retry?.milliseconds))
        }
        tryDevices()  // a place among the attempts is free
    }
}
