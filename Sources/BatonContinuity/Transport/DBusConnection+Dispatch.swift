import BatonLoop
import CGLib
import Foundation

/// What a `DBusConnection` does with each message it reads: a method call goes to the object
/// exported at its path (or is answered with D-Bus's standard errors; `Peer.Ping` and
/// `Introspectable.Introspect` are answered here, as GDBus answers them), a reply or error
/// ends the call waiting for it, a signal goes to its subscriptions.
extension DBusConnection {

    func handle(_ message: OpaquePointer) {
        switch g_dbus_message_get_message_type(message) {
        case G_DBUS_MESSAGE_TYPE_METHOD_CALL: handleCall(message)
        case G_DBUS_MESSAGE_TYPE_METHOD_RETURN, G_DBUS_MESSAGE_TYPE_ERROR: handleReply(message)
        case G_DBUS_MESSAGE_TYPE_SIGNAL: handleSignal(message)
        default: break
        }
    }

    private func handleCall(_ message: OpaquePointer) {
        let wantsReply = g_dbus_message_get_flags(message).rawValue & G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED.rawValue == 0
        dispatchCall(serial: g_dbus_message_get_serial(message), wantsReply: wantsReply,
                     path: g_dbus_message_get_path(message).map { String(cString: $0) } ?? "",
                     interface: g_dbus_message_get_interface(message).map { String(cString: $0) },
                     member: g_dbus_message_get_member(message).map { String(cString: $0) } ?? "",
                     signature: g_dbus_message_get_signature(message).map { String(cString: $0) } ?? "",
                     arguments: { Self.arguments(of: message) })
    }

    /// Handles the method call `serial` of `member` at `path` whose body has `signature` and
    /// `arguments` (read only once the method is known and the signature matches; nil if they
    /// cannot be read), however it was decoded (`DBusBasicMessage` or GLib).
    func dispatchCall(serial: UInt32, wantsReply: Bool, path: String, interface: String?, member: String, signature given: String,
                      arguments: () -> [Variant]?) {
        let answer: @MainActor (MethodCall.Answer) -> Void = { [weak self] answer in
            if wantsReply { self?.answer(serial, answer) }
        }
        if interface == "org.freedesktop.DBus.Peer" && member == "Ping" { return answer(.values([])) }
        if interface == "org.freedesktop.DBus.Introspectable" && member == "Introspect" {
            return answer(.values([.string(introspection(of: path))]))
        }
        guard let object = objects[path] else {
            return answer(.error("org.freedesktop.DBus.Error.UnknownObject", "No such object path '\(path)'"))
        }
        guard interface == nil || interface == object.interface else {
            return answer(.error("org.freedesktop.DBus.Error.UnknownInterface", "No such interface '\(interface ?? "")' at '\(path)'"))
        }
        guard let expected = object.signatures[member] else {
            return answer(.error("org.freedesktop.DBus.Error.UnknownMethod", "No such method '\(member)'"))
        }
        guard given == expected else {
            return answer(.error("org.freedesktop.DBus.Error.InvalidArgs", "Type of message, '(\(given))', does not match expected type '(\(expected))'"))
        }
        guard let arguments = arguments() else {
            return answer(.error("org.freedesktop.DBus.Error.InvalidArgs", "the arguments cannot be read"))
        }
        object.handler(MethodCall(method: member, arguments: arguments, unansweredErrorName: fallbackErrorName, answer: answer))
    }

