import Baton
import BatonLoop
import CGLib
import Foundation
import Logging

/// Desktop notifications for nearby activities (org.freedesktop.Notifications, Desktop
/// Notifications Specification 1.2): "Continue ‹title› from ‹device›" with a Continue action,
/// one per nearby activity that can continue here — in an installed app or the browser, as
/// `destination` says — replaced in place (`replaces_id`) when that device's activity changes,
/// withdrawn (`CloseNotification`) when it goes. Activating the action (or the notification
/// itself, action "default") calls `onContinue` with the activity and the activation token the
/// server sent before it (`ActivationToken`), if any.
///
/// - Bus: `busAddress`, else the session bus (`$DBUS_SESSION_BUS_ADDRESS`, else
///   `$XDG_RUNTIME_DIR/bus`; never X11 autolaunch). No bus, or no server on it: off, with one
///   info line; a server that appears later (the name is watched) gets the current
///   notifications, and so does a new owner of the name (the old one's ids die with it).
/// - Every call is asynchronous on the app's loop, bounded by `callTimeout`; per activity one
///   call is in flight at a time, and the next is made from the state current when it answers.
/// - Signals are taken only from the name's owner and only for ids this notifier was given.
/// - Remote strings are made safe by `NotificationText`. At most `maximumNotifications` (one per
///   device; further devices are not shown).
///
/// `start()` to begin, `update(_:)` with the nearby list whenever it changes, `stop()` before
/// letting it go (it withdraws what it posted and releases its bus).
@MainActor
public final class ContinueNotifier {
    /// The notification server's well-known bus name (Desktop Notifications Specification).
    nonisolated public static let busName = "org.freedesktop.Notifications"
    /// The server's object path.
    nonisolated public static let objectPath = "/org/freedesktop/Notifications"
    /// The server's interface.
    nonisolated public static let interfaceName = "org.freedesktop.Notifications"
    /// The most notifications shown at once.
    nonisolated public static let maximumNotifications = 32
    /// The action keys that continue: the button, and a click on the notification.
    nonisolated public static let continueActions = ["continue", "default"]

    /// Where an activity would continue here, in words ("Mail", "the web browser"), or nil if
    /// it cannot (no notification then).
    public typealias Destination = @MainActor (NearbyActivity) -> String?
    /// Continue `activity`, with the activation token the server gave, if any.
    public typealias Continue = @MainActor (_ activity: NearbyActivity, _ activationToken: String?) -> Void

    /// False: `start()` does nothing (turned off in the configuration).
    public let isEnabled: Bool
    /// The bound of every call to the server, and of connecting to the bus.
    public var callTimeout: Duration = .seconds(5)
    /// Where the notifier is.
    public enum Status: Sendable, Equatable {
        /// Not started, stopped, turned off, or there is no bus to post on.
        case off
        /// Connecting to the bus.
        case connecting
        /// On the bus, no notification server owns the name.
        case noServer
        /// A server owns the name: notifications are posted.
        case posting
    }
    /// Whether notifications are being posted, and if not, why.
    public private(set) var status: Status = .off
    /// Whether a notification server owns the name now.
    public var hasServer: Bool { status == .posting }
    /// The ids of the notifications shown now, by device.
    public var shownIDs: [String: UInt32] { entries.compactMapValues { $0.id == 0 ? nil : $0.id } }

    private let busAddress: String?
    private let destination: Destination
    private let onContinue: Continue
    private let log = Logger(label: "baton")

    private var link: NotificationServerLink?
    private var running = false
    private var saidNoServer = false
    private var saidFailures: Set<String> = []

    /// What should be shown, by device.
    private var desired: [String: NearbyActivity] = [:]
    /// What the server shows (or is being asked to), by device.
    private var entries: [String: Entry] = [:]
    /// Tokens from `ActivationToken`, by notification id, until its `ActionInvoked`.
    private var tokens: [UInt32: String] = [:]
    /// Changes when the server goes or a new one comes: answers to older calls are ignored.
    private var generation = 0
    /// Signals about an id not known yet, kept while a `Notify` is in flight. A server may
    /// send `ActivationToken` and `ActionInvoked` as soon as it has shown the notification,
    /// before its reply to `Notify` (which carries the id) is taken by the task awaiting it;
    /// the bus keeps their order, but the signal's callback can run first. They are replayed
    /// when the reply comes, and dropped once no call is in flight. At most
    /// `maximumEarlySignals`.
    private var earlySignals: [(member: String, parameters: Variant?)] = []
    /// The most signals kept for an id not known yet.
    static let maximumEarlySignals = 16

