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

extension PeerBus {
    /// Calls `method` of `interface` at `path` with `arguments`; GDBus checks the reply is of
    /// `replyType` and fails the call after `timeout`. Throws `GLibError` (a remote error
    /// carries its name).
    @MainActor
    func call(_ path: String, _ interface: String, _ method: String, _ arguments: [Variant], replyType: String,
              timeout: Duration) async throws -> [Variant] {
        let connection = SendableHandle(self.connection)
        let parameters = SendableHandle(g_variant_ref_sink(try Variant.tuple(arguments).makeGVariant())!)
        defer { g_variant_unref(parameters.pointer) }
        let milliseconds = gint(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let reply: Variant? = try await GIOAsync.call { cancellable, callback, userData in
            replyType.withCString { type in
                g_dbus_connection_call(connection.pointer, nil, path, interface, method, parameters.pointer,
                                       baton_variant_type(type), G_DBUS_CALL_FLAGS_NONE, milliseconds, cancellable, callback, userData)
            }
        } finish: { result, error in
            guard let reply = g_dbus_connection_call_finish(connection.pointer, result, error) else { return nil }
            defer { g_variant_unref(reply) }
            return .some(try? Variant(reading: reply))
        }
        guard case .tuple(let items)? = reply else {
            throw GLibError(domain: "baton", code: 0, message: "the reply to \(method) cannot be read")
        }
        return items
    }

    /// Calls `method` without asking for a reply (`G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED`):
    /// the message is queued now, so it reaches the other side before any call made after
    /// this returns, and in the order of these calls.
    func send(_ path: String, _ interface: String, _ method: String, _ arguments: [Variant]) throws {
        let message = g_dbus_message_new_method_call(nil, path, interface, method)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, try Variant.tuple(arguments).makeGVariant())
        g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
        var error: UnsafeMutablePointer<GError>?
        guard g_dbus_connection_send_message(connection, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, &error) != 0 else {
            throw GLibError(consuming: error!)
        }
    }

    /// Emits `member` of `interface` at `path`.
    func emit(_ path: String, _ interface: String, _ member: String, _ arguments: [Variant]) {
        guard let made = try? Variant.tuple(arguments).makeGVariant() else { return }
        g_dbus_connection_emit_signal(connection, nil, path, interface, member, made, nil)
    }

    /// Calls `body` with the arguments of each `member` signal the other side emits, until
    /// the bus goes; returns the subscription (`unsubscribe` it, or it ends with the bus's
    /// connection).
    @MainActor
    func subscribe(_ path: String, _ interface: String, _ member: String,
                   _ body: @escaping @MainActor ([Variant]) -> Void) -> guint {
        let box = SignalHandler(body)
        return MainLoop.withThreadDefaultContext {
            g_dbus_connection_signal_subscribe(connection, nil, interface, member, path, nil, G_DBUS_SIGNAL_FLAGS_NONE,
                                               agentSignalTrampoline, box.retainedOpaque(), CallbackBox.destroyNotify)
        }
    }

    func unsubscribe(_ id: guint) { g_dbus_connection_signal_unsubscribe(connection, id) }
}

/// A main-actor closure behind a D-Bus signal.
final class SignalHandler: CallbackBox, @unchecked Sendable {
    let body: @MainActor ([Variant]) -> Void
    init(_ body: @escaping @MainActor ([Variant]) -> Void) { self.body = body }
}

private let agentSignalTrampoline: GDBusSignalCallback = { _, _, _, _, _, parameters, userData in
    guard let userData else { return }
    MainThreadRules.requireLoopThread("a D-Bus signal")
    let box = SignalHandler.borrow(userData)
    guard let parameters, case .tuple(let items)? = try? Variant(reading: parameters) else { return }
    MainActor.assumeIsolated { box.body(items) }
}

extension CocoaError {
    /// A Handoff failure with `message`.
    static func handoff(_ code: CocoaError.Code, _ message: String) -> CocoaError {
        CocoaError(code, userInfo: [NSLocalizedDescriptionKey: message])
    }
}
