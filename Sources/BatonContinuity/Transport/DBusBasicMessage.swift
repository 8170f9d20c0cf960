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
    static let noReplyExpected: UInt8 = 0x1
    static let pathField = DBusMessageReader.pathField, interfaceField = DBusMessageReader.interfaceField,
               memberField = DBusMessageReader.memberField, replySerialField = DBusMessageReader.replySerialField,
               signatureField = DBusMessageReader.signatureField
    static let callFields = DBusMessageReader.mask(pathField, interfaceField, memberField, signatureField)
    static let returnFields = DBusMessageReader.mask(replySerialField, signatureField)

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
        guard let m = DBusMessageReader(message), m.type == methodCallType || m.type == methodReturnType else { return nil }
        guard let fields = m.fields(allowed: m.type == methodCallType ? callFields : returnFields) else { return nil }

        // What it is: GLib's checks of the names, on each NUL-terminated value in place.
        func valid(_ range: Range<Int>?, _ check: (UnsafePointer<CChar>) -> gboolean) -> Bool {
            guard let range else { return true }
            return check((message.baseAddress! + range.lowerBound).assumingMemoryBound(to: CChar.self)) != 0
        }
        func string(_ range: Range<Int>) -> String { String(decoding: message[range], as: UTF8.self) }
        let kind: Kind
        if m.type == methodCallType {
            guard let path = fields.path, let member = fields.member, valid(path, { g_variant_is_object_path($0) }),
                  valid(fields.interface, { g_dbus_is_interface_name($0) }), valid(member, { g_dbus_is_member_name($0) })
            else { return nil }
            kind = .call(path: string(path), interface: fields.interface.map(string), member: string(member))
        } else {
            guard let replySerial = fields.replySerial, replySerial != 0 else { return nil }
            kind = .reply(replySerial: replySerial)
        }
        let types = fields.signature.map { Array(message[$0]) } ?? []
        guard let arguments = body(of: m, types: types) else { return nil }
        return Decoded(kind: kind, serial: m.serial, noReplyExpected: m.flags & noReplyExpected != 0,
                       signature: String(decoding: types, as: UTF8.self), arguments: arguments)
    }

    /// The body's values: exactly the signature's (`types`), each at its alignment from the
    /// body's start with zero padding; nil if the body is anything else.
    private static func body(of m: DBusMessageReader, types: [UInt8]) -> [Variant]? {
        var arguments: [Variant] = []
        var at = m.bodyStart
        let bodyEnd = m.bytes.count
        func align(_ alignment: Int) -> Bool {
            let aligned = m.bodyStart + ((at - m.bodyStart + alignment - 1) & ~(alignment - 1))
            guard aligned <= bodyEnd, m.zeros(at..<aligned) else { return false }
            at = aligned
            return true
        }
        var index = 0
        while index < types.count {
            switch types[index] {
            case UInt8(ascii: "b"), UInt8(ascii: "u"):
                guard align(4), bodyEnd - at >= 4 else { return nil }
                let value = m.u32(at)
                if types[index] == UInt8(ascii: "b") {
                    guard value <= 1 else { return nil }
                    arguments.append(.bool(value == 1))
                } else {
                    arguments.append(.uint32(value))
                }
                at += 4
            case UInt8(ascii: "x"), UInt8(ascii: "t"):
                guard align(8), bodyEnd - at >= 8 else { return nil }
                let value = m.u64(at)
                arguments.append(types[index] == UInt8(ascii: "t") ? .uint64(value) : .int64(Int64(bitPattern: value)))
                at += 8
            case UInt8(ascii: "s"):
                guard align(4), bodyEnd - at >= 4 else { return nil }
                let length = Int(m.u32(at))
                let start = at + 4
                guard length < bodyEnd - start, m.bytes[start + length] == 0 else { return nil }
                let bytes = UnsafeRawBufferPointer(rebasing: m.bytes[start..<start + length])
                guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else { return nil }
                arguments.append(.string(text))
                at = start + length + 1
            case UInt8(ascii: "a") where index + 1 < types.count && types[index + 1] == UInt8(ascii: "y"):
                guard align(4), bodyEnd - at >= 4 else { return nil }
                let length = Int(m.u32(at))
                let start = at + 4
                guard length <= bodyEnd - start else { return nil }
                arguments.append(.bytes(Data(UnsafeRawBufferPointer(rebasing: m.bytes[start..<start + length]))))
                at = start + length
                index += 1
            default: return nil
            }
            index += 1
        }
        return at == bodyEnd ? arguments : nil
    }
}
