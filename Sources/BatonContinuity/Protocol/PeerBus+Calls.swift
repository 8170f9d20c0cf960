import BatonLoop
import CGLib
import Foundation

/// Calling a peer's `org.baton.Device1`, and hearing from it.
extension PeerBus {
    /// Calls `method` with `parameters` (a tuple); GDBus checks the reply is of `replyType`.
    /// Throws `GLibError` when the call fails (a remote D-Bus error carries its name in
    /// `remoteDBusErrorName`) and `PeerProtocolError.malformed` when the reply cannot be read.
    @MainActor
    func call(_ method: String, _ parameters: Variant, replyType: String,
              timeout: Duration = .seconds(10)) async throws -> Variant {
        let connection = SendableOpaque(self.connection)
        let arguments = SendableOpaque(g_variant_ref_sink(try parameters.makeGVariant())!)
        defer { g_variant_unref(arguments.pointer) }
        let milliseconds = gint(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let reply: Result<Variant, PeerProtocolError> = try await GIOAsync.call { cancellable, callback, userData in
            replyType.withCString { type in
                g_dbus_connection_call(connection.pointer, nil, DeviceInterface.path, DeviceInterface.name, method,
                                       arguments.pointer, baton_variant_type(type), G_DBUS_CALL_FLAGS_NONE, milliseconds,
                                       cancellable, callback, userData)
            }
        } finish: { result, error in
            guard let reply = g_dbus_connection_call_finish(connection.pointer, result, error) else { return nil }
            defer { g_variant_unref(reply) }
            do { return .success(try Variant(reading: reply)) } catch {
                return .failure(.malformed("the reply to \(method) cannot be read: \(error)"))
            }
        }
        return try reply.get()
    }

    /// Calls `method` with `parameters` without asking for a reply
    /// (`G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED`: the peer runs it and sends nothing back). The
    /// message is queued now, so it reaches the peer before any call made after this returns.
    func callWithoutReply(_ method: String, _ parameters: Variant) throws {
        let message = g_dbus_message_new_method_call(nil, DeviceInterface.path, DeviceInterface.name, method)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, try parameters.makeGVariant())
        g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
        var error: UnsafeMutablePointer<GError>?
        guard g_dbus_connection_send_message(connection, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, &error) != 0 else {
            throw GLibError(consuming: error!)
        }
    }

    /// Emits `CurrentChanged(metadata)` to the peer.
    func emitCurrentChanged(_ metadata: Variant) {
        guard let arguments = try? Variant.tuple([metadata]).makeGVariant() else { return }
        g_dbus_connection_emit_signal(connection, nil, DeviceInterface.path, DeviceInterface.name, "CurrentChanged", arguments, nil)
    }

    /// Calls `body` with the metadata of each `CurrentChanged` the peer emits, until the bus
    /// goes; a signal of the wrong type calls `malformed` instead. GDBus delivers the signals
    /// through the thread-default context at subscription: the app's loop.
    @MainActor
    func onCurrentChanged(_ body: @escaping @MainActor (Variant) -> Void, malformed: @escaping @MainActor () -> Void) {
        subscribe(to: "CurrentChanged", SignalBox { parameters in
            guard case .tuple(let items)? = parameters, items.count == 1, case .dictionary = items[0] else { return malformed() }
            body(items[0])
        })
    }

    /// Emits `RevocationsChanged(list)` to the peer: a newer signed revocation list, passed on.
    func emitRevocationsChanged(_ list: Data) {
        guard let arguments = try? Variant.tuple([.bytes(list)]).makeGVariant() else { return }
        g_dbus_connection_emit_signal(connection, nil, DeviceInterface.path, DeviceInterface.name, "RevocationsChanged", arguments, nil)
    }

    /// Calls `body` with the list of each `RevocationsChanged` the peer emits (the receiver
    /// checks its signature); a signal of the wrong type calls `malformed` instead.
    @MainActor
    func onRevocationsChanged(_ body: @escaping @MainActor (Data) -> Void, malformed: @escaping @MainActor () -> Void) {
        subscribe(to: "RevocationsChanged", SignalBox { parameters in
            guard case .tuple(let items)? = parameters, items.count == 1, case .bytes(let list) = items[0] else { return malformed() }
            body(list)
        })
    }

    /// Subscribes `box` to the peer's signal `member` of org.baton.Device1 until the bus goes.
    /// GDBus delivers the signals through the thread-default context at subscription: the app's loop.
    @MainActor
    private func subscribe(to member: String, _ box: SignalBox) {
        let id = MainLoop.withThreadDefaultContext {
            g_dbus_connection_signal_subscribe(connection, nil, DeviceInterface.name, member, DeviceInterface.path,
                                               nil, G_DBUS_SIGNAL_FLAGS_NONE, signalTrampoline, box.retainedOpaque(), CallbackBox.destroyNotify)
        }
        subscriptions.append(id)
    }

    /// Calls `body` once when the link closes (the peer hung up, the network failed, or `close`),
    /// through the context the connection was made on (`open`): the app's loop.
    @MainActor
    public func onClosed(_ body: @escaping @MainActor () -> Void) {
        let box = SignalBox { _ in body() }
        g_signal_connect_data(UnsafeMutableRawPointer(connection), "closed", unsafeBitCast(closedTrampoline, to: GCallback.self),
                              box.retainedOpaque(), CallbackBox.closureNotify, GConnectFlags(0))
    }
}

/// A main-actor closure behind a GDBus signal.
final class SignalBox: CallbackBox, @unchecked Sendable {
    let body: @MainActor (Variant?) -> Void
    init(_ body: @escaping @MainActor (Variant?) -> Void) { self.body = body }
}

private let signalTrampoline: GDBusSignalCallback = { _, _, _, _, _, parameters, userData in
    guard let userData else { return }
    MainThreadRules.requireLoopThread("a D-Bus signal")
    let box = SignalBox.borrow(userData)
    let value = parameters.flatMap { try? Variant(reading: $0) }
    MainActor.assumeIsolated { box.body(value) }
}

/// `void closed(GDBusConnection *, gboolean remote_peer_vanished, GError *, gpointer)`.
private let closedTrampoline: @convention(c) (OpaquePointer?, gboolean, UnsafeMutablePointer<GError>?, UnsafeMutableRawPointer?) -> Void = {
    _, _, _, userData in
    guard let userData else { return }
    MainThreadRules.requireLoopThread("a D-Bus connection's closed signal")
    let box = SignalBox.borrow(userData)
    MainActor.assumeIsolated { box.body(nil) }
}
