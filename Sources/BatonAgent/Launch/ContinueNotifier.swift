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

    private var connection: BusConnection?
    private var watch: guint = 0
    private var subscription: guint = 0
    private var running = false
    private var connecting: Task<Void, Never>?
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

    /// The destination the agent uses: the installed app that continues the activity (by its
    /// desktop entry's name), else the web browser if it has a web page.
    public static func destination(using catalog: InstalledAppCatalog) -> Destination {
        { activity in
            if let app = catalog.app(continuing: activity) { return app.desktopEntry.name }
            return activity.webpageURL != nil ? "the web browser" : nil
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
        let timeout = callTimeout
        connecting = Task { [weak self] in
            let attempt = Task { try await BusConnection.open(address) }
            let deadline = MainLoop.after(timeout) { attempt.cancel() }
            defer { deadline.cancel() }
            do {
                let opened = try await attempt.value
                guard let self, self.running else { return opened.close() }
                self.attach(opened)
            } catch {
                self?.status = .off
                self?.log.info("cannot reach the session bus (\(error is CancellationError ? "no answer in \(timeout)" : "\(error)")): no Continue notifications")
            }
        }
    }

    /// Withdraws every notification posted, stops watching, and closes the bus connection.
    public func stop() {
        guard running else { return }
        running = false
        connecting?.cancel()
        connecting = nil
        if let connection {
            if subscription != 0 { g_dbus_connection_signal_unsubscribe(connection.pointer, subscription) }
            if watch != 0 { g_bus_unwatch_name(watch) }
            // Withdrawn before the connection closes, each call bounded as every other.
            let shown = status == .posting ? entries.values.map(\.id).filter { $0 != 0 } : []
            let timeout = callTimeout
            Task {
                for id in shown {
                    _ = await connection.call("CloseNotification", NotifyParameters(closing: id), replyType: "()", timeout: timeout)
                }
                connection.close()
            }
        }
        subscription = 0
        watch = 0
        connection = nil
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

    private func attach(_ opened: BusConnection) {
        connection = opened
        status = .noServer
        let box = NotifierBox(self)
        MainLoop.withThreadDefaultContext {
            subscription = g_dbus_connection_signal_subscribe(
                opened.pointer, Self.busName, Self.interfaceName, nil, Self.objectPath, nil, G_DBUS_SIGNAL_FLAGS_NONE,
                notifierSignalTrampoline, box.retainedOpaque(), CallbackBox.destroyNotify)
            watch = g_bus_watch_name_on_connection(opened.pointer, Self.busName, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                   notifierAppearedTrampoline, notifierVanishedTrampoline,
                                                   box.retainedOpaque(), CallbackBox.destroyNotify)
        }
    }

    fileprivate func serverAppeared() {
        generation += 1
        entries = [:]
        tokens = [:]
        earlySignals = []
        status = .posting
        saidNoServer = false
        for device in desired.keys { sync(device) }
    }

    fileprivate func serverVanished() {
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

    fileprivate func signal(_ member: String, _ parameters: Variant?) {
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
        guard hasServer, let connection else { return }
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

/// The arguments of one call, turned into a GVariant only when the call is made.
struct NotifyParameters: Sendable {
    var replacesID: UInt32 = 0
    var summary = ""
    var body = ""
    var actions: [String] = []
    var closing: UInt32?

    init(replacesID: UInt32, summary: String, body: String, actions: [String]) {
        self.replacesID = replacesID
        self.summary = summary
        self.body = body
        self.actions = actions
    }

    init(closing id: UInt32) { closing = id }

    /// A new floating GVariant: `(u)` for CloseNotification, `(susssasa{sv}i)` for Notify.
    func makeGVariant() -> OpaquePointer {
        if let closing {
            var child: OpaquePointer? = g_variant_new_uint32(closing)
            return g_variant_new_tuple(&child, 1)
        }
        let strings = actions.map { strdup($0) }
        defer { strings.forEach { free($0) } }
        let actionsVariant = strings.map { UnsafePointer($0) }.withUnsafeBufferPointer {
            g_variant_new_strv($0.baseAddress, gssize($0.count))
        }
        let hints = "{sv}".withCString { g_variant_new_array(baton_variant_type($0), nil, 0) }
        var children: [OpaquePointer?] = [g_variant_new_string("Baton"), g_variant_new_uint32(replacesID), g_variant_new_string(""),
                                          g_variant_new_string(summary), g_variant_new_string(body), actionsVariant, hints,
                                          g_variant_new_int32(-1)]
        return g_variant_new_tuple(&children, gsize(children.count))
    }
}

/// A bus connection owned from Swift: made for an address (a message bus), closed once.
final class BusConnection: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { g_object_unref(UnsafeMutableRawPointer(pointer)) }

    /// Connects to the message bus at `address` (on the app's loop).
    @MainActor
    static func open(_ address: String) async throws -> BusConnection {
        try await GIOAsync.call { cancellable, callback, userData in
            g_dbus_connection_new_for_address(address, GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                                                                              | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue),
                                              nil, cancellable, callback, userData)
        } finish: { result, error in
            g_dbus_connection_new_for_address_finish(result, error).map(BusConnection.init)
        }
    }

    /// Calls `method` of the notification server; the reply read as a `Variant`, or why not.
    @MainActor
    func call(_ method: String, _ parameters: NotifyParameters?, replyType: String, timeout: Duration) async -> Result<Variant, GLibError> {
        let milliseconds = gint(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        do {
            return .success(try await GIOAsync.call { cancellable, callback, userData in
                replyType.withCString { type in
                    g_dbus_connection_call(pointer, ContinueNotifier.busName, ContinueNotifier.objectPath, ContinueNotifier.interfaceName,
                                           method, parameters?.makeGVariant(), baton_variant_type(type), G_DBUS_CALL_FLAGS_NONE,
                                           milliseconds, cancellable, callback, userData)
                }
            } finish: { result, error in
                guard let reply = g_dbus_connection_call_finish(self.pointer, result, error) else { return nil }
                defer { g_variant_unref(reply) }
                return try? Variant(reading: reply)
            })
        } catch let error as GLibError {
            return .failure(error)
        } catch {
            return .failure(GLibError(domain: "baton", code: 0, message: "\(error)"))
        }
    }

    /// Closes the connection once what was queued is written.
    func close() {
        g_dbus_connection_close(pointer, nil, nil, nil)
    }
}

/// The notifier behind the bus's callbacks, held weakly (the notifier owns the subscriptions).
private final class NotifierBox: CallbackBox, @unchecked Sendable {
    weak var notifier: ContinueNotifier?
    init(_ notifier: ContinueNotifier) { self.notifier = notifier }
}

private let notifierSignalTrampoline: GDBusSignalCallback = { _, _, _, _, member, parameters, userData in
    guard let userData, let member else { return }
    MainThreadRules.requireLoopThread("a notification server's signal")
    let box = NotifierBox.borrow(userData)
    let name = String(cString: member)
    let value = parameters.flatMap { try? Variant(reading: $0) }
    MainActor.assumeIsolated { box.notifier?.signal(name, value) }
}

private let notifierAppearedTrampoline: GBusNameAppearedCallback = { _, _, _, userData in
    guard let userData else { return }
    MainThreadRules.requireLoopThread("a bus name's owner")
    let box = NotifierBox.borrow(userData)
    MainActor.assumeIsolated { box.notifier?.serverAppeared() }
}

private let notifierVanishedTrampoline: GBusNameVanishedCallback = { _, _, userData in
    guard let userData else { return }
    MainThreadRules.requireLoopThread("a bus name's owner")
    let box = NotifierBox.borrow(userData)
    MainActor.assumeIsolated { box.notifier?.serverVanished() }
}
