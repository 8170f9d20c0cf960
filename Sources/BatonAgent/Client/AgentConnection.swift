import Baton
import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import Logging

/// An app's connection to the per-user agent (`batond`): the app joins with one call,
/// `AgentConnection.join()`, instead of embedding a continuity node.
///
/// Once joined, the connection is the app's `nearbySource`, so everything works as with an
/// embedded node: `Application.shared.nearbyActivities` and its notification,
/// `continueNearbyActivity` (the payload is pulled from the originating app, which saves it
/// first), `userActivityWasContinued(_:)` on the originating app, continuation streams (relayed
/// by the agents) and the Handoff failure codes. The agent advertises this app's advertised
/// activity while it is the joined app that became active most recently.
///
/// With an agent of version 3 or later, the app hands the agent its advertised activity's
/// payload each time it saves it (`HoldPayload`), and says so the moment anything the payload
/// carries changes or `needsSave` becomes true (`PayloadChanged`): the agent answers a peer's
/// fetch from the payload it holds while the activity is unchanged since its save, and asks
/// the app, which saves first, otherwise (docs/PROTOCOL.md, "Held payloads").
///
/// If the agent goes (killed, upgraded), the app keeps running: the connection tries again with
/// a backoff (0.5 s doubling to `maximumBackoff`), joins again and sends its advertisement
/// again. Meanwhile nothing is nearby and a continuation fails with
/// `.userActivityConnectionUnavailable`; that the agent is unavailable is logged once per
/// outage, not per retry.
@MainActor
public final class AgentConnection: NearbyActivitySource {
    /// Where the agent listens.
    public let socketPath: String
    /// The longest wait between two attempts to reach the agent.
    public var maximumBackoff: Duration = .seconds(10)
    /// How long a call to the agent may take (a continuation's payload, `Continued`); past it
    /// the call fails with `.userActivityRemoteApplicationTimedOut`.
    public var callTimeout: Duration = .seconds(15)
    /// True while joined to the agent.
    public private(set) var isJoined = false
    /// The protocol version the agent answered `Join` with.
    public private(set) var agentVersion: UInt32?
    /// Called each time the app has (re)joined the agent.
    public var onJoined: (@MainActor () -> Void)?

    private let activities = ApplicationActivityProvider()
    private(set) var bus: LocalBus?
    private var nearbySubscription: guint?
    /// The pairing signals subscribed to (`subscribePairing`), ended with the bus.
    var pairingSubscriptions: [guint] = []
    private var observers: [NSObjectProtocol] = []
    private var backoff: Duration = .zero
    private var retry: LoopSource?
    private var connecting = false
    private var stopped = false
    private var unavailableLogged = false
    /// The advertisements sent, by id (the last few), to answer the agent's calls about them.
    private var sent: [ProvidedActivity] = []
    private var lastSent: (ProvidedActivity?, Bool)?
    /// Continuations the agent handed over before its answer to `Join` was taken (at most 8).
    private var handedBeforeJoined: [NearbyActivity] = []
    /// The advertisement whose payload the agent holds (`HoldPayload`), and its activity.
    private var held: (id: UInt64, activity: ObjectIdentifier)?
    /// True while a payload is made for the agent's `FetchPayload`: that save's payload is
    /// held once it is sent, instead of being encoded twice.
    private var answeringFetch = false
    /// The connection told of activity changes (`UserActivity.contentDidChange`): one per app.
    private static weak var holdingConnection: AgentConnection?
    /// The first agent version that holds payloads.
    static let holdingVersion: UInt32 = 3
    let log = Logger(label: "baton.agent.client")

    /// The user's agent's socket (`AgentRuntimeDirectory.standard()`): `$BATON_AGENT_SOCKET`,
    /// else `$XDG_RUNTIME_DIR/baton/agent.socket`.
    nonisolated public static var defaultSocketPath: String { AgentRuntimeDirectory.standard().socketPath }

    /// Joins this app to the agent at `socketPath` (by default `defaultSocketPath`): the app's
    /// `nearbySource` becomes the connection at once, and it joins as soon as the agent
    /// answers, retrying while it does not. Keep the connection (the app's `nearbySource` is
    /// weak); `leave()` ends it.
    ///
    /// A tool that shows and continues what is nearby (`baton nearby`) joins with
    /// `advertising: false`: it never offers an activity and never counts as the active app.
    ///
    /// With `autostart` (by default, when joining the user's own agent at `defaultSocketPath`),
    /// an app that finds no agent listening starts one (`AgentAutostart`: `batond` in a session
    /// of its own, as gpg-agent is started), once per outage; where systemd's `batond.socket`
    /// listens, systemd starts it instead and this never happens.
    public static func join(socketPath: String = defaultSocketPath, advertising: Bool = true,
                            autostart: Bool? = nil) -> AgentConnection {
        let connection = AgentConnection(socketPath: socketPath, advertising: advertising,
                                         autostart: autostart ?? (socketPath == defaultSocketPath))
        connection.start()
        return connection
    }

