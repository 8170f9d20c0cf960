import BatonContinuity
import BatonLoop
import CGLib
import Foundation

/// One incoming method call; answered exactly once (`reply` or `fail`). A call dropped
/// unanswered is answered with an error when it goes, so the caller never waits for nothing.
@MainActor
final class MethodCall {
    let method: String
    let arguments: [Variant]
    private var invocation: OpaquePointer?

    init(method: String, arguments: [Variant], invocation: OpaquePointer) {
        self.method = method
        self.arguments = arguments
        self.invocation = invocation
    }

    isolated deinit {
        if let invocation { g_dbus_method_invocation_return_dbus_error(invocation, AgentInterface.ErrorName.handoffFailed, "not answered") }
    }

    func reply(_ values: [Variant]) {
        guard let invocation else { return }
        self.invocation = nil
        guard let made = try? Variant.tuple(values).makeGVariant() else {
            return g_dbus_method_invocation_return_dbus_error(invocation, AgentInterface.ErrorName.handoffFailed, "the reply could not be encoded")
        }
        g_dbus_method_invocation_return_value(invocation, made)
    }

    func fail(_ name: String, _ message: String) {
        guard let invocation else { return }
        self.invocation = nil
        g_dbus_method_invocation_return_dbus_error(invocation, name, message)
    }
}

/// An object exported on a bus: its calls go to `handler` on the loop.
final class ExportedObject: CallbackBox, @unchecked Sendable {
    let handler: @MainActor (MethodCall) -> Void
    init(_ handler: @escaping @MainActor (MethodCall) -> Void) { self.handler = handler }

    /// Exports `info` at `path` on `bus`; GDBus delivers the calls through the thread-default
    /// context at registration (the loop) and releases the box when the bus goes.
    @MainActor
    static func export(on bus: PeerBus, path: String, info: UnsafeMutablePointer<GDBusInterfaceInfo>,
                       _ handler: @escaping @MainActor (MethodCall) -> Void) throws {
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = exportedMethodCall
        var error: UnsafeMutablePointer<GError>?
        let box = ExportedObject(handler)
        let id = MainLoop.withThreadDefaultContext {
            g_dbus_connection_register_object(bus.connection, path, info, &vtable, box.retainedOpaque(), CallbackBox.destroyNotify, &error)
        }
        guard id != 0 else { throw GLibError(consuming: error!) }
    }
}

private let exportedMethodCall: GDBusInterfaceMethodCallFunc = { _, _, _, _, method, parameters, invocation, userData in
    guard let method, let parameters, let invocation, let userData else { return }
    MainThreadRules.requireLoopThread("a D-Bus method call")
    let box = ExportedObject.borrow(userData)
    let name = String(cString: method)
    let call = SendableHandle(invocation)
    guard case .tuple(let arguments)? = try? Variant(reading: parameters) else {
        return g_dbus_method_invocation_return_dbus_error(call.pointer, AgentInterface.ErrorName.refused, "the arguments cannot be read")
    }
    MainActor.assumeIsolated { box.handler(MethodCall(method: name, arguments: arguments, invocation: call.pointer)) }
}

/// An opaque GLib pointer that may cross into a `@Sendable` closure.
struct SendableHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
