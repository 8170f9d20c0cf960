/// One whole D-Bus message read in its own byte order, for Baton's recognisers of the message
/// shapes it reads without GLib (`DBusBasicMessage`, `DBusDataSignal`, `DBusBytesReply`; D-Bus
/// specification, "Message Format"): the fixed header checked once, values read at offsets, and
/// the header fields walked with every rule the recognisers share.
struct DBusMessageReader {
    /// The flags a message may carry: no reply expected, no auto start, interactive authorization.
    static let knownFlags: UInt8 = 0x7
    static let pathField: UInt8 = 1, interfaceField: UInt8 = 2, memberField: UInt8 = 3, replySerialField: UInt8 = 5,
               signatureField: UInt8 = 8

    let bytes: UnsafeRawBufferPointer
    private let little: Bool
    /// The message type (1 call, 2 return, 3 error, 4 signal) and its flags.
    let type: UInt8, flags: UInt8
    let serial: UInt32
    /// Where the header fields end, and where the body starts (the next multiple of 8).
    let fieldsEnd: Int, bodyStart: Int

    /// The message in `message` (one whole message, as `DBusFraming` measured it), or nil unless
    /// its byte order is `l` or `B`, its version 1, its flags known, its serial not 0 and its
    /// fields and body exactly fill it.
    init?(_ message: UnsafeRawBufferPointer) {
        guard message.count >= DBusFraming.fixedHeaderSize else { return nil }
        switch message[0] {
        case UInt8(ascii: "l"): little = true
        case UInt8(ascii: "B"): little = false
        default: return nil
        }
        bytes = message
        (type, flags) = (message[1], message[2])
        guard flags & ~Self.knownFlags == 0, message[3] == 1 else { return nil }
        let bodyLength = Int(Self.u32(message, 4, little: little))
        serial = Self.u32(message, 8, little: little)
        fieldsEnd = DBusFraming.fixedHeaderSize + Int(Self.u32(message, 12, little: little))
        bodyStart = (fieldsEnd + 7) & ~7
        guard serial != 0, bodyStart <= message.count, message.count - bodyStart == bodyLength else { return nil }
    }

    private static func u32(_ bytes: UnsafeRawBufferPointer, _ offset: Int, little: Bool) -> UInt32 {
        let raw = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        return little ? UInt32(littleEndian: raw) : UInt32(bigEndian: raw)
    }

    var bodyLength: Int { bytes.count - bodyStart }

    func u32(_ offset: Int) -> UInt32 { Self.u32(bytes, offset, little: little) }

    func u64(_ offset: Int) -> UInt64 {
        let raw = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
        return little ? UInt64(littleEndian: raw) : UInt64(bigEndian: raw)
    }

    func zeros(_ range: Range<Int>) -> Bool { range.allSatisfy { bytes[$0] == 0 } }

    /// The header fields a recogniser takes: where each string's bytes are (without their NUL),
    /// and the reply serial.
    struct Fields {
        var path: Range<Int>?, interface: Range<Int>?, member: Range<Int>?, signature: Range<Int>?
        var replySerial: UInt32?
    }

    /// The field codes `codes` as the mask `fields(allowed:)` takes.
    static func mask(_ codes: UInt8...) -> UInt32 { codes.reduce(0) { $0 | 1 << UInt32($1) } }

    /// The header fields, if each is one of `allowed` (a mask of field codes, `mask(_:)`), of
    /// its type (path `o`; interface and member `s`; signature `g`; reply serial `u`), there
    /// once, at a multiple of 8 with zero padding up to the next and to the body, and each string
    /// ends in its NUL within the fields with no NUL before it; nil otherwise.
    func fields(allowed: UInt32) -> Fields? {
        var fields = Fields()
        var offset = DBusFraming.fixedHeaderSize
        while offset < fieldsEnd {
            // A field: its code, a variant's one-type signature, then the value, within the fields.
            guard fieldsEnd - offset >= 8, bytes[offset + 1] == 1, bytes[offset + 3] == 0 else { return nil }
            let code = bytes[offset], fieldType = bytes[offset + 2]
            guard code < 32, allowed & 1 << UInt32(code) != 0 else { return nil }
            let end: Int
            switch (code, fieldType) {
            case (Self.pathField, UInt8(ascii: "o")), (Self.interfaceField, UInt8(ascii: "s")), (Self.memberField, UInt8(ascii: "s")),
                 (Self.signatureField, UInt8(ascii: "g")):
                let isSignature = code == Self.signatureField
                let length = isSignature ? Int(bytes[offset + 4]) : Int(u32(offset + 4))  // at a multiple of 4
                let valueStart = offset + (isSignature ? 5 : 8)
                guard length < fieldsEnd - valueStart, bytes[valueStart + length] == 0 else { return nil }
                let value = valueStart..<valueStart + length
                guard !bytes[value].contains(0) else { return nil }
                switch code {
                case Self.pathField where fields.path == nil: fields.path = value
                case Self.interfaceField where fields.interface == nil: fields.interface = value
                case Self.memberField where fields.member == nil: fields.member = value
                case Self.signatureField where fields.signature == nil: fields.signature = value
                default: return nil  // a field twice
                }
                end = value.upperBound + 1
            case (Self.replySerialField, UInt8(ascii: "u")) where fields.replySerial == nil:
                fields.replySerial = u32(offset + 4)
                end = offset + 8
            default: return nil
            }
            let next = end == fieldsEnd ? end : (end + 7) & ~7
            guard next <= fieldsEnd, zeros(end..<next) else { return nil }
            offset = next
        }
        guard zeros(fieldsEnd..<bodyStart) else { return nil }
        return fields
    }
}