    private func answer(_ serial: UInt32, _ answer: MethodCall.Answer) {
        guard !isClosed else { return }
        if case .values(let values) = answer, values.count == 1, case .bytes(let bytes) = values[0] {
            return writeBytesReply(to: serial, bytes)
        }
        let replySerial = nextSerial()
        // Values of basic types are written here (`DBusBasicMessageWriter`); others, and errors, by GLib.
        if case .values(let values) = answer,
           let written = DBusBasicMessageWriter.methodReturn(serial: replySerial, replySerial: serial, arguments: values) {
            return written.withUnsafeBytes { writeRaw($0) }
        }
        let reply = g_dbus_message_new()!
        defer { g_object_unref(UnsafeMutableRawPointer(reply)) }
        g_dbus_message_set_flags(reply, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
        g_dbus_message_set_reply_serial(reply, serial)
        switch answer {
        case .values(let values):
            g_dbus_message_set_message_type(reply, G_DBUS_MESSAGE_TYPE_METHOD_RETURN)
            guard let body = try? Variant.tuple(values).makeGVariant() else {
                return self.answer(serial, .error(fallbackErrorName, "the reply could not be encoded"))
            }
            g_dbus_message_set_body(reply, body)
        case .error(let name, let text):
            g_dbus_message_set_message_type(reply, G_DBUS_MESSAGE_TYPE_ERROR)
            // A name D-Bus does not allow would leave the message without one: say Failed.
            g_dbus_message_set_error_name(reply, g_dbus_is_error_name(name) != 0 ? name : "org.freedesktop.DBus.Error.Failed")
            if let body = try? Variant.tuple([.string(text)]).makeGVariant() { g_dbus_message_set_body(reply, body) }
        }
        if !write(reply, serial: replySerial), case .values = answer {
            self.answer(serial, .error("org.freedesktop.DBus.Error.Failed", "the reply could not be encoded"))
        }
    }

    /// Answers call `serial` with `(bytes)`, written here (`DBusBytesReply`), not by GLib:
    /// no `GDBusMessage`, no `GVariant`, one copy of the bytes, into the message.
    private func writeBytesReply(to serial: UInt32, _ bytes: Data) {
        let size = DBusBytesReply.size(bytes: bytes.count)
        let replySerial = nextSerial()
        withUnsafeTemporaryAllocation(byteCount: size, alignment: 8) { message in
            bytes.withUnsafeBytes { DBusBytesReply.write(into: message, serial: replySerial, replySerial: serial, bytes: $0) }
            writeRaw(UnsafeRawBufferPointer(message))
        }
    }

    private func handleReply(_ message: OpaquePointer) {
        let serial = g_dbus_message_get_reply_serial(message)
        guard pending[serial] != nil else { return }  // late (timed out or cancelled): dropped
        let arguments = Self.arguments(of: message)
        if g_dbus_message_get_message_type(message) == G_DBUS_MESSAGE_TYPE_ERROR {
            let name = g_dbus_message_get_error_name(message).map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
            var text = ""
            if case .string(let first)? = arguments?.first { text = first }
            return finish(serial, .failure(GLibError(domain: Self.ioDomain, code: gint(G_IO_ERROR_DBUS_ERROR.rawValue), message: text,
                                                     remoteDBusErrorName: name)))
        }
        finishCall(serial, signature: g_dbus_message_get_signature(message).map { String(cString: $0) } ?? "", arguments: arguments)
    }

    /// Ends the call `serial` with the values of its reply, whose body has `signature` (nil
    /// values if they cannot be read), however it was decoded (`DBusBasicMessage` or GLib): a
    /// reply of another type than the call's fails it. A reply to no call waiting (late: timed
    /// out or cancelled) is dropped.
    func finishCall(_ serial: UInt32, signature: String, arguments: [Variant]?) {
        guard let call = pending[serial] else { return }
        let given = "(" + signature + ")"
        guard given == call.replyType, let arguments else {
            return finish(serial, .failure(Self.ioError(G_IO_ERROR_INVALID_ARGUMENT,
                                                        "Method '\(call.method)' returned type '\(given)', but expected '\(call.replyType)'")))
        }
        finish(serial, .success(arguments))
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
    static func signature(of arguments: UnsafeMutablePointer<UnsafeMutablePointer<GDBusArgInfo>?>?) -> String {
        guard let arguments else { return "" }
        var signature = ""
        var index = 0
        while let argument = arguments[index] {
            signature += String(cString: argument.pointee.signature)
            index += 1
        }
        return signature
    }
}
