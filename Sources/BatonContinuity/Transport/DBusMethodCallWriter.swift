import BatonLoop
import Foundation

/// A method call whose arguments are all of D-Bus's basic types this writes (`b`, `u`, `x`,
/// `t`, `s`) or bytes (`ay`), written without GLib (D-Bus specification, "Message Format",
/// "Marshaling"), byte for byte as `g_dbus_message_to_blob` writes it: little-endian, the path,
/// interface, signature (empty without arguments) and member fields in that order, each at a
/// multiple of 8. So a call such as `FetchPayload(t)` costs no `GDBusMessage` and no `GVariant`
/// tree (issue 26: the warm continuation's call). Any other argument, or a string with a NUL, is not written
/// here (nil): GLib writes it, or refuses it, as before. The names must be valid D-Bus names
/// (the caller's declared ones; they are not checked here).
enum DBusMethodCallWriter {
    static let methodCallType: UInt8 = 1
    static let pathField: UInt8 = 1, interfaceField: UInt8 = 2, memberField: UInt8 = 3, signatureField: UInt8 = 8

    /// The message, or nil when an argument is not one this writes.
    static func message(serial: UInt32, path: String, interface: String, member: String, arguments: [Variant],
                        noReplyExpected: Bool) -> [UInt8]? {
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
        guard signature.utf8.count < 256 else { return nil }
        var m: [UInt8] = []
        m.reserveCapacity(128)
        func pad(_ alignment: Int) { while m.count % alignment != 0 { m.append(0) } }
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { m.append(contentsOf: $0) } }
        func u64(_ value: UInt64) { withUnsafeBytes(of: value.littleEndian) { m.append(contentsOf: $0) } }
        m.append(contentsOf: [UInt8(ascii: "l"), methodCallType, noReplyExpected ? 1 : 0, 1])
        u32(0)  // the body's length, set below
        u32(serial)
        u32(0)  // the header fields' length, set below
        func stringField(_ code: UInt8, _ type: UInt8, _ value: String) {
            pad(8)
            m.append(contentsOf: [code, 1, type, 0])
            u32(UInt32(value.utf8.count))
            m.append(contentsOf: value.utf8)
            m.append(0)
        }
        stringField(pathField, UInt8(ascii: "o"), path)
        stringField(interfaceField, UInt8(ascii: "s"), interface)
        pad(8)
        m.append(contentsOf: [signatureField, 1, UInt8(ascii: "g"), 0, UInt8(signature.utf8.count)])
        m.append(contentsOf: signature.utf8)
        m.append(0)
        stringField(memberField, UInt8(ascii: "s"), member)
        let fieldsLength = m.count - DBusFraming.fixedHeaderSize
        pad(8)
        let bodyStart = m.count
        for argument in arguments {
            switch argument {
            case .bool(let value): pad(4); u32(value ? 1 : 0)
            case .uint32(let value): pad(4); u32(value)
            case .int64(let value): pad(8); u64(UInt64(bitPattern: value))
            case .uint64(let value): pad(8); u64(value)
            case .string(let text):
                pad(4)
                u32(UInt32(text.utf8.count))
                m.append(contentsOf: text.utf8)
                m.append(0)
            case .bytes(let bytes):
                pad(4)
                u32(UInt32(bytes.count))
                m.append(contentsOf: bytes)
            default: return nil
            }
        }
        let bodyLength = m.count - bodyStart
        withUnsafeBytes(of: UInt32(bodyLength).littleEndian) { for i in 0..<4 { m[4 + i] = $0[i] } }
        withUnsafeBytes(of: UInt32(fieldsLength).littleEndian) { for i in 0..<4 { m[12 + i] = $0[i] } }
        return m
    }
}
