import BatonLoop
import Crypto
import Foundation

/// Carries opaque blobs (ICE descriptions) between the group's devices through an MQTT broker
/// the user runs (mosquitto, say), on the app's GLib loop (docs/PROTOCOL.md, 7.2).
///
/// The device connects over TLS 1.3 with its own certificate, so a broker set up as
/// `baton relay server-config` prints admits only the group's devices; each device subscribes
/// to its inbox topics, whose names derive from the group's discovery key and name nothing.
/// Every message is sealed with a key derived from the group's discovery key (only the group's
/// devices read it) and signed with the sender's device key (the broker cannot forge one); the
/// receiver takes it only from a current device of the group (the same trust decision as a TLS
/// link), addressed to itself, fresh and never seen before; anything else is refused with a
/// `BrokerEvent.refused`. A broker that is down or drops the connection is retried with a
/// doubling delay, each failure published as an event.
@MainActor
public final class BrokerSignalling {
    /// Called with each blob another device of the group sent this one, and the sender's
    /// identifier (the common name of its certificate, verified).
    public var onReceive: ((_ from: String, _ blob: Data) -> Void)?
    /// Called with each change of the connection and each refused message.
    public var onEvent: ((BrokerEvent) -> Void)?
    /// True while connected and subscribed: `send` works.
    public private(set) var isConnected = false

    private var identity: DeviceIdentity
    private let identityFolder: URL
    private let settings: BrokerSignallingSettings
    let signingKey: P256.Signing.PrivateKey
    /// The keys of the current discovery key: what `send` seals with.
    private(set) var keys: BrokerKeys
    /// This device's inbox topics (current key, and previous key if any) and their keys.
    private var inboxes: [String: BrokerKeys] = [:]
    private var replays: ReplayGuard
    private var session: MosquittoSession?
    private var pendingSubscriptions: Set<Int32> = []
    private var deadline: LoopSource?
    private var retry: LoopSource?
    private var retryDelay: Duration
    private var running = false

    /// Signalling for the device of `identity`, whose files are in `identityFolder` (its
    /// certificate and key are presented to the broker from there), through the broker of
    /// `settings`. Nothing happens before `start()`. Throws `.noGroupKey` for an identity
    /// without a discovery key.
    public init(identity: DeviceIdentity, identityFolder: URL, settings: BrokerSignallingSettings) throws {
        guard let discoveryKey = identity.discoveryKey else { throw BrokerError.noGroupKey }
        self.identity = identity
        self.identityFolder = identityFolder
        self.settings = settings
        signingKey = try P256.Signing.PrivateKey(pemRepresentation: identity.privateKeyPEM)
        keys = BrokerKeys(discoveryKey)
        replays = ReplayGuard(tolerance: UInt64(max(0, settings.clockTolerance.components.seconds)) * 1000,
                              capacity: settings.replayMemory)
        retryDelay = settings.firstRetryDelay
        inboxes = Self.inboxes(of: identity)
    }

    isolated deinit { stop() }

    /// Starts connecting (and reconnecting whenever the connection fails, until `stop()`).
    public func start() {
        guard !running else { return }
        running = true
        attempt()
    }

    /// Disconnects and stops reconnecting.
    public func stop() {
        running = false
        retry?.cancel(); retry = nil
        endAttempt()
        isConnected = false
    }

    /// Seals and signs `blob` and publishes it to the inbox of the device `deviceIdentifier`.
    /// Throws `BrokerError.notConnected` when not connected, `.tooLarge` when the sealed
    /// message would pass the cap. Delivery is not confirmed (MQTT QoS 0; a device not
    /// connected at that moment never gets it): the caller's protocol retries.
    public func send(_ blob: Data, to deviceIdentifier: String) throws {
        guard isConnected, let session else { throw BrokerError.notConnected }
        guard blob.count <= settings.messageLimit, Data(deviceIdentifier.utf8).count <= BrokerEnvelope.maxIdentifierBytes else {
            throw BrokerError.tooLarge(size: blob.count + BrokerEnvelope.overhead, limit: settings.messageLimit)
        }
        let topic = keys.inbox(of: deviceIdentifier)
        let payload = try BrokerEnvelope.seal(blob, to: deviceIdentifier, on: topic, from: identity,
                                              signingKey: signingKey, keys: keys, now: Date())
        guard payload.count <= settings.messageLimit else {
            throw BrokerError.tooLarge(size: payload.count, limit: settings.messageLimit)
        }
        try session.publish(payload, on: topic)
    }

    /// Publishes `payload` as it is on `topic` (for tests: forged, replayed, oversized messages).
    func publishRaw(_ payload: Data, on topic: String) throws {
        guard isConnected, let session else { throw BrokerError.notConnected }
        try session.publish(payload, on: topic)
    }

