import Baton
import BatonContinuity
import BatonLoop
import Foundation
import Logging

/// The per-user agent: one `ContinuityNode` for this device (identity, listener, links,
/// discovery, roster and revocations, stream grants), hosted for all of the user's Baton apps,
/// which join it over `AgentServer`'s socket. The device advertises the activity of the joined
/// app that became active most recently; every joined app sees the peers' activities and
/// continues them through the agent. `batond` is a thin main around it.
@MainActor
public final class Agent {
    /// The device's continuity node: its identity, links and discovery, shared by every joined app.
    public let node: ContinuityNode
    let apps = JoinedApps()
    let log = Logger(label: "baton.agent")
    /// How many calls one app may have waiting on the network at once; past it a call is
    /// refused (`org.baton.Agent1.Error.Refused`).
    public var maximumPendingCallsPerApp = 8
    /// How many bytes the agent's replies and signals to an app may wait unread (its socket
    /// full) when the app calls again; past it the app is closed, so unread replies cannot pile
    /// up in the agent. A burst of calls from an app that reads, however late, stays far below.
    public var maximumUnreadBytes = 4 * 1024 * 1024
    /// How long an app may leave what the agent sent it untaken (its socket full) while newer
    /// activities of the peers wait for it; past it the app is closed, alone. An app that reads,
    /// however slowly, takes the latest list within it and is sent no step it missed.
    public var maximumUnreadStall: Duration {
        get { apps.delivery.maximumStall }
        set { apps.delivery.maximumStall = newValue }
    }
    /// How long the agent waits for an app to answer one of its calls (a payload, `Continued`).
    public var appCallTimeout: Duration {
        get { apps.appCallTimeout }
        set { apps.appCallTimeout = newValue }
    }
    /// Continuation streams relayed between apps and peers (`StreamRelay`).
    let relay = StreamRelay()
    /// Starts an installed app that is not joined, for `ContinueNearby` (none: such a call fails).
    public weak var launcher: (any AppLaunching)?
    /// How long a launched app has to join before the continuation handed to it fails.
    public var launchJoinTimeout: Duration = .seconds(20)
    /// Continuations waiting for a launched app to join, oldest first (at most
    /// `maximumWaitingForLaunch`; see `continueNearby`).
    var waitingForLaunch: [WaitingContinuation] = []
    /// Numbers the waiting continuations.
    var waitingCount: UInt64 = 0
    /// Payloads fetched while launched apps start, one per waiting or just handed continuation
    /// (at most twice `maximumWaitingForLaunch`; past it the oldest is dropped).
    var prefetches: [PayloadPrefetch] = []
    /// How many launched apps' fetches were answered from a prefetch (for tests and the log).
    var prefetchesTaken = 0
    /// The apps watching the device's events (`WatchInspection`), by app number.
    var inspectionWatchers: [UInt64: InspectionWatch] = [:] {
        didSet { if oldValue.isEmpty != inspectionWatchers.isEmpty { tellAppsToWatch(!inspectionWatchers.isEmpty) } }
    }
    /// The continuations this agent routed, live and the last 50, step by step (`baton inspect`).
    public let continuationHistory = ContinuationHistory()
    /// The devices whose links the node cut because the group's signed list revoked them
    /// (`unlinked` with reason `revoked`), or whose connections it refused as revoked
    /// (`refused` with reason `revoked`), newest last, at most 32 (`baton why`, `baton inspect`).
    var revokedDevices: [String] = []
    private var revocationObservation: DiagnosticsObservation?
    /// Called with the peers' activities when they change, as the apps are sent them: at most
    /// once per 50 ms, the latest list (`NearbyDelivery`; the agent's notifications).
    public var onNearbyChanged: (@MainActor ([NearbyActivity]) -> Void)?

    /// When the agent was made (`baton status`).
    public let startedAt = Date()
    /// Who started the agent's process (`baton status`); `batond` sets it.
    public var startedBy = StartedBy.command
    /// The socket apps join the agent at (`baton status`); `batond` sets it.
    public var socketPath = ""
    /// Pairing windows, once enabled (`enablePairing`): nil on a device that opens none.
    public private(set) var pairing: AgentPairing?
    let identityDirectory: URL?
    /// The process's one client of avahi-daemon, handed to the node's discovery and to the
    /// pairing windows' advertisements.
    let avahi: AvahiConnection

