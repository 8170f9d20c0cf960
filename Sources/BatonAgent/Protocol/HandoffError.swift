import BatonContinuity
import BatonLoop
import CGLib
import Foundation

/// Calls, signals and replies on an app's connection to the agent (either side).
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