    /// Takes a newer identity (another revocation list, a rotated discovery key): senders are
    /// checked against its list from now on, messages sealed with its key, and the inboxes
    /// follow its current and previous keys.
    public func update(identity newIdentity: DeviceIdentity) {
        guard let discoveryKey = newIdentity.discoveryKey else { return }
        identity = newIdentity
        keys = BrokerKeys(discoveryKey)
        let wanted = Self.inboxes(of: newIdentity)
        let old = Set(inboxes.keys), new = Set(wanted.keys)
        inboxes = wanted
        guard isConnected, let session else { return }
        for topic in old.subtracting(new) { session.unsubscribe(topic) }
        for topic in new.subtracting(old) { _ = try? session.subscribe(topic) }
    }

    private static func inboxes(of identity: DeviceIdentity) -> [String: BrokerKeys] {
        var result: [String: BrokerKeys] = [:]
        for key in [identity.previousDiscoveryKey, identity.discoveryKey].compactMap({ $0 }) {
            let keys = BrokerKeys(key)
            result[keys.inbox(of: identity.identifier)] = keys
        }
        return result
    }

    // MARK: Connecting

    private func attempt() {
        guard running else { return }
        let session: MosquittoSession
        do {
            session = try MosquittoSession(settings: settings, identityFolder: identityFolder)
        } catch {
            return attemptFailed(error)
        }
        self.session = session
        session.onConnect = { [weak self] code in self?.brokerAnswered(code) }
        session.onSubscribed = { [weak self] mid, granted in self?.subscribed(mid, granted) }
        session.onMessage = { [weak self] topic, payload in self?.received(payload, on: topic) }
        session.onLost = { [weak self] error in self?.lost(error) }
        deadline = MainLoop.after(settings.connectTimeout) { [weak self] in
            self?.deadline = nil
            self?.attemptFailed(.timedOut)
        }
        session.connect(host: settings.host, port: settings.port, maximumPacket: settings.messageLimit + 1024)
    }

    private func brokerAnswered(_ code: Int32) {
        guard code == 0 else { return attemptFailed(.refusedByBroker(code: Int(code))) }
        guard let session else { return }
        do throws(BrokerError) {
            for topic in inboxes.keys.sorted() { pendingSubscriptions.insert(try session.subscribe(topic)) }
        } catch {
            attemptFailed(error)
        }
    }

    private func subscribed(_ mid: Int32, _ granted: [Int32]) {
        guard pendingSubscriptions.remove(mid) != nil else { return }
        guard granted.allSatisfy({ $0 < 0x80 }) else { return attemptFailed(.subscriptionRefused) }
        guard pendingSubscriptions.isEmpty, !isConnected else { return }
        deadline?.cancel(); deadline = nil
        retryDelay = settings.firstRetryDelay
        isConnected = true
        onEvent?(.connected)
    }

    private func lost(_ error: BrokerError) {
        guard isConnected else { return attemptFailed(error) }
        isConnected = false
        endAttempt()
        onEvent?(.disconnected(error, retryIn: scheduleRetry()))
    }

    private func attemptFailed(_ error: BrokerError) {
        guard running, !isConnected else { return }
        endAttempt()
        onEvent?(.connectFailed(error, retryIn: scheduleRetry()))
    }

    private func endAttempt() {
        deadline?.cancel(); deadline = nil
        pendingSubscriptions = []
        session?.close()
        session = nil
    }

    /// Schedules the next attempt; returns its delay (which doubles for the one after).
    private func scheduleRetry() -> Duration {
        let delay = retryDelay
        retryDelay = min(settings.maximumRetryDelay, retryDelay * 2)
        retry?.cancel()
        retry = MainLoop.after(delay) { [weak self] in
            self?.retry = nil
            self?.attempt()
        }
        return delay
    }

    // MARK: Receiving

    private func received(_ payload: Data, on topic: String) {
        guard let topicKeys = inboxes[topic] else { return refuse(.unknownTopic) }
        do throws(BrokerRefusal) {
            let (envelope, certificate) = try BrokerEnvelope.open(payload, on: topic, keys: topicKeys, limit: settings.messageLimit)
            guard envelope.recipient == identity.identifier else { throw .wrongRecipient }
            let signer: String
            do { signer = try identity.verifyPeer(certificate) } catch { throw .untrustedSender(error) }
            guard signer == envelope.sender else { throw .senderMismatch }
            let now = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
            if let refusal = replays.admit(sender: envelope.sender, nonce: envelope.nonce, timestamp: envelope.timestamp, now: now) {
                throw refusal
            }
            onReceive?(envelope.sender, envelope.blob)
        } catch {
            refuse(error)
        }
    }

    private func refuse(_ refusal: BrokerRefusal) {
        onEvent?(.refused(refusal))
    }
}