    /// An agent for the device `identity` (see `ContinuityNode.init`). It owns the loop's
    /// client of avahi-daemon: `avahi` if given, else one it makes, and hands it to its node
    /// and its pairing windows, so the process holds one.
    public init(identity: DeviceIdentity, identityDirectory: URL? = nil, staticPeers: [PeerAddress] = [],
                avahi: AvahiConnection? = nil) throws {
        self.identityDirectory = identityDirectory
        let avahi = avahi ?? AvahiConnection()
        self.avahi = avahi
        node = try ContinuityNode(identity: identity, identityDirectory: identityDirectory, staticPeers: staticPeers, provider: apps,
                                  avahi: avahi)
        apps.streamsArrived = { [weak self] app, id, channel in self?.streamsArrived(app, id, channel) }
        apps.continuationHistory = continuationHistory
        apps.delivery.sent = { [weak self] activities in self?.onNearbyChanged?(activities) }
        apps.diagnostics = node.diagnostics
        apps.delivery.close = { [weak self] app in
            self?.apps.remove(app, reason: .doesNotRead)
            app.bus.close()
        }
        revocationObservation = node.diagnostics.observe { [weak self] event in
            // A link cut as revoked, or a connection refused as revoked (named from the list held):
            // a device revoked before it ever linked here reads as revoked, not as not linked.
            let peer: String
            switch event {
            case .unlinked(let name, .revoked), .refused(let name?, .revoked): peer = name
            default: return
            }
            guard let self else { return }
            self.revokedDevices.removeAll { $0 == peer }
            self.revokedDevices.append(peer)
            if self.revokedDevices.count > 32 { self.revokedDevices.removeFirst() }
        }
    }

    /// Starts the device: listens on `host:port` (by default every interface), dials the static
    /// peers and the devices discovery finds (`ContinuityNode.start`).
    public func start(host: String = PeerAddress.allInterfaces, port: UInt16 = 0, discovery: ContinuityNode.DiscoveryMode = .automatic) throws {
        try node.start(host: host, port: port, discovery: discovery)
    }

    /// Lets this agent open pairing windows for the group whose authority is in
    /// `authorityFolder` (read when a window opens), answered by the app that opens one and by
    /// `notifier`'s desktop notifications, if given (`AgentPairing`). Returns the pairing.
    @discardableResult
    public func enablePairing(authorityFolder: ConfigDirectory, notifier: PairingNotifier? = nil) -> AgentPairing {
        let pairing = AgentPairing(authorityFolder: authorityFolder, node: node, identityDirectory: identityDirectory, avahi: avahi)
        pairing.notifier = notifier
        self.pairing = pairing
        return pairing
    }

    /// Stops the device and drops every app.
    public func stop() {
        pairing?.stop()
        for app in apps.apps.values {
            apps.remove(app, reason: .agentStopping)
            app.bus.close()
        }
        relay.closeAll()
        inspectionWatchers = [:]
        apps.delivery.stop()
        let waiting = waitingForLaunch
        waitingForLaunch = []
        for continuation in waiting {
            continuation.expiry.cancel()
            continuation.finish(.failure(AgentContinuationFailure(AgentInterface.ErrorName.connectionUnavailable, "the agent is stopping")))
        }
        for prefetch in prefetches { prefetch.drop() }
        prefetches = []
        node.stop()
    }

    /// How many apps have joined.
    public var joinedAppCount: Int { apps.apps.values.count { $0.isJoined } }

    // MARK: Connections (from AgentServer)

    /// A new app connection whose D-Bus is set up (message processing not yet started).
    func adopt(_ app: JoinedApp, joinDeadline: Duration) {
        app.bus.export(path: AgentInterface.agentPath, info: AgentInterface.agentInfo) { [weak self, weak app] call in
            let answer = DBusAnswer<AgentMethod>(call)
            guard let self, let app else { return answer.fail(.connectionUnavailable, "the agent is stopping") }
            guard self.keepsReading(app) else { return answer.fail(.refused, "replies not read") }
            self.answer(answer, from: app)
        }
        apps.add(app)
        app.bus.onRefused = { [weak self, weak app] reason in
            guard let self, let app else { return }
            self.node.diagnostics.publish(.refused(from: app.appID ?? "pid \(app.pid)", reason: reason))
        }
        app.bus.onClosed { [weak self, weak app] in
            guard let self, let app else { return }
            self.apps.remove(app)
            self.pairing?.openerLeft(ObjectIdentifier(app))
        }
        app.joinDeadline = MainLoop.after(joinDeadline) { [weak self, weak app] in
            guard let self, let app, !app.isJoined else { return }
            self.log.notice("pid \(app.pid) did not join within \(joinDeadline): closed")
            app.joinDeadline = nil
            app.bus.close()
            self.apps.remove(app)
        }
        app.bus.startMessageProcessing()
    }

