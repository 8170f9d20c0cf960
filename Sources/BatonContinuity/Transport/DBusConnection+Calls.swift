import BatonLoop
import CGLib
import Foundation

/// What a connection serves and calls: objects exported on it, calls made with a deadline
/// (awaited, or started with a completion: pipelined), calls sent without a reply, signals
/// emitted and subscribed to. Messages of basic types are written by
/// `DBusBasicMessageWriter`, others by GLib's `GDBusMessage`.
extension DBusConnection {
    /// Serves `info` at `path`: each call of one of its methods whose arguments are of the
    /// declared types goes to `handler`; other calls are answered with D-Bus's standard errors.
    package func export(path: String, info: UnsafeMutablePointer<GDBusInterfaceInfo>, _ handler: @escaping @MainActor (MethodCall) -> Void) {
        var signatures: [String: String] = [:]
        var index = 0
        while let methods = info.pointee.methods, let method = methods[index] {
            signatures[String(cString: method.pointee.name)] = Self.signature(of: method.pointee.in_args)
            index += 1
        }
        objects[path] = ServedObject(info: info, interface: String(cString: info.pointee.name), signatures: signatures,
                                     handler: handler)
    }

    /// Calls `method` of `interface` at `path` with `arguments`; the reply must be of
    /// `replyType` (a tuple type). Fails after `timeout` with `G_IO_ERROR_TIMED_OUT`, when the
    /// connection closes with `G_IO_ERROR_CLOSED`, and with a remote error's name in
    /// `GLibError.remoteDBusErrorName`; a cancelled task fails it with `G_IO_ERROR_CANCELLED`.
    package func call(_ path: String, _ interface: String, _ method: String, _ arguments: [Variant], replyType: String,
                      timeout: Duration) async throws -> [Variant] {
        let serial = nextSerial()
        let cancel: @Sendable () -> Void = {
            Task { @MainActor [weak self] in self?.finish(serial, .failure(Self.ioError(G_IO_ERROR_CANCELLED, "Operation was cancelled"))) }
        }
        return try await withThrowingLoopContinuation(onCancel: cancel) { (continuation: CheckedContinuation<[Variant], any Error>) in
            do {
                try start(serial, path, interface, method, arguments, replyType: replyType, timeout: timeout) { continuation.resume(with: $0) }
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Starts a call of `method` of `interface` at `path` with `arguments` and returns at once:
    /// the call is written (or queued) before this returns, so what this side writes after it
    /// reaches the other side after it (a pipelined call). `completion` runs once on the loop:
    /// with the reply's values (of `replyType`) or the failure, as
    /// `call(_:_:_:_:replyType:timeout:)` fails. Throws, and never calls `completion`, when the
    /// connection is closed or the call cannot be encoded.
    package func start(_ path: String, _ interface: String, _ method: String, _ arguments: [Variant], replyType: String,
                       timeout: Duration, completion: @escaping @MainActor (Result<[Variant], GLibError>) -> Void) throws {
        try start(nextSerial(), path, interface, method, arguments, replyType: replyType, timeout: timeout, completion: completion)
    }

    private func start(_ serial: UInt32, _ path: String, _ interface: String, _ method: String, _ arguments: [Variant],
                       replyType: String, timeout: Duration,
                       completion: @escaping @MainActor (Result<[Variant], GLibError>) -> Void) throws {
        guard !isClosed else { throw Self.ioError(G_IO_ERROR_CLOSED, "The connection is closed") }
        // Arguments of basic types are written here (`DBusBasicMessageWriter`); others by GLib.
        let written = DBusBasicMessageWriter.methodCall(serial: serial, path: path, interface: interface, member: method,
                                                        arguments: arguments, noReplyExpected: false)
        let message = written == nil ? g_dbus_message_new_method_call(nil, path, interface, method)! : nil
        defer { if let message { g_object_unref(UnsafeMutableRawPointer(message)) } }
        if let message { g_dbus_message_set_body(message, try Variant.tuple(arguments).makeGVariant()) }
        let expiry = MainLoop.after(timeout) { [weak self] in
            self?.finish(serial, .failure(Self.ioError(G_IO_ERROR_TIMED_OUT, "Timeout was reached")))
        }
        pending[serial] = PendingCall(method: method, replyType: replyType, resume: completion, expiry: expiry)
        if let written { return written.withUnsafeBytes { writeRaw($0) } }
        guard let message, write(message, serial: serial) else {
            pending[serial] = nil
            expiry.cancel()
            throw Self.ioError(G_IO_ERROR_INVALID_ARGUMENT, "the call to \(method) could not be encoded")
        }
    }

    /// Calls `method` without asking for a reply (`G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED`): it
    /// is written (or queued) now, so it reaches the other side before any call made after
    /// this returns, and in the order of these calls.
    package func send(_ path: String, _ interface: String, _ method: String, _ arguments: [Variant]) throws {
        guard !isClosed else { throw Self.ioError(G_IO_ERROR_CLOSED, "The connection is closed") }
        let serial = nextSerial()
        if let written = DBusBasicMessageWriter.methodCall(serial: serial, path: path, interface: interface, member: method,
                                                           arguments: arguments, noReplyExpected: true) {
            return written.withUnsafeBytes { writeRaw($0) }
        }
        let message = g_dbus_message_new_method_call(nil, path, interface, method)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, try Variant.tuple(arguments).makeGVariant())
        g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
        write(message, serial: serial)
    }

    /// Emits the signal `member` of `interface` at `path`.
    package func emit(_ path: String, _ interface: String, _ member: String, _ arguments: [Variant]) {
        guard !isClosed, let body = try? Variant.tuple(arguments).makeGVariant() else { return }
        let message = g_dbus_message_new_signal(path, interface, member)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, body)
        write(message, serial: nextSerial())
    }

    /// Calls `body` with the arguments of each `member` signal the other side emits, until
    /// `unsubscribe` or the end of the connection.
    @discardableResult
    package func subscribe(_ path: String, _ interface: String, _ member: String, _ body: @escaping @MainActor ([Variant]) -> Void) -> UInt32 {
        lastSubscription &+= 1
        subscriptions[lastSubscription] = Subscription(path: path, interface: interface, member: member, body: body)
        return lastSubscription
    }

    package func unsubscribe(_ id: UInt32) { subscriptions[id] = nil }

    func finish(_ serial: UInt32, _ result: Result<[Variant], GLibError>) {
        guard let call = pending.removeValue(forKey: serial) else { return }
        call.expiry.cancel()
        call.resume(result)
    }
}
