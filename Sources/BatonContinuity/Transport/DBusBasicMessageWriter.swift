import BatonLoop
import Foundation

/// A method call or a method return whose arguments are all of D-Bus's basic types this writes
/// (`b`, `u`, `x`, `t`, `s`) or bytes (`ay`), written without GLib (D-Bus specification,
/// "Message Format", "Marshaling"), byte for byte as `g_dbus_message_to_blob` writes it:
/// little-endian; a call's path, interface, signature (empty without arguments) and member
/// fields in that order, a return's signature and reply serial, each at a multiple of 8. So a
/// call such as `FetchPayload(st)`, or `Continued`'s empty reply, costs no `GDBusMessage` and
/// no `GVariant` tree (issue 26: the warm continuation's messages; `DBusBasicMessage` reads
/// them). Any other argument, or a string with a NUL, is not written here (nil): GLib writes
/// it, or refuses it, as before. The names must be valid D-Bus names (the caller's declared
/// ones; they are not checked here).
enum DBusBasicMessageWriter {
    /// The method call, or nil when an argument is not one this writes.
    static func methodCall(serial: UInt32, path: String, interface: String, member: String, arguments: [Variant],
                           noReplyExpected: Bool) -> [UInt8]? {
        guard let signature = signature(of: arguments) else { return nil }
        var m = Message(type: DBusBasicMessage.methodCallType, flags: noReplyExpected ? DBusBasicMessage.noReplyExpected : 0,
                        serial: serial)
        m.stringField(DBusBasicMessage.pathField, UInt8(ascii: "o"), path)
        m.stringField(DBusBasicMessage.interfaceField, UInt8(ascii: "s"), interface)
        m.signatureField(signature)
        m.stringField(DBusBasicMessage.memberField, UInt8(ascii: "s"), member)
        return m.finish(arguments)
    }

    /// The method return to call `replySerial` with `arguments`, flagged "no reply expected" as
    /// GLib marks a reply, or nil when an argument is not one this writes.
    static func methodReturn(serial: UInt32, replySerial: UInt32, arguments: [Variant]) -> [UInt8]? {
        guard let signature = signature(of: arguments) else { return nil }
        var m = Message(type: DBusBasicMessage.methodReturnType, flags: DBusBasicMessage.noReplyExpected, serial: serial)
        m.signatureField(signature)
        m.pad(8)
        m.bytes.append(contentsOf: [DBusBasicMessage.replySerialField, 1, UInt8(ascii: "u"), 0])
        m.u32(replySerial)
        return m.finish(arguments)
    }

    /// The arguments' signature, or nil when one is not of a type this writes.
    private static func signature(of arguments: [Variant]) -> String? {
        var signature = ""
        for argument in arguments {
            switch argument {
            case .bool: signature += "b"
            case .uint32: signature += "u"
            case .int64: signature += "x"
            case .uint64: signature += "t"
            case .string(let text) where !text.utf8.contains(0): signature += "s"
            case .bytes: signature += "ay"
            default: return nil
            }
        }
        return signature.utf8.count < 256 ? signature : nil
    }

    /// A message being written: the fixed header, then the fields, then the body.
    private struct Message {
        var bytes: [UInt8] = []

        init(type: UInt8, flags: UInt8, serial: UInt32) {
            bytes.reserveCapacity(128)
            bytes.append(contentsOf: [UInt8(ascii: "l"), type, flags, 1])
            u32(0)  // the body's length, set by `finish`
            u32(serial)
            u32(0)  // the header fields' length, set by `finish`
        }

        mutating func pad(_ alignment: Int) { while bytes.count % alignment != 0 { bytes.append(0) } }
        mutating func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
        mutating func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }

        mutating func stringField(_ code: UInt8, _ type: UInt8, _ value: String) {
            pad(8)
            bytes.append(contentsOf: [code, 1, type, 0])
            u32(UInt32(value.utf8.count))
            bytes.append(contentsOf: value.utf8)
            bytes.append(0)
        }

        mutating func signatureField(_ signature: String) {
            pad(8)
            bytes.append(contentsOf: [DBusBasicMessage.signatureField, 1, UInt8(ascii: "g"), 0, UInt8(signature.utf8.count)])
            bytes.append(contentsOf: signature.utf8)
            bytes.append(0)
        }

        /// The body of `arguments` (each of a type `signature(of:)` took) and both lengths.
        mutating func finish(_ arguments: [Variant]) -> [UInt8] {
            let fieldsLength = bytes.count - DBusFraming.fixedHeaderSize
            pad(8)
            let bodyStart = bytes.count
            for argument in arguments {
                switch argument {
                case .bool(let value): pad(4); u32(value ? 1 : 0)
                case .uint32(let value): pad(4); u32(value)
                case .int64(let value): pad(8); u64(UInt64(bitPattern: value))
                case .uint64(let value): pad(8); u64(value)
                case .string(let text):
                    pad(4)
                    u32(UInt32(text.utf8.count))
                    bytes.append(contentsOf: text.utf8)
                    bytes.append(0)
                case .bytes(let data):
                    pad(4)
                    u32(UInt32(data.count))
                    bytes.append(contentsOf: data)
                default: preconditionFailure("an argument signature(of:) refuses")
                }
            }
            let bodyLength = UInt32(bytes.count - bodyStart)
            withUnsafeBytes(of: bodyLength.littleEndian) { for i in 0..<4 { bytes[4 + i] = $0[i] } }
            withUnsafeBytes(of: UInt32(fieldsLength).littleEndian) { for i in 0..<4 { bytes[12 + i] = $0[i] } }
            return bytes
        }
    }
}