    private struct Entry {
        /// The activity shown (or being posted), nil while being withdrawn.
        var activity: NearbyActivity?
        /// The server's id, 0 until known or once closed.
        var id: UInt32 = 0
        /// A call for it is in flight.
        var busy = false
    }

    /// A notifier that posts to the server on `busAddress` (nil: the session bus), for the
    /// activities `destination` places, and calls `onContinue` when one is activated. With
    /// `enabled` false it never connects.
    public init(enabled: Bool = true, busAddress: String? = nil, destination: @escaping Destination,
                onContinue: @escaping Continue) {
        isEnabled = enabled
        self.busAddress = busAddress
        self.destination = destination
        self.onContinue = onContinue
    }

    /// The destination the agent uses: where `agent` would continue the activity
    /// (`Agent.destination(for:)`, the rule continuing follows, so a notification never offers
    /// what continuing would not do): the app, by its desktop entry's name where `catalog` has
    /// it (else its id: a joined app that is not installed), or the web browser; none when no
    /// app here takes it. With the agent gone, none.
    public static func destination(using catalog: InstalledAppCatalog, agent: Agent) -> Destination {
        { [weak agent] activity in
            switch agent?.destination(for: activity) {
            case .app(let appID, _)?: catalog.app(withID: appID)?.desktopEntry.name ?? appID
            case .browser?: "the web browser"
            case .differentTeam?, .noAppDeclaresType?, nil: nil
            }
        }
    }

    /// The session bus's address from `environment`, without autolaunch; nil if there is none.
    public static func sessionBusAddress(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let address = environment["DBUS_SESSION_BUS_ADDRESS"], !address.isEmpty { return address }
        guard let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty else { return nil }
        var info = stat()
        let path = runtime + "/bus"
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFSOCK, let escaped = g_dbus_address_escape_value(path) else { return nil }
        defer { g_free(escaped) }
        return "unix:path=" + String(cString: escaped)
    }

    // MARK: Life

    /// Connects to the bus and watches for a notification server (see the type's description).
    public func start() {
        guard isEnabled else {
            log.info("Continue notifications are turned off")
            return
        }
        guard !running else { return }
        running = true
        guard let address = busAddress ?? Self.sessionBusAddress() else {
            log.info("no session bus: no Continue notifications")
            return
        }
        status = .connecting
        let link = NotificationServerLink(address: address, callTimeout: callTimeout) { [weak self] event in
            guard let self else { return }
            switch event {
            case .connected: self.status = .noServer
            case .unreachable(let reason):
                self.status = .off
                self.log.info("cannot reach the session bus (\(reason)): no Continue notifications")
            case .appeared: self.serverAppeared()
            case .vanished: self.serverVanished()
            case .signal(let member, let parameters): self.signal(member, parameters)
            }
        }
        self.link = link
        link.start()
    }

    /// Withdraws every notification posted, stops watching, and closes the bus connection.
    public func stop() {
        guard running else { return }
        running = false
        // Withdrawn before the connection closes, each call bounded as every other.
        link?.stop(withdrawing: status == .posting ? entries.values.map(\.id).filter { $0 != 0 } : [])
        link = nil
        status = .off
        generation += 1
        desired = [:]
        entries = [:]
        tokens = [:]
        earlySignals = []
    }

    /// Shows the nearby activities that can continue here (see the type's description).
    public func update(_ activities: [NearbyActivity]) {
        var next: [String: NearbyActivity] = [:]
        for activity in activities where next[activity.device] == nil {
            guard next.count < Self.maximumNotifications else { break }
            if destination(activity) != nil { next[activity.device] = activity }
        }
        let devices = Set(desired.keys).union(next.keys)
        desired = next
        for device in devices { sync(device) }
    }

    // MARK: Bus

    private func serverAppeared() {
        generation += 1
        entries = [:]
        tokens = [:]
        earlySignals = []
        status = .posting
        saidNoServer = false
        for device in desired.keys { sync(device) }
    }

    private func serverVanished() {
        generation += 1
        entries = [:]
        tokens = [:]
        earlySignals = []
        status = .noServer
        if !saidNoServer {
            saidNoServer = true
            log.info("no notification server on the session bus: no Continue notifications until one appears")
        }
    }

