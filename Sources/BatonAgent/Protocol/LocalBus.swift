import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import Logging

/// D-Bus peer-to-peer between an app and its agent on a connected Unix socket, read and
/// written on the app's loop thread.
///
/// It speaks the D-Bus wire protocol (SASL authentication, then messages that GDBus encodes and
/// decodes: `g_dbus_message_to_blob`, `g_dbus_message_new_from_blob`), so any D-Bus library in
/// peer-to-peer mode can talk to the agent, but it moves the bytes itself: a message is written
/// by the call that sends it and read by the loop's watch on the socket. GDBus's connection
/// would pass every message through its worker thread and back to the loop on both sides; on
/// this hop, which every continuation crosses, that cost more than the round trip itself.
///
/// Bounded as a link is: a message whose fixed header announces a body over
/// `maximumMessageBody` or header fields over `maximumHeaderFields` closes the connection
/// before any more of it is read; a malformed message closes it; at most
/// `maximumQueuedOutput` bytes wait for a peer that does not read, past which it is closed.
/// Each refusal is logged once, as the connection ends. Every call made on it has a deadline.
@MainActor
package final class LocalBus {
    static let maximumMessageBody = PeerBus.maximumMessageBody
    static let maximumHeaderFields = PeerBus.maximumHeaderFields
    /// Bytes written to a peer that does not read them, past which the connection is closed.
    static let maximumQueuedOutput = 16 * 1024 * 1024
    /// How much one turn of the loop reads from the socket.
    static let readChunk = 64 * 1024

    /// The socket's descriptor (owned by `connection`).
    let fd: Int32
    /// The `GSocketConnection *` (a reference), released when the bus closes.
    private var connection: OpaquePointer?
    private let log = Logger(label: "baton.agent")
    private let framing = DBusFraming(maximumBody: LocalBus.maximumMessageBody, maximumHeaderFields: LocalBus.maximumHeaderFields)

    /// Bytes read and not yet taken; `inputStart` is where the untaken part begins.
    var input: [UInt8] = []
    var inputStart = 0
    private var output: [UInt8] = []
    private var outputStart = 0
    private var readWatch: LoopSource?
    private var writeWatch: LoopSource?
    private var processing = false
    private(set) var isClosed = false
    private var lastSerial: UInt32 = 0
    private var pending: [UInt32: PendingCall] = [:]
    private var objects: [String: ServedObject] = [:]
    private var subscriptions: [UInt32: Subscription] = [:]
    private var lastSubscription: UInt32 = 0
    private var closedHandlers: [@MainActor () -> Void] = []

    private struct PendingCall {
        let method: String
        let replyType: String
        let resume: @MainActor (Result<[Variant], GLibError>) -> Void
        let expiry: LoopSource
    }

    private struct ServedObject {
        let info: UnsafeMutablePointer<GDBusInterfaceInfo>
        let handler: @MainActor (MethodCall) -> Void
    }

    private struct Subscription {
        let path: String, interface: String, member: String
        let body: @MainActor ([Variant]) -> Void
    }

    /// A bus over `connection` (a connected `GSocketConnection *`; the bus takes a reference),
    /// not yet authenticated: `serve(over:)` and `connect(over:timeout:)` make one.
    init(connection: OpaquePointer) {
        self.connection = OpaquePointer(g_object_ref(UnsafeMutableRawPointer(connection)))
        fd = g_socket_get_fd(g_socket_connection_get_socket(UnsafeMutablePointer(connection)))
    }

    isolated deinit {
        readWatch?.cancel()
        writeWatch?.cancel()
        if let connection { g_object_unref(UnsafeMutableRawPointer(connection)) }
    }

    /// Bytes waiting for the peer to take them (its socket is full: it has not read them yet).
    var unsentOutputBytes: Int { output.count - outputStart }

    /// Bytes held for writing, sent ones not yet given back included: `unsentOutputBytes` plus
    /// less than one `readChunk`.
    var heldOutputBytes: Int { output.count }

    // MARK: Lifecycle

    /// Lets incoming messages through: until this is called they wait, so a side exports its
    /// object before any call reaches it.
    package func startMessageProcessing() {
        guard !isClosed, !processing else { return }
        processing = true
        readWatch = MainLoop.whenReadable(fd) { [weak self] in self?.readAvailable() ?? .stop }
        takeMessages()
    }

    /// Runs `body` once when the connection ends, from either side, from the loop (never from
    /// within `close`); on a connection already closed, at the loop's next turn.
    func onClosed(_ body: @escaping @MainActor () -> Void) {
        guard !isClosed else {
            MainLoop.idle(priority: .default) { body() }
            return
        }
        closedHandlers.append(body)
    }

    /// Closes the connection; the peer sees it closed at once. Calls waiting for replies fail
    /// with `G_IO_ERROR_CLOSED`; bytes not yet written are dropped. More than once is harmless.
    package func close() {
        guard !isClosed else { return }
        isClosed = true
        readWatch?.cancel()
        writeWatch?.cancel()
        readWatch = nil
        writeWatch = nil
        if let connection {
            g_socket_shutdown(g_socket_connection_get_socket(UnsafeMutablePointer(connection)), 1, 1, nil)
            g_object_unref(UnsafeMutableRawPointer(connection))
            self.connection = nil
        }
        input = []
        inputStart = 0
        output = []
        outputStart = 0
        let calls = pending.values
        pending = [:]
        for call in calls {
            call.expiry.cancel()
            call.resume(.failure(Self.ioError(G_IO_ERROR_CLOSED, "The connection is closed")))
        }
        let handlers = closedHandlers
        closedHandlers = []
        if !handlers.isEmpty { MainLoop.idle(priority: .default) { for handler in handlers { handler() } } }
    }

    /// Closes the connection because of what the peer did, saying so once.
    func refuse(_ reason: String) {
        guard !isClosed else { return }
        log.warning("\(reason): closing the connection")
        close()
    }

    // MARK: Serving and calling

    /// Serves `info` at `path`: each call of one of its methods whose arguments are of the
    /// declared types goes to `handler`; other calls are answered with D-Bus's standard errors.
    func export(path: String, info: UnsafeMutablePointer<GDBusInterfaceInfo>, _ handler: @escaping @MainActor (MethodCall) -> Void) {
        objects[path] = ServedObject(info: info, handler: handler)
    }

    /// Calls `method` of `interface` at `path` with `arguments`; the reply must be of
    /// `replyType` (a tuple type). Fails after `timeout` with `G_IO_ERROR_TIMED_OUT`, when the
    /// connection closes with `G_IO_ERROR_CLOSED`, and with a remote error's name in
    /// `GLibError.remoteDBusErrorName`; a cancelled task fails it with `G_IO_ERROR_CANCELLED`.
    package func call(_ path: String, _ interface: String, _ method: String, _ arguments: [Variant], replyType: String,
                      timeout: Duration) async throws -> [Variant] {
        guard !isClosed else { throw Self.ioError(G_IO_ERROR_CLOSED, "The connection is closed") }
        let message = g_dbus_message_new_method_call(nil, path, interface, method)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, try Variant.tuple(arguments).makeGVariant())
        let serial = nextSerial()
        let cancel: @Sendable () -> Void = {
            Task { @MainActor [weak self] in self?.finish(serial, .failure(Self.ioError(G_IO_ERROR_CANCELLED, "Operation was cancelled"))) }
        }
        return try await withThrowingLoopContinuation(onCancel: cancel) { (continuation: CheckedContinuation<[Variant], any Error>) in
            let expiry = MainLoop.after(timeout) { [weak self] in
                self?.finish(serial, .failure(Self.ioError(G_IO_ERROR_TIMED_OUT, "Timeout was reached")))
            }
            pending[serial] = PendingCall(method: method, replyType: replyType, resume: { continuation.resume(with: $0) }, expiry: expiry)
            if !write(message, serial: serial) {
                finish(serial, .failure(Self.ioError(G_IO_ERROR_INVALID_ARGUMENT, "the call to \(method) could not be encoded")))
            }
        }
    }

    /// Calls `method` without asking for a reply (`G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED`): it
    /// is written (or queued) now, so it reaches the other side before any call made after
    /// this returns, and in the order of these calls.
    func send(_ path: String, _ interface: String, _ method: String, _ arguments: [Variant]) throws {
        guard !isClosed else { throw Self.ioError(G_IO_ERROR_CLOSED, "The connection is closed") }
        let message = g_dbus_message_new_method_call(nil, path, interface, method)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, try Variant.tuple(arguments).makeGVariant())
        g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
        write(message, serial: nextSerial())
    }

    /// Emits the signal `member` of `interface` at `path`.
    func emit(_ path: String, _ interface: String, _ member: String, _ arguments: [Variant]) {
        guard !isClosed, let body = try? Variant.tuple(arguments).makeGVariant() else { return }
        let message = g_dbus_message_new_signal(path, interface, member)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, body)
        write(message, serial: nextSerial())
    }

    /// Calls `body` with the arguments of each `member` signal the other side emits, until
    /// `unsubscribe` or the end of the connection.
    func subscribe(_ path: String, _ interface: String, _ member: String, _ body: @escaping @MainActor ([Variant]) -> Void) -> UInt32 {
        lastSubscription &+= 1
        subscriptions[lastSubscription] = Subscription(path: path, interface: interface, member: member, body: body)
        return lastSubscription
    }

    func unsubscribe(_ id: UInt32) { subscriptions[id] = nil }

    // MARK: Writing

    private func nextSerial() -> UInt32 {
        lastSerial = lastSerial == UInt32.max ? 1 : lastSerial + 1
        return lastSerial
    }

    /// Writes `message` with `serial` now, as far as the socket takes it; the rest waits for
    /// the socket to drain, in order. False if the message could not be encoded (logged).
    @discardableResult
    private func write(_ message: OpaquePointer, serial: UInt32) -> Bool {
        g_dbus_message_set_serial(message, serial)
        var size: gsize = 0
        var error: UnsafeMutablePointer<GError>?
        guard let blob = g_dbus_message_to_blob(message, &size, G_DBUS_CAPABILITY_FLAGS_NONE, &error) else {
            log.error("a D-Bus message could not be encoded: \(GLibError(consuming: error!))")
            return false
        }
        defer { g_free(blob) }
        writeRaw(UnsafeRawBufferPointer(start: blob, count: Int(size)))
        return true
    }

    /// Writes `bytes` (a message, or an authentication line) after what already waits.
    func writeRaw(_ bytes: UnsafeRawBufferPointer) {
        guard !isClosed else { return }
        var written = 0
        if unsentOutputBytes == 0 {
            let n = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
            if n >= 0 {
                written = n
            } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                return close()  // the peer is gone; the read watch or this says so
            }
        }
        guard written < bytes.count else { return }
        output.append(contentsOf: bytes[written...])
        if unsentOutputBytes > Self.maximumQueuedOutput {
            return refuse("the other side does not read what is sent to it (\(unsentOutputBytes) bytes waiting)")
        }
        if writeWatch == nil { writeWatch = MainLoop.whenWritable(fd) { [weak self] in self?.flush() ?? .stop } }
    }

    private func flush() -> Repetition {
        guard !isClosed else { return .stop }
        let n = output.withUnsafeBytes { bytes in
            Glibc.send(fd, bytes.baseAddress! + outputStart, bytes.count - outputStart, Int32(MSG_DONTWAIT | MSG_NOSIGNAL))
        }
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .again }
            close()
            return .stop
        }
        outputStart += n
        if unsentOutputBytes > 0 {
            // What was sent is given back as it goes, so only unsent bytes take memory.
            if outputStart >= Self.readChunk {
                output.removeFirst(outputStart)
                outputStart = 0
            }
            return .again
        }
        output = []
        outputStart = 0
        writeWatch = nil
        return .stop
    }

    // MARK: Reading

    /// One scratch buffer for every bus: reads happen on the loop thread, one at a time.
    private static let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: readChunk, alignment: 8)

    /// Reads what the socket has (up to `readChunk`) into `input`: false when the peer closed
    /// the connection or it failed (the bus is closed then).
    func readSome() -> Bool {
        guard !isClosed else { return false }
        let n = recv(fd, Self.scratch.baseAddress, Self.scratch.count, Int32(MSG_DONTWAIT))
        if n > 0 {
            if inputStart > 0 && inputStart == input.count {
                input.removeAll(keepingCapacity: true)
                inputStart = 0
            }
            input.append(contentsOf: UnsafeRawBufferPointer(rebasing: Self.scratch[0..<n]))
            return true
        }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return true }
        close()
        return false
    }

    private func readAvailable() -> Repetition {
        guard readSome() else { return .stop }
        takeMessages()
        return isClosed ? .stop : .again
    }

    /// Decodes and handles each whole message in `input`, checking each fixed header first.
    private func takeMessages() {
        while processing, !isClosed {
            let frame = input.withUnsafeBytes { framing.frame(UnsafeRawBufferPointer(rebasing: $0[inputStart...])) }
            let size: Int
            switch frame {
            case .needMore: return compactInput()
            case .refused(let reason): return refuse(reason)
            case .message(let total): size = total
            }
            guard input.count - inputStart >= size else { return compactInput() }
            var error: UnsafeMutablePointer<GError>?
            let message = input.withUnsafeMutableBytes { bytes in
                g_dbus_message_new_from_blob(bytes.baseAddress!.assumingMemoryBound(to: guchar.self) + inputStart, gsize(size),
                                             G_DBUS_CAPABILITY_FLAGS_NONE, &error)
            }
            inputStart += size
            guard let message else { return refuse("a malformed D-Bus message (\(GLibError(consuming: error!).message))") }
            guard g_dbus_message_get_serial(message) != 0 else {
                g_object_unref(UnsafeMutableRawPointer(message))
                return refuse("a D-Bus message with serial 0")
            }
            handle(message)
            g_object_unref(UnsafeMutableRawPointer(message))
        }
    }

    /// Gives back the memory of what was taken: an idle connection holds no buffer.
    private func compactInput() {
        if inputStart == input.count {
            input = []
            inputStart = 0
        } else if inputStart >= Self.readChunk {
            input.removeFirst(inputStart)
            inputStart = 0
        }
    }

    // MARK: Handling messages

    private func handle(_ message: OpaquePointer) {
        switch g_dbus_message_get_message_type(message) {
        case G_DBUS_MESSAGE_TYPE_METHOD_CALL: handleCall(message)
        case G_DBUS_MESSAGE_TYPE_METHOD_RETURN, G_DBUS_MESSAGE_TYPE_ERROR: handleReply(message)
        case G_DBUS_MESSAGE_TYPE_SIGNAL: handleSignal(message)
        default: break
        }
    }

    private func handleCall(_ message: OpaquePointer) {
        let serial = g_dbus_message_get_serial(message)
        let wantsReply = g_dbus_message_get_flags(message).rawValue & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED.rawValue == 0
        let answer: @MainActor (MethodCall.Answer) -> Void = { [weak self] answer in
            if wantsReply { self?.answer(serial, answer) }
        }
        let path = g_dbus_message_get_path(message).map { String(cString: $0) } ?? ""
        let interface = g_dbus_message_get_interface(message).map { String(cString: $0) }
        let member = g_dbus_message_get_member(message).map { String(cString: $0) } ?? ""
        if interface == "org.freedesktop.DBus.Peer" && member == "Ping" { return answer(.values([])) }
        if interface == "org.freedesktop.DBus.Introspectable" && member == "Introspect" {
            return answer(.values([.string(introspection(of: path))]))
        }
        guard let object = objects[path] else {
            return answer(.error("org.freedesktop.DBus.Error.UnknownObject", "No such object path '\(path)'"))
        }
        let served = String(cString: object.info.pointee.name)
        guard interface == nil || interface == served else {
            return answer(.error("org.freedesktop.DBus.Error.UnknownInterface", "No such interface '\(interface ?? "")' at '\(path)'"))
        }
        guard let method = g_dbus_interface_info_lookup_method(object.info, member) else {
            return answer(.error("org.freedesktop.DBus.Error.UnknownMethod", "No such method '\(member)'"))
        }
        let expected = Self.signature(of: method.pointee.in_args)
        let given = g_dbus_message_get_signature(message).map { String(cString: $0) } ?? ""
        guard given == expected else {
            return answer(.error("org.freedesktop.DBus.Error.InvalidArgs", "Type of message, '(\(given))', does not match expected type '(\(expected))'"))
        }
        guard let arguments = Self.arguments(of: message) else {
            return answer(.error("org.freedesktop.DBus.Error.InvalidArgs", "the arguments cannot be read"))
        }
        object.handler(MethodCall(method: member, arguments: arguments, answer: answer))
    }

    private func answer(_ serial: UInt32, _ answer: MethodCall.Answer) {
        guard !isClosed else { return }
        let reply = g_dbus_message_new()!
        defer { g_object_unref(UnsafeMutableRawPointer(reply)) }
        g_dbus_message_set_flags(reply, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
        g_dbus_message_set_reply_serial(reply, serial)
        switch answer {
        case .values(let values):
            g_dbus_message_set_message_type(reply, G_DBUS_MESSAGE_TYPE_METHOD_RETURN)
            guard let body = try? Variant.tuple(values).makeGVariant() else {
                return self.answer(serial, .error(AgentInterface.ErrorName.handoffFailed, "the reply could not be encoded"))
            }
            g_dbus_message_set_body(reply, body)
        case .error(let name, let text):
            g_dbus_message_set_message_type(reply, G_DBUS_MESSAGE_TYPE_ERROR)
            // A name D-Bus does not allow would leave the message without one: say Failed.
            g_dbus_message_set_error_name(reply, g_dbus_is_error_name(name) != 0 ? name : "org.freedesktop.DBus.Error.Failed")
            if let body = try? Variant.tuple([.string(text)]).makeGVariant() { g_dbus_message_set_body(reply, body) }
        }
        if !write(reply, serial: nextSerial()), case .values = answer {
            self.answer(serial, .error("org.freedesktop.DBus.Error.Failed", "the reply could not be encoded"))
        }
    }

    private func handleReply(_ message: OpaquePointer) {
        let serial = g_dbus_message_get_reply_serial(message)
        guard let call = pending[serial] else { return }  // late (timed out or cancelled): dropped
        let arguments = Self.arguments(of: message)
        if g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_ERROR {
            let name = g_dbus_message_get_error_name(message).map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
            var text = ""
            if case .string(let first)? = arguments?.first { text = first }
            return finish(serial, .failure(GLibError(domain: Self.ioDomain, code: gint(G_IO_ERROR_DBUS_ERROR.rawValue), message: text,
                                                     remoteDBusErrorName: name)))
        }
        let given = "(" + (g_dbus_message_get_signature(message).map { String(cString: $0) } ?? "") + ")"
        guard given == call.replyType, let arguments else {
            return finish(serial, .failure(Self.ioError(G_IO_ERROR_INVALID_ARGUMENT,
                                                        "Method '\(call.method)' returned type '\(given)', but expected '\(call.replyType)'")))
        }
        finish(serial, .success(arguments))
    }

    private func finish(_ serial: UInt32, _ result: Result<[Variant], GLibError>) {
        guard let call = pending.removeValue(forKey: serial) else { return }
        call.expiry.cancel()
        call.resume(result)
    }

    private func handleSignal(_ message: OpaquePointer) {
        let path = g_dbus_message_get_path(message).map { String(cString: $0) }
        let interface = g_dbus_message_get_interface(message).map { String(cString: $0) }
        let member = g_dbus_message_get_member(message).map { String(cString: $0) }
        let matching = subscriptions.values.filter { $0.path == path && $0.interface == interface && $0.member == member }
        guard !matching.isEmpty, let arguments = Self.arguments(of: message) else { return }
        for subscription in matching { subscription.body(arguments) }
    }

    // MARK: Helpers

    /// The introspection XML of `path`: its interface if one is served there, and the first
    /// element of the paths served below it as child nodes, as GDBus answers it (for D-Bus
    /// libraries and tools that introspect before they call).
    private func introspection(of path: String) -> String {
        let xml = g_string_new("<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"\n"
                               + "\"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">\n<node>\n")!
        defer { g_string_free(xml, 1) }
        if let object = objects[path] { g_dbus_interface_info_generate_xml(object.info, 2, xml) }
        let prefix = path == "/" ? "/" : path + "/"
        let children = Set(objects.keys.filter { $0.hasPrefix(prefix) }.compactMap { $0.dropFirst(prefix.count).split(separator: "/").first })
        for child in children.sorted() { g_string_append(xml, "  <node name=\"\(child)\"/>\n") }
        g_string_append(xml, "</node>\n")
        return String(cString: xml.pointee.str)
    }

    /// The body's values (none without a body); nil if they cannot be read.
    private static func arguments(of message: OpaquePointer) -> [Variant]? {
        guard let body = g_dbus_message_get_body(message) else { return [] }
        guard case .tuple(let items)? = try? Variant(reading: body) else { return nil }
        return items
    }

    /// The concatenated signatures of `arguments` (a NULL-terminated `GDBusArgInfo **`).
    private static func signature(of arguments: UnsafeMutablePointer<UnsafeMutablePointer<GDBusArgInfo>?>?) -> String {
        guard let arguments else { return "" }
        var signature = ""
        var index = 0
        while let argument = arguments[index] {
            signature += String(cString: argument.pointee.signature)
            index += 1
        }
        return signature
    }

    static let ioDomain = String(cString: g_quark_to_string(g_io_error_quark()))

    static func ioError(_ code: GIOErrorEnum, _ message: String) -> GLibError {
        GLibError(domain: ioDomain, code: gint(code.rawValue), message: message)
    }
}