    /// Whether this app tells the agent what it advertises and whether it is active.
    public let advertising: Bool
    /// Whether this connection starts the agent when none listens.
    public let autostart: Bool
    /// Whether the agent was started (or tried) in this outage.
    private var autostarted = false

    private init(socketPath: String, advertising: Bool, autostart: Bool) {
        self.socketPath = socketPath
        self.advertising = advertising
        self.autostart = autostart
    }

    /// Asks the agent to continue `activity` in the app here that declares its type: one that
    /// is joined gets it directly (no second instance); otherwise the agent launches it and
    /// hands it over when it joins. Returns that app's ID. Fails with the Handoff code the
    /// agent saw (`.featureUnsupported` when no app here continues it).
    public func continueInApp(_ activity: NearbyActivity, activationToken: String? = nil) async throws -> String {
        guard isJoined, let bus else {
            throw CocoaError.handoff(.userActivityConnectionUnavailable, "the Baton agent is not running (\(socketPath))")
        }
        do {
            return try await bus.call(.continueNearby(device: activity.device, sequence: activity.sequence,
                                                      activationToken: activationToken ?? ""), timeout: .seconds(60))
        } catch let error as GLibError {
            throw Self.handoffError(error)
        }
    }

    /// The agent's status (`baton status`): its program and version, where the device
    /// listens, discovery, links, joined apps and the latest failures. Throws when the app is
    /// not joined, or the agent does not answer within `timeout`.
    public func status(timeout: Duration = .seconds(5)) async throws -> AgentStatus {
        guard isJoined, let bus else {
            throw CocoaError.handoff(.userActivityConnectionUnavailable, "the Baton agent is not running (\(socketPath))")
        }
        guard let version = agentVersion, version >= Self.statusVersion else {
            throw CocoaError.handoff(.featureUnsupported, "the agent speaks interface version \(agentVersion ?? 0), older than this program's \(AgentInterface.version): it has no status; restart it to run the installed one")
        }
        let text = try await bus.call(.getStatus, timeout: timeout)
        guard let status = AgentStatus.decode(Data(text.utf8)) else {
            throw CocoaError.handoff(.userActivityHandoffFailed, "the agent's status did not decode")
        }
        return status
    }

    /// The first agent interface version with `GetStatus`.
    static let statusVersion: UInt32 = 4

