@testable import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import XCTest

/// GLib's own writing and reading of whole D-Bus messages (`g_dbus_message_to_blob`,
/// `g_dbus_message_new_from_blob`), the reference Baton's own writers and readers of one
/// message shape (`DBusBasicMessage`, `DBusBytesReply`, `DBusDataSignal`) are checked against, and the hostile
/// changes of a message both are given.
enum GLibMessageBlob {
    /// GLib's bytes for `message` (which this takes and releases) with the body `arguments`,
    /// `serial` and byte `order`.
    static func bytes(of message: OpaquePointer, arguments: [Variant], serial: UInt32 = 5,
                      order: GDBusMessageByteOrder = G_DBUS_MESSAGE_BYTE_ORDER_LITTLE_ENDIAN) throws -> [UInt8] {
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, try Variant.tuple(arguments).makeGVariant())
        g_dbus_message_set_serial(message, serial)
        g_dbus_message_set_byte_order(message, order)
        var size: gsize = 0
        let blob = try XCTUnwrap(g_dbus_message_to_blob(message, &size, G_DBUS_CAPABILITY_FLAGS_NONE, nil))
        defer { g_free(blob) }
        return Array(UnsafeBufferPointer(start: blob, count: Int(size)))
    }

    /// GLib's encoding of the reply with `arguments` to call `replySerial`, as `DBusConnection`
    /// made it before it wrote replies itself (flagged "no reply expected"), with `serial`, in
    /// `order`, with a `sender` or `destination` field when given (a bus adds them).
    static func methodReturn(to replySerial: UInt32 = 9, _ arguments: [Variant], serial: UInt32 = 5,
                             order: GDBusMessageByteOrder = G_DBUS_MESSAGE_BYTE_ORDER_LITTLE_ENDIAN,
                             sender: String? = nil, destination: String? = nil) throws -> [UInt8] {
        let message = g_dbus_message_new()!
        g_dbus_message_set_message_type(message, G_DBUS_MESSAGE_TYPE_METHOD_RETURN)
        g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED)
        g_dbus_message_set_reply_serial(message, replySerial)
        if let sender { g_dbus_message_set_sender(message, sender) }
        if let destination { g_dbus_message_set_destination(message, destination) }
        return try bytes(of: message, arguments: arguments, serial: serial, order: order)
    }

    /// What `read` makes of the message GLib reads from `blob` and of its body's values: nil if
    /// GLib refuses it, if it is not of `type` or if its body is not a tuple.
    static func read<Value>(_ blob: [UInt8], as type: GDBusMessageType, _ read: (OpaquePointer, [Variant]) -> Value?) -> Value? {
        var copy = blob
        let decoded = copy.withUnsafeMutableBufferPointer {
            g_dbus_message_new_from_blob($0.baseAddress, gsize($0.count), G_DBUS_CAPABILITY_FLAGS_NONE, nil)
        }
        guard let decoded else { return nil }
        defer { g_object_unref(UnsafeMutableRawPointer(decoded)) }
        guard g_dbus_message_get_message_type(decoded) == type, let body = g_dbus_message_get_body(decoded),
              case .tuple(let items)? = try? Variant(reading: body) else { return nil }
        return read(decoded, items)
    }

    /// `message` with each single byte of its first `count` changed in turn, to each value a
    /// hostile peer would try (0, 1, 0x7F, 0xFF and the byte plus one), with what was changed.
    static func byteChanges(of message: [UInt8], first count: Int) -> [(message: [UInt8], what: String)] {
        (0..<count).flatMap { index in
            Set([0, 1, 0x7F, 0xFF, message[index] &+ 1]).subtracting([message[index]]).sorted().map { value in
                var changed = message
                changed[index] = value
                return (changed, "byte \(index) set to \(value)")
            }
        }
    }

    /// Writes `value` little-endian at `offset` of `message` (a length or serial a peer lies about).
    static func setUInt32(_ message: inout [UInt8], at offset: Int, _ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { for i in 0..<4 { message[offset + i] = $0[i] } }
    }
}
