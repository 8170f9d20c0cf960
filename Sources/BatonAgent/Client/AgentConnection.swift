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
///
/// Its parts: joining and retrying (`AgentConnection+Joining`), what the app tells the agent
/// (`+Advertising`), the agent's calls to the app, all dispatched in one place
/// (`+AppInterface`), the app's `NearbyActivitySource` (`+NearbySource`) and pairing
/// windows (`+Pairing`).
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
    public internal(set) var isJoined = false
    /// The protocol version the agent answered `Join` with.
    public internal(set) var agentVersion: UInt32?
    /// Called each time the app has (re)joined the agent.
    public var onJoined: (@MainActor () -> Void)?
    /// Where the connection publishes its `DiagnosticEvent`s (`.joinedAgent` each time it has
    /// joined, before `onJoined` is called); they also go to the process's
    /// `BATON_DIAGNOSTICS_FD`, if it has one, for a supervisor or a test.
    public let diagnostics = Diagnostics()

    let activities = ApplicationActivityProvider()
    var bus: LocalBus?
    var nearbySubscription: guint?
    /// The pairing signals subscribed to (`subscribePairing`), ended with the bus.
    var pairingSubscriptions: [guint] = []
    var observers: [NSObjectProtocol] = []
    var backoff: Duration = .zero
    var retry: LoopSource?
    var connecting = false
    var stopped = false
    var unavailableLogged = false
    /// The advertisements sent, by id (the last few), to answer the agent's calls about them.
    var sent: [ProvidedActivity] = []
    var lastSent: (ProvidedActivity?, Bool)?
    /// The app's summary sent to the agent while someone watches (`App1.WatchInspection`).
    var inspectionPush: InspectionPush?
    /// Continuations the agent handed over before its answer to `Join` was taken (at most 8).
    var handedBeforeJoined: [NearbyActivity] = []
    /// The advertisement whose payload the agent holds (`HoldPayload`), and its activity.
    var held: (id: UInt64, activity: ObjectIdentifier)?
    /// True while a payload is made for the agent's `FetchPayload`: that save's payload is
    /// held once it is sent, instead of being encoded twice.
    var answeringFetch = false
    /// The connection told of activity changes (`UserActivity.contentDidChange`): one per app.
    static weak var holdingConnection: AgentConnection?
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
    var autostarted = false

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
    /// listens, discovery, links, joined apps and the latest failures. With `roundTrips`, the
    /// agent first pings each link (`GetStatus`; a silent device costs up to
    /// `ContinuityNode.roundTripDeadline`) and each link has its round-trip time; without, it
    /// answers at once and no link has one (`GetStatusWithoutPings`; an agent older than
    /// interface version 7 is asked `GetStatus`). Throws when the app is not joined, or the
    /// agent does not answer within `timeout`.
    public func status(roundTrips: Bool = true, timeout: Duration = .seconds(5)) async throws -> AgentStatus {
        guard isJoined, let bus else {
            throw CocoaError.handoff(.userActivityConnectionUnavailable, "the Baton agent is not running (\(socketPath))")
        }
        guard let version = agentVersion, version >= Self.statusVersion else {
            throw CocoaError.handoff(.featureUnsupported, "the agent speaks interface version \(agentVersion ?? 0), older than this program's \(AgentInterface.version): it has no status; restart it to run the installed one")
        }
        let withoutPings = !roundTrips && version >= Self.statusWithoutPingsVersion
        let text = try await bus.call(withoutPings ? .getStatusWithoutPings : .getStatus, timeout: timeout)
        guard let status = AgentStatus.decode(Data(text.utf8)) else {
            throw CocoaError.handoff(.userActivityHandoffFailed, "the agent's status did not decode")
        }
        return status
    }

    /// The first agent interface version with `GetStatus`.
    static let statusVersion: UInt32 = 4
    /// The first agent interface version with `GetStatusWithoutPings`.
    static let statusWithoutPingsVersion: UInt32 = 7

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
}