    /// Whether `app` reads what the agent sends it: false (and the app closed, logged once)
    /// when more than `maximumUnreadBytes` wait for it as it calls again.
    private func keepsReading(_ app: JoinedApp) -> Bool {
        let unread = app.bus.unsentOutputBytes
        guard unread > maximumUnreadBytes else { return true }
        log.warning("\(app.name) does not read its replies (\(unread) bytes unread): closed")
        apps.remove(app, reason: .doesNotRead)
        app.bus.close()
        if unread > NearbyDelivery.trimAfterUnread { NearbyDelivery.giveBackMemory() }
        return false
    }

    private func answer(_ call: DBusAnswer<AgentMethod>, from app: JoinedApp) {
        let method: AgentMethod
        do { method = try call.method() } catch { return call.fail(.refused, "bad arguments: \(error)") }
        if case .join(let appID, let team, let types) = method {
            guard !app.isJoined else { return call.fail(.notJoined, "already joined") }
            guard Self.acceptable(appID), Self.acceptable(team), types.count <= AgentInterface.maximumTypes else {
                return call.fail(.refused, "Join needs an app ID and team of 1 to \(AgentInterface.maximumText) bytes and at most \(AgentInterface.maximumTypes) types")
            }
            app.appID = appID
            app.teamIdentifier = team
            app.activityTypes = types.filter(Self.acceptable)
            app.joinDeadline?.cancel()
            app.joinDeadline = nil
            log.info("\(app.name) joined")
            node.diagnostics.publish(.appJoined(appID: appID, processID: app.pid))
            call.reply(.join(app: appID, team: team, types: types), AgentInterface.version)
            if !inspectionWatchers.isEmpty { tellAppsToWatch(true, apps: [app]) }
            return handWaitingContinuations(to: app)
        }
        guard app.isJoined else { return call.fail(.notJoined, "call Join first") }
        switch method {
        case .join:
            break  // answered above
        case .setAdvertisement(let activity, let active):
            switch AppAdvertisement.decode(activity) {
            case .malformed: call.fail(.refused, "a malformed advertisement")
            case .none:
                apps.update(app, advertisement: nil, active: active)
                call.reply(.setAdvertisement(activity: activity, active: active), ())
            case .some(let advertisement):
                var clipped = advertisement
                clipped.title = advertisement.title.map(Self.clipped)
                apps.update(app, advertisement: clipped, active: active)
                call.reply(.setAdvertisement(activity: activity, active: active), ())
            }
        case .holdPayload(let id, let payload):
            apps.hold(payload, id: id, from: app)
            call.reply(.holdPayload(id: id, payload: payload), ())
        case .payloadChanged(let id):
            if app.heldPayload?.id == id { app.heldPayload = nil }
            call.reply(.payloadChanged(id: id), ())
        case .getNearby:
            call.reply(.getNearby, AgentInterface.encode(apps.nearby))
        case .getStatus, .getStatusWithoutPings:
            answerStatus(call, pinging: method == .getStatus, from: app)
        case .openPairingWindow, .answerPairing, .closePairingWindow:
            answerPairing(call, method, from: app)
        case .inspect(let filter, let actions):
            answerInspection(call, from: app, app: filter, actions: actions)
        case .watchInspection(let on):
            answerWatch(call, from: app, on: on)
        case .inspectionChanged(let summary):
            answerInspectionChanged(call, from: app, summary: summary)
        case .continueNearby(let device, let sequence, let token):
            guard let activity = apps.nearby.first(where: { $0.device == device && $0.sequence == sequence }) else {
                return call.fail(.connectionUnavailable, "\(device) does not offer activity \(sequence) now")
            }
            continueNearby(activity, activationToken: token.isEmpty ? nil : token) { outcome in
                switch outcome {
                case .success(let appID): call.reply(.continueNearby(device: device, sequence: sequence, activationToken: token), appID)
                case .failure(let failure): call.fail(HandoffFailure.AgentErrorName(rawValue: failure.name) ?? .handoffFailed, failure.message)
                }
            }
        case .fetchPayload(let device, let sequence), .continued(let device, let sequence), .openStreams(let device, let sequence),
             .openStreamsPipelined(let device, let sequence, _):
            guard let activity = apps.nearby.first(where: { $0.device == device && $0.sequence == sequence }) else {
                if case .openStreamsPipelined(_, _, let token) = method {
                    relay.refuse(token, with: CocoaError.handoff(.userActivityConnectionUnavailable, "\(device) does not offer activity \(sequence) now"))
                }
                return call.fail(.connectionUnavailable, "\(device) does not offer activity \(sequence) now")
            }
            guard app.pendingCalls < maximumPendingCallsPerApp else {
                if !app.refusedPastCallCap {
                    app.refusedPastCallCap = true
                    log.notice("\(app.name) has too many calls waiting (at most \(maximumPendingCallsPerApp)): refusing the calls past it")
                }
                if case .openStreamsPipelined(_, _, let token) = method {
                    relay.refuse(token, with: CocoaError.handoff(.userActivityHandoffFailed, "too many calls waiting"))
                }
                return call.fail(.refused, "too many calls waiting (at most \(maximumPendingCallsPerApp))")
            }
            if forwardedInTurn(call, method, activity, for: app) { return }
            app.pendingCalls += 1
            // Started at once, so the call to the peer leaves in this turn of the loop.
            Task.immediate { @MainActor [weak self, weak app] in
                defer { app?.pendingCalls -= 1 }
                guard let self else { return call.fail(.connectionUnavailable, "the agent is stopping") }
                await self.forward(call, method, activity, for: app)
            }
        }
    }

