import BatonLoop
import CGLib
import Foundation

/// A method call or a method return whose body holds only the basic types Baton's own
/// interfaces use (`b`, `u`, `x`, `t`, `s`) and bytes (`ay`), read without GLib (D-Bus
/// specification, "Message Format", "Marshaling"): its values go from the bytes read to the
/// call's handler or the waiting call, with no `GDBusMessage` and no `GVariant` tree between
/// (issue 26: every call and reply of the warm continuation's path, `FetchPayload(st)` and
/// `Continued`'s empty reply among them, which GLib took about 6 µs each to decode).
///
/// Reading is a narrow recogniser, not a second decoder, as `DBusDataSignal`'s and
/// `DBusBytesReply`'s are: `read(_:)` takes only a message it can vouch for whole — D-Bus
/// version 1, known flags, a serial; a method call with exactly a path, a member and at most an
/// interface and a signature, or a method return with exactly a reply serial and at most a
/// signature (a `sender` or `destination` field, which a bus would add, or any other makes it
/// not one); each field once and of its type, every string ending in its NUL with none before
/// it, the path, interface and member valid D-Bus names (GLib's own checks), zero padding; and a
/// body of exactly the signature's values, each string valid UTF-8 without a NUL, each boolean
/// 0 or 1. Anything else goes to GLib's full decoding, which refuses what is malformed as
/// before. The size check (`DBusFraming`) has run before any of it was read.
package enum DBusBasicMessage {
    static let methodCallType: UInt8 = 1, methodReturnType: UInt8 = 2
    static let pathField: UInt8 = 1, interfaceField: UInt8 = 2, memberField: UInt8 = 3, replySerialField: UInt8 = 5,
               signatureField: UInt8 = 8
    /// The flags a message may carry: no reply expected, no auto start, interactive authorization.
    static let knownFlags: UInt8 = 0x7
    static let noReplyExpected: UInt8 = 0x1

    /// What a message is, beyond its serial, flags and body.
    package enum Kind: Equatable {
        /// A method call of `member`, of `interface` when it names one, at `path`.
        case call(path: String, interface: String?, member: String)
        /// A method return to the call with serial `replySerial`.
        case reply(replySerial: UInt32)
    }

    /// A message `read(_:)` took.
    package struct Decoded: Equatable {
        package let kind: Kind
        package let serial: UInt32
        /// Whether the sender asked for no reply (a call's flag).
        package let noReplyExpected: Bool
        /// The body's signature, without parentheses ("" for no body).
        package let signature: String
        package let arguments: [Variant]
    }

    /// The message in `message` (one whole message, as `DBusFraming` measured it) if it is a
    /// method call or return as this type reads one; nil for any other message, well formed or not.
    package static func read(_ message: UnsafeRawBufferPointer) -> Decoded? {
        let m = message
        guard m.count >= DBusFraming.fixedHeaderSize else { return nil }
        let little: Bool
        switch m[0] {
        case UInt8(ascii: "l"): little = true
        case UInt8(ascii: "B"): little = false
        default: return nil
        }
        let type = m[1]
        guard type == methodCallType || type == methodReturnType, m[2] & ~knownFlags == 0, m[3] == 1 else { return nil }
        func u32(_ offset: Int) -> UInt32 {
            let raw = m.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
            return little ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw)
        }
        func u64(_ offset: Int) -> UInt64 {
            let raw = m.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            return little ? UInt64(littleEndian: raw) : UInt64(bigEndian: raw)
        }
        func zeros(_ range: Range<Int>) -> Bool { range.allSatisfy { m[$0] == 0 } }
        let bodyLength = Int(u32(4)), serial = u32(8), fieldsLength = Int(u32(12))
        let fieldsEnd = DBusFraming.fixedHeaderSize + fieldsLength
        let bodyStart = (fieldsEnd + 7) & ~7
        guard serial != 0, bodyStart <= m.count, m.count - bodyStart == bodyLength else { return nil }

        // The header fields, each at a multiple of 8: a code, a variant's one-type signature, the value.
        var path: Range<Int>?, interface: Range<Int>?, member: Range<Int>?, signature: Range<Int>?, replySerial: UInt32?
        var offset = DBusFraming.fixedHeaderSize
        while offset < fieldsEnd {
            guard fieldsEnd - offset >= 8, m[offset + 1] == 1, m[offset + 3] == 0 else { return nil }
            let code = m[offset], fieldType = m[offset + 2]
            var end: Int
            switch (type, code, fieldType) {
            case (methodCallType, pathField, UInt8(ascii: "o")), (methodCallType, interfaceField, UInt8(ascii: "s")),
                 (methodCallType, memberField, UInt8(ascii: "s")), (_, signatureField, UInt8(ascii: "g")):
                let isSignature = code == signatureField
                let length = isSignature ? Int(m[offset + 4]) : Int(u32(offset + 4))  // at a multiple of 4
                let valueStart = offset + (isSignature ? 5 : 8)
                guard length < fieldsEnd - valueStart, m[valueStart + length] == 0 else { return nil }
                let value = valueStart..<valueStart + length
                guard !m[value].contains(0) else { return nil }
                switch code {
                case pathField where path == nil: path = value
                case interfaceField where interface == nil: interface = value
                case memberField where member == nil: member = value
                case signatureField where signature == nil: signature = value
                default: return nil  // a field twice
                }
                end = value.upperBound + 1
            case (methodReturnType, replySerialField, UInt8(ascii: "u")) where replySerial == nil:
                replySerial = u32(offset + 4)
                end = offset + 8
            default: return nil
            }
            let next = end == fieldsEnd ? end : (end + 7) & ~7
            guard next <= fieldsEnd, zeros(end..<next) else { return nil }
            offset = next
        }
        guard zeros(fieldsEnd..<bodyStart) else { return nil }

        // What it is: GLib's checks of the names, on each NUL-terminated value in place.
        func valid(_ range: Range<Int>?, _ check: (UnsafePointer<CChar>) -> gboolean) -> Bool {
            guard let range else { return true }
            return check((m.baseAddress! + range.lowerBound).assumingMemoryBound(to: CChar.self)) != 0
        }
        func string(_ range: Range<Int>) -> String { String(decoding: m[range], as: UTF8.self) }
        let kind: Kind
        if type == methodCallType {
            guard let path, let member, replySerial == nil,
                  valid(path, { g_variant_is_object_path($0) }), valid(interface, { g_dbus_is_interface_name($0) }),
                  valid(member, { g_dbus_is_member_name($0) }) else { return nil }
            kind = .call(path: string(path), interface: interface.map(string), member: string(member))
        } else {
            guard let replySerial, replySerial != 0 else { return nil }
            kind = .reply(replySerial: replySerial)
        }

        // The body: exactly the signature's values, each at its alignment (from the body's start).
        let types = signature.map { Array(m[$0]) } ?? []
        var arguments: [Variant] = []
        var at = bodyStart
        let bodyEnd = m.count
        func align(_ alignment: Int) -> Bool {
            let aligned = bodyStart + ((at - bodyStart + alignment - 1) & ~(alignment - 1))
            guard aligned <= bodyEnd, zeros(at..<aligned) else { return false }
            at = aligned
            return true
        }
        var index = 0
        while index < types.count {
            switch types[index] {
            case UInt8(ascii: "b"), UInt8(ascii: "u"):
                guard align(4), bodyEnd - at >= 4 else { return nil }
                let value = u32(at)
                if types[index] == UInt8(ascii: "b") {
                    guard value <= 1 else { return nil }
                    arguments.append(.bool(value == 1))
                } else {
                    arguments.append(.uint32(value))
                }
                at += 4
            case UInt8(ascii: "x"), UInt8(ascii: "t"):
                guard align(8), bodyEnd - at >= 8 else { return nil }
                let value = u64(at)
                arguments.append(types[index] == UInt8(ascii: "t") ? .uint64(value) : .int64(Int64(bitPattern: value)))
                at += 8
            case UInt8(ascii: "s"):
                guard align(4), bodyEnd - at >= 4 else { return nil }
                let length = Int(u32(at))
                let start = at + 4
                guard length < bodyEnd - start, m[start + length] == 0 else { return nil }
                let bytes = UnsafeRawBufferPointer(rebasing: m[start..<start + length])
                guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else { return nil }
                arguments.append(.string(text))
                at = start + length + 1
            case UInt8(ascii: "a") where index + 1 < types.count && types[index + 1] == UInt8(ascii: "y"):
                guard align(4), bodyEnd - at >= 4 else { return nil }
                let length = Int(u32(at))
                let start = at + 4
                guard length <= bodyEnd - start else { return nil }
                arguments.append(.bytes(Data(UnsafeRawBufferPointer(rebasing: m[start..<start + length]))))
                at = start + length
                index += 1
            default: return nil
            }
            index += 1
        }
        guard at == bodyEnd else { return nil }
        return Decoded(kind: kind, serial: serial, noReplyExpected: m[2] & noReplyExpected != 0,
                       signature: String(decoding: types, as: UTF8.self), arguments: arguments)
    }
}
