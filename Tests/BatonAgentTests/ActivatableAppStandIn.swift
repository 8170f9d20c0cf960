import BatonLoop
import CGLib
import Foundation
import XCTest

/// The test's own stand-in for a D-Bus activatable app (`DBusActivatable=true`): on the bus at
/// `address` it owns the app's id as a bus name and exports `org.freedesktop.Application` at
/// the path the Desktop Entry Specification derives from it, recording each call's method and
/// platform data.
@MainActor
final class ActivatableAppStandIn {
    struct Call: Equatable {
        var method: String
        /// The platform data's string values (`desktop-startup-id`, `activation-token`, …).
        var platformData: [String: String]
    }

    private(set) var calls: [Call] = []
    nonisolated(unsafe) private let connection: OpaquePointer
    private var registration: guint = 0
    nonisolated(unsafe) private let vtable = UnsafeMutablePointer<GDBusInterfaceVTable>.allocate(capacity: 1)

    private static let xml = """
        <node><interface name="org.freedesktop.Application">
          <method name="Activate"><arg type="a{sv}" direction="in"/></method>
          <method name="Open"><arg type="as" direction="in"/><arg type="a{sv}" direction="in"/></method>
          <method name="ActivateAction"><arg type="s" direction="in"/><arg type="av" direction="in"/>
            <arg type="a{sv}" direction="in"/></method>
        </interface></node>
        """

    init(appID: String, address: String) throws {
        connection = try NotificationServerStandIn.connect(address)
        var error: UnsafeMutablePointer<GError>?
        guard let node = g_dbus_node_info_new_for_xml(Self.xml, &error) else { throw GLibError(consuming: error!) }
        defer { g_dbus_node_info_unref(node) }
        vtable.initialize(to: GDBusInterfaceVTable())
        vtable.pointee.method_call = activatableMethodCall
        let retained = Unmanaged.passRetained(ActivatableBox(self)).toOpaque()
        let path = "/" + appID.replacingOccurrences(of: ".", with: "/").replacingOccurrences(of: "-", with: "_")
        registration = MainLoop.withThreadDefaultContext {
            g_dbus_connection_register_object(connection, path, node.pointee.interfaces[0], vtable,
                                              retained, { Unmanaged<ActivatableBox>.fromOpaque($0!).release() }, &error)
        }
        guard registration != 0 else { throw GLibError(consuming: error!) }
        guard let reply = g_dbus_connection_call_sync(connection, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                                                      "RequestName", g_variant_new_tuple([g_variant_new_string(appID), g_variant_new_uint32(4)], 2),
                                                      nil, G_DBUS_CALL_FLAGS_NONE, 5000, nil, &error) else { throw GLibError(consuming: error!) }
        g_variant_unref(reply)
    }

    func close() {
        if registration != 0 { g_dbus_connection_unregister_object(connection, registration) }
        registration = 0
        g_dbus_connection_close_sync(connection, nil, nil)
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(connection))
        vtable.deallocate()
    }

    fileprivate func handle(_ method: String, _ parameters: OpaquePointer, _ invocation: OpaquePointer) {
        let count = g_variant_n_children(parameters)
        let dictionary = g_variant_get_child_value(parameters, count - 1)!
        defer { g_variant_unref(dictionary) }
        var platformData: [String: String] = [:]
        for index in 0..<g_variant_n_children(dictionary) {
            let entry = g_variant_get_child_value(dictionary, index)!
            let key = g_variant_get_child_value(entry, 0)!, boxed = g_variant_get_child_value(entry, 1)!
            let value = g_variant_get_variant(boxed)!
            if g_variant_is_of_type(value, baton_variant_type("s")) != 0 {
                platformData[String(cString: g_variant_get_string(key, nil))] = String(cString: g_variant_get_string(value, nil))
            }
            [value, boxed, key, entry].forEach { g_variant_unref($0) }
        }
        calls.append(Call(method: method, platformData: platformData))
        g_dbus_method_invocation_return_value(invocation, nil)
    }
}

private final class ActivatableBox: @unchecked Sendable {
    weak var app: ActivatableAppStandIn?
    init(_ app: ActivatableAppStandIn) { self.app = app }
}

private let activatableMethodCall: GDBusInterfaceMethodCallFunc = { _, _, _, _, method, parameters, invocation, userData in
    let box = Unmanaged<ActivatableBox>.fromOpaque(userData!).takeUnretainedValue()
    let name = String(cString: method!)
    nonisolated(unsafe) let parameters = parameters!, invocation = invocation!
    MainActor.assumeIsolated { box.app?.handle(name, parameters, invocation) }
}
