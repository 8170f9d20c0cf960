/// A bytes reply — a D-Bus method return whose body is `(ay)`, as `FetchPayload`'s payload,
/// `GetRevocations`' list and `GetDiscoveryKey`'s key are — written and read without GLib
/// (D-Bus specification, "Message Format"): the bytes go from the answer into the message and
/// from the message read to the waiting call, with no `GDBusMessage` and no `GVariant` tree
/// between (issue 26: the warm continuation's reply).
///
/// Written byte for byte as GLib writes that reply (`g_dbus_message_to_blob`): little-endian,
/// flagged "no reply expected", with two header fields, the signature `ay` and the reply serial.
///
/// Reading is a narrow recogniser, not a second decoder, as `DBusDataSignal`'s is: `layout(of:)`
/// takes only a message it can vouch for whole — a method return, D-Bus version 1, known flags,
/// a serial, exactly the reply-serial and signature fields (a `sender` or `destination` field,
/// which a bus would add, or any other makes it not one), each once and of its type, zero
/// padding, and a body of exactly one `ay` whose length is the rest of the body. Anything else
/// goes to GLib's full decoding, which refuses what is malformed as before. The size check
/// (`DBusFraming`) has run before any of it was read.
package enum DBusBytesReply {
    /// The D-Bus type code of a method return, and the header field codes used here.
    static let methodReturnType: UInt8 = 2
    static let replySerialField = DBusMessageReader.replySerialField, signatureField = DBusMessageReader.signatureField
    /// The header fields it has.
    static let fieldsTaken = DBusMessageReader.mask(replySerialField, signatureField)
    /// Where the body starts: the fixed header, the signature (code, `g`, length, `ay`, NUL:
    /// 8 bytes), the reply serial (code, `u`, value: 8 bytes).
    static let bodyStart = 32

    /// Where a bytes reply's parts are in its message (offsets from the message's start).
    package struct Layout: Equatable {
        package let serial: UInt32
        package let replySerial: UInt32
        /// The body's `ay`.
        package let bytes: Range<Int>
    }

    /// The size of the reply `write(into:...)` writes for `count` bytes.
    package static func size(bytes count: Int) -> Int { bodyStart + 4 + count }

    /// Writes the reply to call `replySerial`, with serial `serial` and body `(bytes)`, into
    /// `buffer` (exactly `size(bytes:)` bytes), little-endian.
    package static func write(into buffer: UnsafeMutableRawBufferPointer, serial: UInt32, replySerial: UInt32,
                              bytes: UnsafeRawBufferPointer) {
        precondition(buffer.count == size(bytes: bytes.count))
        let b = buffer.baseAddress!
        func u32(_ value: UInt32, at offset: Int) { b.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self) }
        func u8(_ value: UInt8, at offset: Int) { b.storeBytes(of: value, toByteOffset: offset, as: UInt8.self) }
        b.initializeMemory(as: UInt8.self, repeating: 0, count: bodyStart)
        u8(UInt8(ascii: "l"), at: 0)
        u8(methodReturnType, at: 1)
        u8(1, at: 2)  // no reply expected, as GLib marks a reply
        u8(1, at: 3)
        u32(UInt32(4 + bytes.count), at: 4)
        u32(serial, at: 8)
        u32(UInt32(bodyStart - DBusFraming.fixedHeaderSize), at: 12)  // two fields of 8 bytes each
        // The signature: code, signature "g", then the length, "ay" and its NUL.
        u8(signatureField, at: 16)
        u8(1, at: 17)
        u8(UInt8(ascii: "g"), at: 18)
        u8(2, at: 20)
        u8(UInt8(ascii: "a"), at: 21)
        u8(UInt8(ascii: "y"), at: 22)
        // The reply serial: code, signature "u", then the value at offset 28.
        u8(replySerialField, at: 24)
        u8(1, at: 25)
        u8(UInt8(ascii: "u"), at: 26)
        u32(replySerial, at: 28)
        u32(UInt32(bytes.count), at: bodyStart)
        if !bytes.isEmpty { (b + bodyStart + 4).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
    }

    /// The parts of `message` (one whole message, as `DBusFraming` measured it) if it is a bytes
    /// reply as this type reads one; nil for any other message, well formed or not.
    package static func layout(of message: UnsafeRawBufferPointer) -> Layout? {
        // The two fields, each 8 bytes, in either order (GLib writes the signature first), and nothing else.
        guard let m = DBusMessageReader(message), m.type == methodReturnType, m.bodyStart == bodyStart, m.bodyLength >= 4,
              let fields = m.fields(allowed: fieldsTaken),
              let replySerial = fields.replySerial, replySerial != 0,
              let signature = fields.signature, message[signature].elementsEqual("ay".utf8),
              Int(m.u32(bodyStart)) == m.bodyLength - 4 else { return nil }
        return Layout(serial: m.serial, replySerial: replySerial, bytes: bodyStart + 4..<message.count)
    }
}