    private func start() {
        Application.shared.nearbySource = self
        if Application.shared.associatedDomainVerifier == nil {
            Application.shared.associatedDomainVerifier = try? AssociatedDomains()
        }
        for name in [Application.currentUserActivityDidChangeNotification, Application.didBecomeActiveNotification,
                     Application.didResignActiveNotification] {
            observers.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] _ in
                MainActor.assumeIsolated { self?.sendAdvertisement() }
            })
        }
        observers.append(NotificationCenter.default.addObserver(forName: UserActivity.didSaveNotification, object: nil, queue: nil) {
            [weak self] notification in
            let saved = (notification.object as AnyObject?).map(ObjectIdentifier.init)
            MainActor.assumeIsolated {
                self?.sendAdvertisement()
                if let activity = Application.shared.advertisedUserActivity, ObjectIdentifier(activity) == saved { self?.saved(activity) }
            }
        })
        if advertising {
            AgentConnection.holdingConnection = self
            UserActivity.contentDidChange = { activity in AgentConnection.holdingConnection?.changed(activity) }
        }
        connect()
    }

    /// Leaves the agent: the app's activity is withdrawn and nothing is nearby any more.
    public func leave() {
        stopped = true
        retry?.cancel()
        retry = nil
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        observers = []
        if AgentConnection.holdingConnection === self {
            AgentConnection.holdingConnection = nil
            UserActivity.contentDidChange = nil
        }
        disconnect()
        if Application.shared.nearbySource === self { Application.shared.nearbySource = nil }
    }

    // MARK: Connecting

    private func connect() {
        guard !stopped, !connecting, bus == nil else { return }
        connecting = true
        Task { @MainActor in
            defer { connecting = false }
            do {
                try await joinAgent()
                backoff = .zero
                autostarted = false
                if unavailableLogged { log.info("joined the agent at \(socketPath) again") }
                unavailableLogged = false
                onJoined?()
            } catch {
                disconnect()
                if autostart, !autostarted, Self.nobodyListens(error) {
                    autostarted = true
                    return startAgent()
                }
                if !unavailableLogged {
                    unavailableLogged = true
                    log.notice("the agent at \(socketPath) is unavailable (\(error)); trying again in the background")
                }
                scheduleRetry()
            }
        }
    }

    /// Whether `error` says no agent listens at the socket (no file, or nobody accepting).
    private static func nobodyListens(_ error: any Error) -> Bool {
        guard let error = error as? GLibError else { return false }
        return error.isIOError(G_IO_ERROR_NOT_FOUND) || error.isIOError(G_IO_ERROR_CONNECTION_REFUSED)
    }

    /// Starts the agent, then joins it at once; a failure is logged once and retried as any.
    private func startAgent() {
        Task { @MainActor in
            do {
                try await AgentAutostart.start(in: AgentRuntimeDirectory(socketPath: socketPath))
                log.info("started the agent (\(socketPath))")
                connect()
            } catch {
                unavailableLogged = true
                log.notice("the agent at \(socketPath) is unavailable and could not be started: \(error); trying again in the background")
                scheduleRetry()
            }
        }
    }

    private func scheduleRetry() {
        guard !stopped, retry == nil else { return }
        backoff = min(backoff == .zero ? .milliseconds(500) : backoff * 2, maximumBackoff)
        retry = MainLoop.after(backoff) { [weak self] in
            self?.retry = nil
            self?.connect()
        }
    }

    /// A new connection to the agent's socket (a `GSocketConnection *`, owned by the caller).
    ///
    /// A Unix socket connects at once or fails at once (no file, nobody listening, or the
    /// agent's backlog full: `EAGAIN`), so the connect is made directly, in this turn of the
    /// loop; a failure is retried as any. (GIO's `GSocketClient` would fail the same way, after
    /// some loop turns: about a millisecond for a freshly started app.)
    private func connectToSocket() throws -> OpaquePointer {
        let address = g_unix_socket_address_new(socketPath)!
        defer { g_object_unref(UnsafeMutableRawPointer(address)) }
        var error: UnsafeMutablePointer<GError>?
        guard let socket = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error) else {
            throw GLibError(consuming: error!)
        }
        defer { g_object_unref(UnsafeMutableRawPointer(socket)) }
        g_socket_set_blocking(socket, 0)
        guard g_socket_connect(socket, address, nil, &error) != 0 else { throw GLibError(consuming: error!) }
        g_socket_set_blocking(socket, 1)
        return OpaquePointer(g_socket_connection_factory_create_connection(socket))
    }

    private func joinAgent() async throws {
        let connection = try connectToSocket()
        defer { g_object_unref(UnsafeMutableRawPointer(connection)) }  // the bus holds its own
        let bus = try await LocalBus.connect(over: connection, timeout: callTimeout)
        bus.export(path: AgentInterface.appPath, info: AgentInterface.appInfo) { [weak self] call in
            guard let self else { return DBusAnswer<AppMethod>(call).fail(.failed, "the app is leaving") }
            self.answer(call)
        }
        self.bus = bus
        nearbySubscription = bus.subscribe(AgentSignal.Member.nearbyChanged) { [weak self, weak bus] (signal: AgentSignal) in
            guard let self, let bus, self.bus === bus, case .nearbyChanged(let list) = signal else { return }
            Application.shared.updateNearbyActivities(AgentInterface.nearbyList(from: list))
        }
        bus.onClosed { [weak self, weak bus] in
            guard let self, let bus, self.bus === bus else { return }
            self.log.notice("the agent at \(self.socketPath) went away; trying again in the background")
            self.unavailableLogged = true
            self.disconnect()
            self.scheduleRetry()
        }
        bus.startMessageProcessing()
        let manifest = Application.shared.manifest
        guard let manifest else { throw CocoaError.handoff(.userActivityConnectionUnavailable, "this app has no manifest to join the agent with") }
        agentVersion = try await bus.call(.join(app: manifest.appID, team: manifest.teamIdentifier, types: manifest.activityTypes),
                                          timeout: callTimeout)
        isJoined = true
        lastSent = nil
        sendAdvertisement()
        let handed = handedBeforeJoined
        handedBeforeJoined = []
        for activity in handed { Application.shared.continueNearbyActivity(activity) }
        let nearby = try await bus.call(.getNearby, timeout: callTimeout)
        Application.shared.updateNearbyActivities(AgentInterface.nearbyList(from: nearby))
    }

    private func disconnect() {
        if let bus {
            if let nearbySubscription { bus.unsubscribe(nearbySubscription) }
            for subscription in pairingSubscriptions { bus.unsubscribe(subscription) }
            bus.close()
        }
        nearbySubscription = nil
        pairingSubscriptions = []
        bus = nil
        isJoined = false
        lastSent = nil
        held = nil
        handedBeforeJoined = []
        Application.shared.updateNearbyActivities([])
    }

    // MARK: Advertising

    /// Tells the agent this app's advertised activity and whether it is active, if that changed.
    private func sendAdvertisement() {
        guard advertising, isJoined, let bus else { return }
        let activity = activities.advertisement()
        let active = Application.shared.isActive
        if let lastSent, lastSent.0 == activity, lastSent.1 == active { return }
        lastSent = (activity, active)
        if let activity {
            sent.removeAll { $0.generation == activity.generation }
            sent.append(activity)
            if sent.count > 8 { sent.removeFirst() }
        }
        let advertisement = activity.map {
            AppAdvertisement(id: $0.generation, activityType: $0.activityType, title: $0.title, webpageURL: $0.webpageURL,
                             supportsContinuationStreams: $0.supportsContinuationStreams)
        }
        // Queued now, in order: the agent sees each change in the order the app made it, and
        // before the calls that follow (a refused one shows in the agent's log).
        do {
            try bus.send(AgentMethod.setAdvertisement(activity: AppAdvertisement.encode(advertisement), active: active))
        } catch {
            log.notice("could not send this app's advertisement to the agent: \(error)")
        }
    }

    // MARK: Held payloads (agent version 3)

    /// `activity` was saved: if it is the advertised one the agent knows, its payload is handed
    /// to the agent to hold (not for a save made to answer the agent's own fetch: that payload
    /// is held once sent).
    private func saved(_ activity: UserActivity) {
        guard !answeringFetch, let id = advertisedID(of: activity) else { return }
        guard let payload = try? activity.encodedPayload() else { return }  // the agent asks, and hears why
        hold(payload, id: id, of: activity)
    }

    /// The advertisement id the agent knows for `activity`, if it is the advertised one and
    /// the agent holds payloads.
    private func advertisedID(of activity: UserActivity) -> UInt64? {
        guard advertising, isJoined, (agentVersion ?? 0) >= Self.holdingVersion, activity === Application.shared.advertisedUserActivity,
              let id = lastSent?.0?.generation, activities.advertisement()?.generation == id else { return nil }
        return id
    }

    /// Sends `payload`, just encoded from `activity` with nothing changed since, for the agent to hold.
    private func hold(_ payload: Data, id: UInt64, of activity: UserActivity) {
        guard let bus else { return }
        do {
            try bus.send(AgentMethod.holdPayload(id: id, payload: payload))
            activity.payloadWasHeld()
            held = (id, ObjectIdentifier(activity))
        } catch {
            held = nil
            log.notice("could not hand the agent this app's payload: \(error)")
        }
    }

    /// Something `activity`'s payload carries changed, or it needs a save: the agent stops
    /// answering from the payload it holds. Sent before any later message, so every fetch that
    /// reaches the agent after it asks the app.
    private func changed(_ activity: UserActivity) {
        guard let held, held.activity == ObjectIdentifier(activity) else { return }
        self.held = nil
        do {
            try bus?.send(AgentMethod.payloadChanged(id: held.id))
        } catch {
            log.notice("could not tell the agent this app's payload changed: \(error)")
        }
    }

    // MARK: org.baton.App1 (the agent's calls)

    private func answer(_ call: MethodCall) {
        let answer = DBusAnswer<AppMethod>(call)
        let method: AppMethod
        do { method = try answer.method() } catch { return answer.fail(.failed, "bad arguments: \(error)") }
        let id: UInt64
        switch method {
        case .continueNearby(let encoded):
            guard let activity = AgentInterface.nearby(from: encoded) else { return answer.fail(.failed, "bad arguments") }
            answer.reply(.continueNearby(activity: encoded), ())
            // The agent hands a launched app its continuation right after answering `Join`:
            // the call can arrive before that answer has been taken here.
            guard isJoined else {
                if handedBeforeJoined.count < 8 { handedBeforeJoined.append(activity) }
                return
            }
            Application.shared.continueNearbyActivity(activity)
            return
        case .inspect(let actions): return answerInspection(answer, actions: actions)
        case .fetchPayload(let advertisement), .continued(let advertisement), .streamsArrived(let advertisement, _):
            id = advertisement
        }
        guard let activity = sent.last(where: { $0.generation == id }) else {
            return answer.fail(.notCurrent, "that activity is no longer advertised")
        }
        switch method {
        case .fetchPayload:
            Task { @MainActor in
                do throws(ProvidedActivityError) {
                    answeringFetch = true
                    defer { answeringFetch = false }
                    let payload = try await activities.payload(of: activity)  // saved first
                    answer.reply(.fetchPayload(id: id), payload)
                    if let advertised = Application.shared.advertisedUserActivity, advertisedID(of: advertised) == id {
                        hold(payload, id: id, of: advertised)
                    }
                } catch {
                    switch error {
                    case .notCurrent: answer.fail(.notCurrent, "that activity is no longer current")
                    case .tooLarge(let reason): answer.fail(.tooLarge, reason)
                    case .failed(let reason): answer.fail(.failed, reason)
                    }
                }
            }
        case .continued:
            Task { @MainActor in
                await activities.continued(activity)
                answer.reply(.continued(id: id), ())
            }
        case .streamsArrived(_, let token):
            guard token.count == StreamRelay.tokenSize else { return answer.fail(.failed, "bad arguments") }
            answer.reply(.streamsArrived(id: id, token: token), ())
            Task { @MainActor in
                do {
                    let stream = try await self.streamConnection(token: token)
                    self.activities.acceptStreams(stream, for: activity)
                } catch {
                    self.log.notice("could not take continuation streams from the agent: \(error)")
                }
            }
        case .continueNearby, .inspect:
            break  // answered above
        }
    }

    /// A second connection to the agent's socket for a relayed stream: `S` and `token`.
    private func streamConnection(token: Data) async throws -> LocalStream {
        let connection = try connectToSocket()
        let stream = LocalStream(connection)
        g_object_unref(UnsafeMutableRawPointer(connection))
        try await stream.writeRaw(Data([StreamRelay.marker]) + token)
        return stream
    }

    // MARK: NearbyActivitySource

    public func fetchPayload(of activity: NearbyActivity) async throws -> Data {
        try await callAgent(.fetchPayload(device: activity.device, sequence: activity.sequence))
    }

    public func confirmContinued(_ activity: NearbyActivity) async throws {
        try await callAgent(.continued(device: activity.device, sequence: activity.sequence))
    }

    public func openStreams(for activity: NearbyActivity) async throws -> any ContinuationStreamChannel {
        let token = try await callAgent(.openStreams(device: activity.device, sequence: activity.sequence))
        guard token.count == StreamRelay.tokenSize else {
            throw CocoaError.handoff(.userActivityHandoffFailed, "malformed OpenStreams reply")
        }
        do { return try await streamConnection(token: token) } catch {
            throw CocoaError.handoff(.userActivityConnectionUnavailable, "cannot reach the agent for the streams: \(error)")
        }
    }

    /// Calls `method` of the agent about `activity`; failures are the Handoff codes the agent
    /// saw, `.userActivityConnectionUnavailable` without an agent, and
    /// `.userActivityRemoteApplicationTimedOut` past `callTimeout`.
    private func callAgent<Reply>(_ call: DBusCall<AgentMethod, Reply>) async throws -> Reply {
        guard isJoined, let bus else {
            throw CocoaError.handoff(.userActivityConnectionUnavailable, "the Baton agent is not running (\(socketPath))")
        }
        do {
            return try await bus.call(call, timeout: callTimeout)
        } catch let error as GLibError {
            throw Self.handoffError(error)
        } catch let error as DBusMessageMismatch {
            throw CocoaError.handoff(HandoffFailure.code(for: error), "\(error)")
        }
    }

    /// The Handoff error for a failed call to the agent (`HandoffFailure.code(for:)`): the
    /// code its error name carries, `.userActivityRemoteApplicationTimedOut` past the call's
    /// timeout, else `.userActivityConnectionUnavailable`; with the agent's words.
    private static func handoffError(_ error: GLibError) -> CocoaError {
        CocoaError.handoff(HandoffFailure.code(for: error), error.message)
    }
}
