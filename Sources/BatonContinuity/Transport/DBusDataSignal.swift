/// A data signal — a D-Bus signal whose body is `(uay)`, a number and bytes, as a continuation
/// stream's `StreamData` is — written and read without GLib (D-Bus specification, "Message
/// Format"): the bytes go from the caller's buffer into the message, and from the message read
/// to the reader, with no `GDBusMessage` and no `GVariant` between, each a copy and an
/// allocation or more (issue 26: stream throughput).
///
/// Reading is a narrow recogniser, not a second decoder: `layout(of:)` takes only a message it
/// can vouch for whole — a signal, D-Bus version 1, known flags, a serial, exactly the path,
/// interface, member and signature header fields, each once and of its type, every string
/// ending in its NUL within the header, zero padding, and a body of exactly one `u` and one `ay`
/// whose length is the rest of the body. Anything else (another field, another type, a length
/// that does not add up) is not a data signal here, and goes to GLib's full decoding, which
/// refuses what is malformed as before. The connection takes it only when the path, interface
/// and member are, byte for byte, those of a subscription (valid names by construction), so
/// what it takes is what GLib would have decoded, to the same values. The size check
/// (`DBusFraming`) has run before any of it was read.
package enum DBusDataSignal {
    /// The D-Bus type code of a signal, and the header field codes used here.
    static let signalType: UInt8 = 4
    static let pathField = DBusMessageReader.pathField, interfaceField = DBusMessageReader.interfaceField,
               memberField = DBusMessageReader.memberField, signatureField = DBusMessageReader.signatureField
    /// The body's signature.
    static let signature: [UInt8] = Array("uay".utf8)
    /// The header fields it has.
    static let fieldsTaken = DBusMessageReader.mask(pathField, interfaceField, memberField, signatureField)

    /// Where a data signal's parts are in its message (offsets from the message's start).
    package struct Layout: Equatable {
        package let serial: UInt32
        package let path: Range<Int>
        package let interface: Range<Int>
        package let member: Range<Int>
        /// The body's `u`.
        package let number: UInt32
        /// The body's `ay`.
        package let bytes: Range<Int>
    }

    /// The parts of `message` (one whole message, as `DBusFraming` measured it) if it is a data
    /// signal as this type reads one; nil for any other message, well formed or not.
    package static func layout(of message: UnsafeRawBufferPointer) -> Layout? {
        guard let m = DBusMessageReader(message), m.type == signalType, m.bodyLength >= 8,
              let fields = m.fields(allowed: fieldsTaken),
              let path = fields.path, let interface = fields.interface, let member = fields.member,
              let signature = fields.signature, message[signature].elementsEqual(Self.signature) else { return nil }
        let count = Int(m.u32(m.bodyStart + 4))
        guard count == m.bodyLength - 8 else { return nil }
        return Layout(serial: m.serial, path: path, interface: interface, member: member, number: m.u32(m.bodyStart),
                      bytes: m.bodyStart + 8..<message.count)
    }

    /// The size of the data signal `message(into:...)` writes.
    package static func size(path: String, interface: String, member: String, bytes: Int) -> Int {
        bodyStart(path: path, interface: interface, member: member) + 8 + bytes
    }

    /// Where the body starts: the fixed header, the four fields each at a multiple of 8, the last
    /// unpadded, then padding to 8.
    private static func bodyStart(path: String, interface: String, member: String) -> Int {
        (fieldsEnd(path: path, interface: interface, member: member) + 7) & ~7
    }

    private static func fieldsEnd(path: String, interface: String, member: String) -> Int {
        var end = DBusFraming.fixedHeaderSize
        for string in [path, interface, member] { end = ((end + 7) & ~7) + 8 + string.utf8.count + 1 }
        return ((end + 7) & ~7) + 5 + signature.count + 1
    }

    /// Writes the data signal `member` of `interface` at `path` with serial `serial` and body
    /// `(number, bytes)` into `buffer` (exactly `size(...)` bytes), little-endian. The names must
    /// be valid D-Bus names (the caller's declared ones; they are not checked here).
    package static func write(into buffer: UnsafeMutableRawBufferPointer, serial: UInt32, path: String, interface: String,
                              member: String, number: UInt32, bytes: UnsafeRawBufferPointer) {
        let fieldsEnd = fieldsEnd(path: path, interface: interface, member: member)
        let bodyStart = (fieldsEnd + 7) & ~7
        precondition(buffer.count == bodyStart + 8 + bytes.count)
        let b = buffer.baseAddress!
        func u32(_ value: UInt32, at offset: Int) { b.storeBytes(of: value.littleEndian, toByteOffset: offset, as: UInt32.self) }
        b.initializeMemory(as: UInt8.self, repeating: 0, count: bodyStart)
        b.storeBytes(of: UInt8(ascii: "l"), toByteOffset: 0, as: UInt8.self)
        b.storeBytes(of: signalType, toByteOffset: 1, as: UInt8.self)
        b.storeBytes(of: 1, toByteOffset: 2, as: UInt8.self)  // no reply expected, as GLib marks a signal
        b.storeBytes(of: 1, toByteOffset: 3, as: UInt8.self)
        u32(UInt32(8 + bytes.count), at: 4)
        u32(serial, at: 8)
        u32(UInt32(fieldsEnd - DBusFraming.fixedHeaderSize), at: 12)
        var offset = DBusFraming.fixedHeaderSize
        func field(_ code: UInt8, _ type: Character) {
            offset = (offset + 7) & ~7
            b.storeBytes(of: code, toByteOffset: offset, as: UInt8.self)
            b.storeBytes(of: 1, toByteOffset: offset + 1, as: UInt8.self)
            b.storeBytes(of: type.asciiValue!, toByteOffset: offset + 2, as: UInt8.self)
        }
        func copy(_ value: some Collection<UInt8>, at start: Int) {
            UnsafeMutableRawBufferPointer(start: b + start, count: value.count).copyBytes(from: value)
        }
        for (code, type, string) in [(pathField, Character("o"), path), (interfaceField, "s", interface), (memberField, "s", member)] {
            field(code, type)
            u32(UInt32(string.utf8.count), at: offset + 4)
            copy(string.utf8, at: offset + 8)
            offset += 8 + string.utf8.count + 1  // the NUL is among the zeros written first
        }
        field(signatureField, "g")
        b.storeBytes(of: UInt8(signature.count), toByteOffset: offset + 4, as: UInt8.self)
        copy(signature, at: offset + 5)
        u32(number, at: bodyStart)
        u32(UInt32(bytes.count), at: bodyStart + 4)
        if !bytes.isEmpty { (b + bodyStart + 8).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
    }
}