    /// Runs an app's call toward a nearby device through the node.
    private func forward(_ call: DBusAnswer<AgentMethod>, _ method: AgentMethod, _ activity: NearbyActivity, for app: JoinedApp?) async {
        let history = continuationHistory
        let streams = switch method {
        case .openStreams, .openStreamsPipelined: true
        default: false
        }
        let record = history.record(of: activity, streams: streams)
        do {
            switch method {
            case .fetchPayload(let device, let sequence):
                let payload = if let app, let prefetch = takePrefetch(of: activity, for: app) {
                    try await prefetch.fetch.loopValue()
                } else {
                    try await node.fetchPayload(of: activity)
                }
                call.reply(.fetchPayload(device: device, sequence: sequence), payload)
                history.record(.payloadFetched(bytes: payload.count), in: record)
            case .openStreams(let device, let sequence):
                let channel = try await node.openStreams(for: activity)
                guard app != nil else { return channel.close() }
                history.record(.streamsOpened, in: record)
                call.reply(.openStreams(device: device, sequence: sequence), relay.expect(channel, ended: streamsEnded(record)))
            case .openStreamsPipelined(let device, let sequence, let token):
                do {
                    let channel = try await node.openStreams(for: activity)
                    guard app != nil, relay.attach(channel, token: token, ended: streamsEnded(record)) else {
                        channel.close()
                        throw CocoaError.handoff(.userActivityHandoffFailed, "the streams' token is not one to take")
                    }
                    history.record(.streamsOpened, in: record)
                    call.reply(.openStreamsPipelined(device: device, sequence: sequence, token: token), ())
                } catch {
                    relay.refuse(token, with: CocoaError.handoff(HandoffFailure.code(for: error), "\(error)"))
                    throw error
                }
            default:
                call.fail(.refused, "not a call toward a nearby device")
            }
        } catch {
            Self.fail(call, with: error, recordedIn: record, of: history)
        }
    }

    /// Fails `call` with `error` as the Handoff code it is (`HandoffFailure.code(for:)`, by its
    /// agent error name) and its words, and records the failure in `record` of `history`.
    static func fail(_ call: DBusAnswer<AgentMethod>, with error: any Error, recordedIn record: UInt64, of history: ContinuationHistory) {
        let code = HandoffFailure.code(for: error)
        let words = (error as? CocoaError).flatMap { ($0 as NSError).userInfo[NSLocalizedDescriptionKey] as? String } ?? "\(error)"
        history.record(.failed(code: code.rawValue, reason: words), in: record)
        call.fail(HandoffFailure.AgentErrorName(code), words)
    }

    /// What records, in `record` of the continuation history, the bytes a relay of streams moved once it ends.
    private func streamsEnded(_ record: UInt64) -> StreamRelay.Ended {
        { [weak history = continuationHistory] sent, received in
            history?.record(.streamsEnded(sent: sent, received: received), in: record)
        }
    }

    /// A peer opened continuation streams to `app`'s activity: the app is given a token to
    /// connect for them.
    private func streamsArrived(_ app: JoinedApp, _ id: UInt64, _ channel: any ContinuationStreamChannel) {
        let token = relay.expect(channel)
        Task { @MainActor [weak self] in
            guard let self else { return }
            do {
                try await app.bus.call(.streamsArrived(id: id, token: token), timeout: self.appCallTimeout)
            } catch {
                self.log.notice("could not hand continuation streams to \(app.name): \(error)")
                self.relay.cancel(token)
            }
        }
    }

    /// `text` cut to at most `AgentInterface.maximumText` bytes of UTF-8, between characters.
    private static func clipped(_ text: String) -> String {
        var result = ""
        for character in text {
            guard result.utf8.count + character.utf8.count <= AgentInterface.maximumText else { break }
            result.append(character)
        }
        return result
    }

    /// Whether `text` from an app is a name this agent takes: not empty, and at most
    /// `AgentInterface.maximumText` bytes of UTF-8.
    static func acceptable(_ text: String) -> Bool { !text.isEmpty && text.utf8.count <= AgentInterface.maximumText }
}