    private func signal(_ member: String, _ parameters: Variant?) {
        guard case .tuple(let items)? = parameters, items.count == 2, case .uint32(let id) = items[0], id != 0 else { return }
        guard let device = entries.first(where: { $0.value.id == id })?.key else {
            // Perhaps about a notification whose Notify reply is still on its way to us.
            if entries.values.contains(where: \.busy), earlySignals.count < Self.maximumEarlySignals {
                earlySignals.append((member, parameters))
            }
            return
        }
        switch (member, items[1]) {
        case ("ActivationToken", .string(let token)):
            tokens[id] = DesktopAppLauncher.isAcceptable(token: token) ? token : nil
        case ("ActionInvoked", .string(let action)):
            let token = tokens.removeValue(forKey: id)
            guard Self.continueActions.contains(action), let activity = entries[device]?.activity else { return }
            onContinue(activity, token)
        case ("NotificationClosed", .uint32):
            // Dismissed (or expired): not shown again unless the activity changes.
            entries[device]?.id = 0
            tokens[id] = nil
        default:
            return
        }
    }

    /// Brings what the server shows for `device` one step toward `desired[device]`.
    private func sync(_ device: String) {
        guard hasServer, let connection = link?.connection else { return }
        let entry = entries[device] ?? Entry()
        guard !entry.busy else { return }
        let wanted = desired[device]
        guard wanted != entry.activity else {
            if wanted == nil { entries[device] = nil }
            return
        }
        let generation = self.generation
        entries[device] = Entry(activity: wanted, id: entry.id, busy: true)
        guard let wanted else {
            // Withdraw: close what the server shows, if it still shows it.
            guard entry.id != 0 else { entries[device] = nil; return }
            tokens[entry.id] = nil
            Task { [weak self] in
                let result = await connection.call("CloseNotification", self?.closeParameters(entry.id), replyType: "()",
                                                   timeout: self?.callTimeout ?? .seconds(5))
                guard let self, self.generation == generation else { return }
                if case .failure(let error) = result { self.sayOnce("could not withdraw a Continue notification: \(error)") }
                if self.entries[device]?.activity == nil { self.entries[device] = nil } else { self.entries[device]?.id = 0 }
                self.entries[device]?.busy = false
                self.sync(device)
            }
            return
        }
        let place = destination(wanted) ?? "this device"
        let parameters = notifyParameters(wanted, replacing: entry.id, destination: place)
        Task { [weak self] in
            let result = await connection.call("Notify", parameters, replyType: "(u)", timeout: self?.callTimeout ?? .seconds(5))
            guard let self, self.generation == generation else { return }
            switch result {
            case .success(let reply):
                guard case .tuple(let items) = reply, items.count == 1, case .uint32(let id) = items[0], id != 0 else {
                    self.sayOnce("the notification server answered Notify with something other than an id")
                    self.entries[device] = Entry(activity: wanted, id: 0, busy: false)
                    break
                }
                if entry.id != 0, entry.id != id { self.tokens[entry.id] = nil }
                self.entries[device] = Entry(activity: wanted, id: id, busy: false)
                self.replayEarlySignals()
            case .failure(let error):
                self.sayOnce("could not post a Continue notification: \(error)")
                self.entries[device] = Entry(activity: wanted, id: 0, busy: false)
            }
            self.sync(device)
        }
    }

    /// Handles the signals that came before a Notify reply (see `earlySignals`), now that the
    /// reply named its id; forgets them once no call is in flight.
    private func replayEarlySignals() {
        let early = earlySignals
        earlySignals = []
        for (member, parameters) in early { signal(member, parameters) }
        if !entries.values.contains(where: \.busy) { earlySignals = [] }
    }

    private func sayOnce(_ message: String) {
        guard saidFailures.count < 16, saidFailures.insert(message).inserted else { return }
        log.notice("\(message)")
    }

    private func notifyParameters(_ activity: NearbyActivity, replacing id: UInt32, destination: String) -> NotifyParameters {
        NotifyParameters(replacesID: id, summary: NotificationText.summary(for: activity),
                         body: NotificationText.body(for: activity, destination: destination),
                         actions: ["continue", "Continue", "default", "Continue"])
    }

    private func closeParameters(_ id: UInt32) -> NotifyParameters {
        NotifyParameters(closing: id)
    }
}
