import BatonLoop
import CGLib
import Foundation
import XCTest

/// The test's own stand-in for a desktop's notification server (not a real one: the tests run
/// on a private session bus with no desktop). It owns `org.freedesktop.Notifications` on the bus
/// at `address`, records `Notify` and `CloseNotification`, honours `replaces_id` (the same id
/// comes back), emits `NotificationClosed(id, 3)` for a close, and "clicks" by emitting
/// `ActivationToken` then `ActionInvoked` from the connection that owns the name, as a server does.
@MainActor
final class NotificationServerStandIn {
    struct Notification: Equatable {
        var id: UInt32
        var replacesID: UInt32
        var summary: String
        var body: String
        var actions: [String]
    }

    private(set) var notifications: [Notification] = []
    /// When set, each `Notify` is "clicked" at once: `ActivationToken` (if a token is given) and
    /// `ActionInvoked` are emitted before the reply, as a quick person or a server that shows
    /// and activates in one step may do.
    var clickOnNotify: (action: String, token: String?)?
    private(set) var closed: [UInt32] = []
    /// When set, each `Notify` is recorded (the notification is shown) but its reply waits for
    /// `releaseNotifyReplies()`, as from a server slow to answer.
    var holdNotifyReplies = false
    /// The `Notify` invocations held, each with the id its reply will carry.
    private var heldReplies: [(invocation: OpaquePointer, id: UInt32)] = []
    private var nextID: UInt32 = 1
    nonisolated(unsafe) private let connection: OpaquePointer
    private var registration: guint = 0
    nonisolated(unsafe) private let vtable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)
    private var box: UnsafeMutableRawPointer?

    private static let xml = """
        <node><interface name="org.freedesktop.Notifications">
          <method name="Notify"><arg type="s" direction="in"/><arg type="u" direction="in"/><arg type="s" direction="in"/>
            <arg type="s" direction="in"/><arg type="s" direction="in"/><arg type="as" direction="in"/>
            <arg type="a{sv}" direction="in"/><arg type="i" direction="in"/><arg type="u" direction="out"/></method>
          <method name="CloseNotification"><arg type="u" direction="in"/></method>
          <method name="GetCapabilities"><arg type="as" direction="out"/></method>
          <method name="GetServerInformation"><arg type="s" direction="out"/><arg type="s" direction="out"/>
            <arg type="s" direction="out"/><arg type="s" direction="out"/></method>
          <signal name="NotificationClosed"><arg type="u"/><arg type="u"/></signal>
          <signal name="ActionInvoked"><arg type="u"/><arg type="s"/></signal>
          <signal name="ActivationToken"><arg type="u"/><arg type="s"/></signal>
        </interface></node>
        """

    /// Connects to the bus at `address`, exports the interface and takes the name (it must get it).
    init(address: String) throws {
        connection = try Self.connect(address)
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(Self.xml, &error) else { throw GLibError(consuming: error!) }
        defer { g_dbus_node_info_unref(node) }
        vtable.initialize(to: GDBusInterfaceVTable())
        vtable.pointee.method_call = standInMethodCall
        let retained = Unmanaged.passRetained(StandInBox(self)).toOpaque()
        box = retained
        registration = MainLoop.withThreadDefaultContext {
            g_dbus_connection_register_object(connection, "/org/freedesktop/Notifications", node.pointee.interfaces[0], vtable,
                                              retained, { Unmanaged<StandInBox>.fromOpaque($0!).release() }, &error)
        }
        guard registration != 0 else { throw GLibError(consuming: error!) }
        let reply = try call(connection, "RequestName", g_variant_new_tuple([g_variant_new_string("org.freedesktop.Notifications"),
                                                                             g_variant_new_uint32(4)], 2))
        let owner = g_variant_get_child_value(reply, 0)!
        XCTAssertEqual(g_variant_get_uint32(owner), 1, "the stand-in owns the name")
        g_variant_unref(owner)
        g_variant_unref(reply)
    }

    /// A plain client connection to the bus at `address` (the thread-default context is the app's loop).
    static func connect(_ address: String) throws -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                                         | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION.rawValue)
        guard let connection = MainLoop.withThreadDefaultContext({
            g_dbus_connection_new_for_address_sync(address, flags, nil, nil, &error)
        }) else { throw GLibError(consuming: error!) }
        return connection
    }

    private func call(_ connection: OpaquePointer, _ method: String, _ parameters: OpaquePointer) throws -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        guard let reply = g_dbus_connection_call_sync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                      method, parameters, nil, G_DBUS_CALL_FLAGS_NONE, 5000, nil, &error) else {
            throw GLibError(consuming: error!)
        }
        return reply
    }

    /// Emits `member(id, text)` from `sender` (default: the connection that owns the name).
    func emit(_ member: String, _ id: UInt32, _ text: String, from sender: OpaquePointer? = nil) {
        g_dbus_connection_emit_signal(sender ?? connection, nil, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                                      member, g_variant_new_tuple([g_variant_new_uint32(id), g_variant_new_string(text)], 2), nil)
        g_dbus_connection_flush_sync(sender ?? connection, nil, nil)
    }

    /// Says notification `id` was dismissed by the person (`NotificationClosed(id, 2)`).
    func dismiss(_ id: UInt32) {
        g_dbus_connection_emit_signal(connection, nil, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                                      "NotificationClosed", g_variant_new_tuple([g_variant_new_uint32(id), g_variant_new_uint32(2)], 2), nil)
    }

    /// Clicks `action` of notification `id`, sending `token` first if given.
    func click(_ id: UInt32, action: String = "continue", token: String? = nil) {
        if let token { emit("ActivationToken", id, token) }
        emit("ActionInvoked", id, action)
    }

    /// Sends the `Notify` replies held (`holdNotifyReplies`), in order.
    func releaseNotifyReplies() {
        let held = heldReplies
        heldReplies = []
        for (invocation, id) in held {
            g_dbus_method_invocation_return_value(invocation, g_variant_new_tuple([g_variant_new_uint32(id)], 1))
        }
    }

    /// Leaves the bus (as a server that exits): the name goes.
    func close() {
        releaseNotifyReplies()
        if registration != 0 { g_dbus_connection_unregister_object(connection, registration) }
        registration = 0
        g_dbus_connection_close_sync(connection, nil, nil)
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(connection))
        vtable.deallocate()
    }

    fileprivate func handle(_ method: String, _ parameters: OpaquePointer, _ invocation: OpaquePointer) {
        func string(_ index: Int) -> String {
            let child = g_variant_get_child_value(parameters, gsize(index))!
            defer { g_variant_unref(child) }
            return String(cString: g_variant_get_string(child, nil))
        }
        func uint32(_ index: Int) -> UInt32 {
            let child = g_variant_get_child_value(parameters, gsize(index))!
            defer { g_variant_unref(child) }
            return g_variant_get_uint32(child)
        }
        switch method {
        case "Notify":
            let replaces = uint32(1)
            let id: UInt32
            if replaces != 0 { id = replaces } else { id = nextID; nextID += 1 }
            let actionsVariant = g_variant_get_child_value(parameters, 5)!
            var count: gsize = 0
            let strv = g_variant_get_strv(actionsVariant, &count)!
            let actions = (0..<Int(count)).map { String(cString: strv[$0]!) }
            g_free(strv)
            g_variant_unref(actionsVariant)
            notifications.append(Notification(id: id, replacesID: replaces, summary: string(3), body: string(4), actions: actions))
            if let (action, token) = clickOnNotify { click(id, action: action, token: token) }
            if holdNotifyReplies { return heldReplies.append((invocation, id)) }
            g_dbus_method_invocation_return_value(invocation, g_variant_new_tuple([g_variant_new_uint32(id)], 1))
        case "CloseNotification":
            let id = uint32(0)
            closed.append(id)
            g_dbus_method_invocation_return_value(invocation, nil)
            g_dbus_connection_emit_signal(connection, nil, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                                          "NotificationClosed", g_variant_new_tuple([g_variant_new_uint32(id), g_variant_new_uint32(3)], 2), nil)
        default:
            g_dbus_method_invocation_return_value(invocation, nil)
        }
    }
}

private final class StandInBox: @unchecked Sendable {
    weak var server: NotificationServerStandIn?
    init(_ server: NotificationServerStandIn) { self.server = server }
}

private let standInMethodCall: GDBusInterfaceMethodCallFunc = { _, _, _, _, method, parameters, invocation, userData in
    let box = Unmanaged<StandInBox>.fromOpaque(userData!).takeUnretainedValue()
    let name = String(cString: method!)
    nonisolated(unsafe) let parameters = parameters!, invocation = invocation!
    MainActor.assumeIsolated { box.server?.handle(name, parameters, invocation) }
}
