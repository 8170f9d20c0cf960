import Baton
import BatonLoop
import CGLib
import Foundation

/// The agent's line to the desktop's notification server (org.freedesktop.Notifications,
/// Desktop Notifications Specification 1.2), shared by its notifiers (`ContinueNotifier`,
/// `PairingNotifier`): connects to the message bus at an address (bounded by `callTimeout`),
/// watches the server's name, and subscribes to the server's signals, taken only from the
/// name's owner. Each happening is handed to `onEvent` on the loop. `stop` unsubscribes,
/// withdraws the notifications it is given (each call bounded) and closes the connection.
@MainActor
final class NotificationServerLink {
    /// What the link saw.
    enum Event {
        /// Connected to the bus (no server known yet).
        case connected
        /// The bus could not be reached (`reason`); the link is dead.
        case unreachable(String)
        /// A server owns the name now (a new owner: ids of the old one are gone).
        case appeared
        /// No server owns the name.
        case vanished
        /// A signal of the server: its member and arguments.
        case signal(String, Variant?)
    }

    /// The connection, once made (nil before and after).
    private(set) var connection: BusConnection?
    private let address: String
    private let callTimeout: Duration
    private let onEvent: @MainActor (Event) -> Void
    private var connecting: Task<Void, Never>?
    private var watch: guint = 0
    private var subscription: guint = 0
    private var running = false

    /// A link to the bus at `address`; nothing happens before `start()`.
    init(address: String, callTimeout: Duration, onEvent: @escaping @MainActor (Event) -> Void) {
        self.address = address
        self.callTimeout = callTimeout
        self.onEvent = onEvent
    }

    /// Connects (asynchronously) and then watches the server.
    func start() {
        guard !running else { return }
        running = true
        let address = address, timeout = callTimeout
        connecting = Task { [weak self] in
            let attempt = Task { try await BusConnection.open(address) }
            let deadline = MainLoop.after(timeout) { attempt.cancel() }
            defer { deadline.cancel() }
            do {
                let opened = try await attempt.loopValue()
                guard let self, self.running else { return opened.close() }
                self.attach(opened)
            } catch {
                self?.onEvent(.unreachable(error is CancellationError ? "no answer in \(timeout)" : "\(error)"))
            }
        }
    }

    /// Stops watching, closes the notifications `ids` (each call bounded), then the connection.
    func stop(withdrawing ids: [UInt32] = []) {
        guard running else { return }
        running = false
        connecting?.cancel()
        connecting = nil
        if let connection {
            if subscription != 0 { g_dbus_connection_signal_unsubscribe(connection.pointer, subscription) }
            if watch != 0 { g_bus_unwatch_name(watch) }
            let timeout = callTimeout
            Task {
                for id in ids {
                    _ = await connection.call("CloseNotification", NotifyParameters(closing: id), replyType: "()", timeout: timeout)
                }
                connection.close()
            }
        }
        subscription = 0
        watch = 0
        connection = nil
    }

    private func attach(_ opened: BusConnection) {
        connection = opened
        onEvent(.connected)
        let box = LinkBox(self)
        MainLoop.withThreadDefaultContext {
            subscription = g_dbus_connection_signal_subscribe(
                opened.pointer, ContinueNotifier.busName, ContinueNotifier.interfaceName, nil, ContinueNotifier.objectPath, nil,
                G_DBUS_SIGNAL_FLAGS_NONE, linkSignalTrampoline, box.retainedOpaque(), CallbackBox.destroyNotify)
            watch = g_bus_watch_name_on_connection(opened.pointer, ContinueNotifier.busName, G_BUS_NAME_WATCHER_FLAGS_NONE,
                                                   linkAppearedTrampoline, linkVanishedTrampoline,
                                                   box.retainedOpaque(), CallbackBox.destroyNotify)
        }
    }

    fileprivate func deliver(_ event: Event) {
        guard running else { return }
        onEvent(event)
    }
}

/// The arguments of one call, turned into a GVariant only when the call is made.
struct NotifyParameters: Sendable {
    var replacesID: UInt32 = 0
    var summary = ""
    var body = ""
    var actions: [String] = []
    /// The `urgency` hint (0 low, 1 normal, 2 critical: kept until answered), if any.
    var urgency: UInt8?
    /// Milliseconds before the server may expire it; -1 the server's choice, 0 never.
    var expireTimeout: Int32 = -1
    var closing: UInt32?

    init(replacesID: UInt32, summary: String, body: String, actions: [String], urgency: UInt8? = nil, expireTimeout: Int32 = -1) {
        self.replacesID = replacesID
        self.summary = summary
        self.body = body
        self.actions = actions
        self.urgency = urgency
        self.expireTimeout = expireTimeout
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
        var entries: [OpaquePointer?] = []
        if let urgency {
            entries.append(g_variant_new_dict_entry(g_variant_new_string("urgency"), g_variant_new_variant(g_variant_new_byte(urgency))))
        }
        let hints = "{sv}".withCString { type in
            entries.withUnsafeMutableBufferPointer { g_variant_new_array(baton_variant_type(type), $0.baseAddress, gsize($0.count)) }
        }
        var children: [OpaquePointer?] = [g_variant_new_string("Baton"), g_variant_new_uint32(replacesID), g_variant_new_string(""),
                                          g_variant_new_string(summary), g_variant_new_string(body), actionsVariant, hints,
                                          g_variant_new_int32(expireTimeout)]
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

/// The link behind the bus's callbacks, held weakly (the link owns the subscriptions).
private final class LinkBox: CallbackBox, @unchecked Sendable {
    weak var link: NotificationServerLink?
    init(_ link: NotificationServerLink) { self.link = link }
}

private let linkSignalTrampoline: GDBusSignalCallback = { _, _, _, _, member, parameters, userData in
    guard let userData, let member else { return }
    MainThreadRules.requireLoopThread("a notification server's signal")
    let box = LinkBox.borrow(userData)
    let name = String(cString: member)
    let value = parameters.flatMap { try? Variant(reading: $0) }
    MainActor.assumeIsolated { box.link?.deliver(.signal(name, value)) }
}

private let linkAppearedTrampoline: GBusNameAppearedCallback = { _, _, _, userData in
    guard let userData else { return }
    MainThreadRules.requireLoopThread("a bus name's owner")
    let box = LinkBox.borrow(userData)
    MainActor.assumeIsolated { box.link?.deliver(.appeared) }
}

private let linkVanishedTrampoline: GBusNameVanishedCallback = { _, _, userData in
    guard let userData else { return }
    MainThreadRules.requireLoopThread("a bus name's owner")
    let box = LinkBox.borrow(userData)
    MainActor.assumeIsolated { box.link?.deliver(.vanished) }
}
