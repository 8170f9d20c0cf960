import BatonLoop
import Foundation

/// The userInfo values Handoff carries, and their GVariant form (docs/PROTOCOL.md), written and
/// read as bytes directly (`WireWriter`, `WireReader`), with no tree of GVariant nodes.
///
/// One function decides both what is accepted and how it is encoded, so validation and
/// serialisation cannot disagree: `encode` is what `UserActivity.setUserInfo` validates with.
/// Accepted (implementing-handoff-in-your-app, "Update Activities While the User is Active"):
/// String, every integer type, Double, Float, Bool, NSNumber, Data, Date, URL, UUID, NSNull, and
/// arrays, sets and string-keyed dictionaries of them. Decoded numbers come back as `NSNumber`,
/// as on Apple's systems, so `as? Int`, `as? Double` and `as? Bool` all work.
///
/// The form of each value, boxed in a `v`: String `s`, signed integers `x`, unsigned `t`, Double
/// and Float `d`, Bool `b`, Data `ay`, Date `(d)` (seconds since 1970), URL `(s)`, UUID `(ay)` (16
/// bytes), NSNull `()`, arrays `av`, sets `(av)`, dictionaries `a{sv}` with their keys in the order
/// of their UTF-8 bytes (`WireWriter.precedes`) — byte for byte what GLib's builder makes from the
/// same values in that order.
enum UserInfoCoding {
    /// Validates `info` and writes it as `a{sv}`: the dictionary's bytes, or the first value
    /// (or key) Handoff cannot carry, named by its path.
    @discardableResult
    static func encode(_ info: [AnyHashable: Any]) throws(UserActivityError) -> WireWriter {
        var writer = WireWriter(capacity: 256)
        try encode(info, into: &writer)
        return writer
    }

    /// Writes `info` as `a{sv}` at the writer's position, which is 8-aligned.
    static func encode(_ info: [AnyHashable: Any], into writer: inout WireWriter) throws(UserActivityError) {
        do throws(UserInfoEncodingFailure) { try writeDictionary(entries(info), into: &writer) } catch { throw error.error }
    }

    private static func entries(_ info: [AnyHashable: Any]) throws(UserInfoEncodingFailure) -> [(key: String, value: Any)] {
        var entries: [(key: String, value: Any)] = []
        entries.reserveCapacity(info.count)
        for (key, value) in info {
            guard let name = key.base as? String else {
                throw UserInfoEncodingFailure(kind: .unsupportedKey(description: "\(key.base)", type: "\(type(of: key.base))"))
            }
            entries.append((name, value))
        }
        return entries
    }

    private static func writeDictionary(_ unsorted: [(key: String, value: Any)], into writer: inout WireWriter) throws(UserInfoEncodingFailure) {
        // The order, without moving the entries (copying an `Any` is dear): on the keys' first
        // eight bytes as a number, then on the whole keys; most comparisons are one integer
        // comparison.
        var order = unsorted.indices.map { (prefix: WireWriter.orderPrefix(unsorted[$0].key), index: $0) }
        order.sort { $0.prefix != $1.prefix ? $0.prefix < $1.prefix : WireWriter.precedes(unsorted[$0.index].key, unsorted[$1.index].key) }
        let array = writer.begin()
        for (_, index) in order {
            let (key, value) = unsorted[index]
            writer.align(7)
            let entry = writer.begin()
            guard writer.appendString(key) else { throw UserInfoEncodingFailure(kind: .keyContainsNUL(key)) }
            writer.markEnd(of: entry)
            writer.align(7)
            do throws(UserInfoEncodingFailure) { try writeBoxed(value, into: &writer) } catch { throw error.adding(.key(key)) }
            writer.finishTuple(entry)
            writer.markEnd(of: array)
        }
        writer.finishArray(array)
    }

    /// `av`, each item boxed; the writer is 8-aligned.
    private static func writeArray(_ items: some Sequence<Any>, set: Bool, into writer: inout WireWriter) throws(UserInfoEncodingFailure) {
        let array = writer.begin()
        for (index, item) in items.enumerated() {
            writer.align(7)
            do throws(UserInfoEncodingFailure) { try writeBoxed(item, into: &writer) } catch {
                throw set ? error.adding(.setMember) : error.adding(.index(index))
            }
            writer.markEnd(of: array)
        }
        writer.finishArray(array)
    }

    /// One value as a `v`: the value, a NUL, its type string. The writer is 8-aligned.
    private static func writeBoxed(_ value: Any, into writer: inout WireWriter) throws(UserInfoEncodingFailure) {
        switch ObjectIdentifier(type(of: value)) {
        // The common types by exact type first: a failed dynamic cast of an `Any` costs about
        // as much as encoding a whole value.
        case stringType:
            guard writer.appendString(value as! String) else { throw UserInfoEncodingFailure(kind: .valueContainsNUL) }
            writer.append("\0s")
        case intType: writer.append(Int64(value as! Int)); writer.append("\0x")
        case doubleType: writer.append(value as! Double); writer.append("\0d")
        case boolType: writer.appendByte((value as! Bool) ? 1 : 0); writer.append("\0b")
        case dateType: writer.append((value as! Date).timeIntervalSince1970); writer.append("\0(d)")
        case urlType:
            guard writer.appendString((value as! URL).absoluteString) else { throw UserInfoEncodingFailure(kind: .valueContainsNUL) }
            writer.append("\0(s)")
        case dataType: writer.append(value as! Data); writer.append("\0ay")
        case numberType:
            // By its own type, before the casts below: `as? Int` takes an integral double.
            writeNumber(value as! NSNumber, into: &writer)
        case stringArrayType:
            let array = writer.begin()
            for (index, item) in (value as! [String]).enumerated() {
                writer.align(7)
                guard writer.appendString(item) else { throw UserInfoEncodingFailure(kind: .valueContainsNUL, steps: [.index(index)]) }
                writer.append("\0s")
                writer.markEnd(of: array)
            }
            writer.finishArray(array)
            writer.append("\0av")
        case stringDictionaryType:
            try writeDictionary((value as! [String: Any]).map { ($0.key, $0.value) }, into: &writer)
            writer.append("\0a{sv}")
        default:
            try writeOther(value, into: &writer)
        }
    }

    /// The rest, by dynamic cast, in the order that decides which form a value takes.
    private static func writeOther(_ value: Any, into writer: inout WireWriter) throws(UserInfoEncodingFailure) {
        switch value {
        case let v as String:
            guard writer.appendString(v) else { throw UserInfoEncodingFailure(kind: .valueContainsNUL) }
            writer.append("\0s")
        case let v as Bool where type(of: value) == Bool.self: writer.appendByte(v ? 1 : 0); writer.append("\0b")
        case let v as Int: writeSigned(Int64(v), into: &writer)
        case let v as Int8: writeSigned(Int64(v), into: &writer)
        case let v as Int16: writeSigned(Int64(v), into: &writer)
        case let v as Int32: writeSigned(Int64(v), into: &writer)
        case let v as Int64: writeSigned(v, into: &writer)
        case let v as UInt: writeUnsigned(UInt64(v), into: &writer)
        case let v as UInt8: writeUnsigned(UInt64(v), into: &writer)
        case let v as UInt16: writeUnsigned(UInt64(v), into: &writer)
        case let v as UInt32: writeUnsigned(UInt64(v), into: &writer)
        case let v as UInt64: writeUnsigned(v, into: &writer)
        case let v as Double: writer.append(v); writer.append("\0d")
        case let v as Float: writer.append(Double(v)); writer.append("\0d")
        case let v as Data: writer.append(v); writer.append("\0ay")
        case let v as Date: writer.append(v.timeIntervalSince1970); writer.append("\0(d)")
        case let v as URL:
            guard writer.appendString(v.absoluteString) else { throw UserInfoEncodingFailure(kind: .valueContainsNUL) }
            writer.append("\0(s)")
        case let v as UUID:
            withUnsafeBytes(of: v.uuid) { writer.append($0) }
            writer.append("\0(ay)")
        case is NSNull: writer.appendByte(0); writer.append("\0()")
        case let v as [AnyHashable: Any]:
            try writeDictionary(entries(v), into: &writer)
            writer.append("\0a{sv}")
        case let v as Set<AnyHashable>:
            try writeArray(v.lazy.map(\.base), set: true, into: &writer)
            writer.append("\0(av)")
        case let v as [Any]:
            try writeArray(v, set: false, into: &writer)
            writer.append("\0av")
        case let v as NSNumber:  // last: casting a Foundation value to NSNumber bridges it first
            writeNumber(v, into: &writer)
        default:
            throw UserInfoEncodingFailure(kind: .unsupportedValue(type: "\(type(of: value))"))
        }
    }

    /// An NSNumber by the type it holds (as decoded numbers are): doubles as `d`, unsigned
    /// integers as `t`, the rest (signed integers, booleans) as `x`.
    private static func writeNumber(_ number: NSNumber, into writer: inout WireWriter) {
        switch String(cString: number.objCType) {
        case "d", "f": writer.append(number.doubleValue); writer.append("\0d")
        case "Q", "L", "I", "S", "C": writeUnsigned(number.uint64Value, into: &writer)
        default: writeSigned(number.int64Value, into: &writer)
        }
    }

    private static func writeSigned(_ value: Int64, into writer: inout WireWriter) {
        writer.append(value)
        writer.append("\0x")
    }

    private static func writeUnsigned(_ value: UInt64, into writer: inout WireWriter) {
        writer.append(value)
        writer.append("\0t")
    }

    private static let dateType = ObjectIdentifier(Date.self)
    private static let urlType = ObjectIdentifier(URL.self)
    private static let dataType = ObjectIdentifier(Data.self)
    private static let stringArrayType = ObjectIdentifier([String].self)
    private static let stringDictionaryType = ObjectIdentifier([String: Any].self)
    private static let stringType = ObjectIdentifier(String.self)
    private static let intType = ObjectIdentifier(Int.self)
    private static let doubleType = ObjectIdentifier(Double.self)
    private static let boolType = ObjectIdentifier(Bool.self)
    private static let numberType = ObjectIdentifier(NSNumber.self)

    // MARK: Decoding

    /// Reads an `a{sv}` userInfo at `(start, size)`, `depth` deep in the payload, checking normal
    /// form as GLib does while it decodes.
    static func decodeDictionary(_ reader: WireReader, _ start: Int, _ size: Int, depth: Int) throws(UserInfoDecodingFailure) -> [String: Any] {
        try decodeDictionary(reader, start, size, depth: depth) { $0 }
    }

    /// The userInfo itself, keyed as `UserActivity.userInfo` is, so that storing it converts
    /// nothing.
    static func decodeUserInfo(_ reader: WireReader, _ start: Int, _ size: Int, depth: Int) throws(UserInfoDecodingFailure) -> [AnyHashable: Any] {
        try decodeDictionary(reader, start, size, depth: depth) { AnyHashable($0) }
    }

    @inline(__always)
    private static func decodeDictionary<Key: Hashable>(_ reader: WireReader, _ start: Int, _ size: Int, depth: Int,
                                                        keyedBy makeKey: (String) -> Key) throws(UserInfoDecodingFailure) -> [Key: Any] {
        var result: [Key: Any] = [:]
        result.reserveCapacity(reader.itemCount(start, size))
        // `variableItems` throws only `WireFormatError`: an item's own failure is kept here and
        // stops the walk, then is what is thrown.
        var carried: UserInfoDecodingFailure?
        do throws(WireFormatError) {
            try reader.variableItems(start, size, alignmentMask: 7) { (itemStart, itemSize) throws(WireFormatError) in
                let (key, valueStart, valueSize) = try reader.entry(itemStart, itemSize, depth + 1)
                let value: Any
                do throws(UserInfoDecodingFailure) { value = try decodeBoxed(reader, valueStart, valueSize, depth: depth + 2) } catch {
                    carried = error.adding(.key(key))
                    throw .notNormalForm
                }
                guard result.updateValue(value, forKey: makeKey(key)) == nil else { throw .duplicateKey(key) }
            }
        } catch {
            throw carried ?? .wire(error)
        }
        return result
    }

    /// One boxed userInfo value at `(start, size)`, the `v` being `depth` deep.
    private static func decodeBoxed(_ reader: WireReader, _ start: Int, _ size: Int, depth: Int) throws(UserInfoDecodingFailure) -> Any {
        do {
            let (inner, typeBytes) = try reader.boxed(start, size, depth)
            let kind = typeBytes.count == 1 ? typeBytes[0] : 0
            switch kind {
            case UInt8(ascii: "s"):
                try reader.boxedDepth(1, depth)
                return try reader.string(start, inner, depth + 1)
            case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"):
                guard inner == 8 else { throw WireFormatError.notNormalForm }
                try reader.boxedDepth(1, depth)
                try reader.terminal(8, depth + 1)
                let bits = reader.uint64(start)
                return kind == UInt8(ascii: "x") ? NSNumber(value: Int64(bitPattern: bits))
                    : kind == UInt8(ascii: "t") ? NSNumber(value: bits) : NSNumber(value: Double(bitPattern: bits))
            case UInt8(ascii: "b"):
                guard inner == 1 else { throw WireFormatError.notNormalForm }
                try reader.boxedDepth(1, depth)
                try reader.terminal(1, depth + 1)
                let bit = reader.byte(start)
                guard bit < 2 else { throw WireFormatError.notNormalForm }
                return bit == 1
            default: break
            }
            switch Tagged(typeBytes) {
            case .bytes:
                try reader.boxedDepth(2, depth)
                return try bytes(reader, start, inner, depth: depth + 1)
            case .array:
                try reader.boxedDepth(2, depth)
                return try decodeArray(reader, start, inner, depth: depth + 1)
            case .dictionary:
                try reader.boxedDepth(3, depth)
                return try decodeDictionary(reader, start, inner, depth: depth + 1)
            case .date:
                guard inner == 8 else { throw WireFormatError.notNormalForm }
                try reader.boxedDepth(2, depth)
                try reader.terminal(8, depth + 2)
                return Date(timeIntervalSince1970: Double(bitPattern: reader.uint64(start)))
            case .url:  // (s): the string is the tuple's last member, no framing offset
                try reader.boxedDepth(2, depth)
                let text = try reader.string(start, inner, depth + 2)
                guard let url = URL(string: text) else { throw UserInfoDecodingFailure.notUserInfo(steps: [], reason: "'\(text)' is not a URL") }
                return url
            case .uuid:  // (ay)
                try reader.boxedDepth(3, depth)
                let data = try bytes(reader, start, inner, depth: depth + 2)
                guard data.count == 16 else {
                    throw UserInfoDecodingFailure.notUserInfo(steps: [], reason: "a UUID needs 16 bytes, not \(data.count)")
                }
                return data.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            case .set:  // (av)
                try reader.boxedDepth(3, depth)
                var set = Set<AnyHashable>()
                do throws(UserInfoDecodingFailure) {
                    for value in try decodeArray(reader, start, inner, depth: depth + 2) {
                        guard let element = value as? AnyHashable else {
                            throw UserInfoDecodingFailure.notUserInfo(steps: [], reason: "a set element is not hashable")
                        }
                        set.insert(element)
                    }
                } catch { throw error.adding(.setMember) }
                return set
            case .null:  // ()
                guard inner == 1 else { throw WireFormatError.notNormalForm }
                try reader.boxedDepth(0, depth)
                guard reader.byte(start) == 0 else { throw WireFormatError.notNormalForm }
                return NSNull()
            case nil:
                // Well-formed or not, it is refused; bytes that are not a normal-form Variant
                // are refused as such first, as GLib's check came first.
                let type = try reader.boxedType(typeBytes, size: inner, depth: depth)
                _ = try reader.value(type, start, inner, depth + 1)
                if case .tuple(let members) = type {
                    throw UserInfoDecodingFailure.notUserInfo(steps: [], reason: members.count == 1
                        ? "the tuple (\(members[0].typeString)) is not a userInfo value" : "a tuple of \(members.count) is not a userInfo value")
                }
                throw UserInfoDecodingFailure.notUserInfo(steps: [], reason: "GVariant type \(type.typeString) is not a userInfo value")
            }
        } catch let error as WireFormatError {
            throw .wire(error)
        } catch let error as UserInfoDecodingFailure {
            throw error
        } catch {
            throw .wire(.notNormalForm)  // not reached: only the two above are thrown
        }
    }

    private static func bytes(_ reader: WireReader, _ start: Int, _ size: Int, depth: Int) throws(WireFormatError) -> Data {
        if size > 0 { try reader.terminal(1, depth + 1) }
        return Data(UnsafeRawBufferPointer(rebasing: reader.bytes[start..<(start + size)]))
    }

    /// `av` at `(start, size)`, the array `depth` deep.
    private static func decodeArray(_ reader: WireReader, _ start: Int, _ size: Int, depth: Int) throws(UserInfoDecodingFailure) -> [Any] {
        var values: [Any] = []
        values.reserveCapacity(reader.itemCount(start, size))
        var carried: UserInfoDecodingFailure?
        do throws(WireFormatError) {
            try reader.variableItems(start, size, alignmentMask: 7) { (itemStart, itemSize) throws(WireFormatError) in
                do throws(UserInfoDecodingFailure) { values.append(try decodeBoxed(reader, itemStart, itemSize, depth: depth + 1)) } catch {
                    carried = error.adding(.index(values.count))
                    throw .notNormalForm
                }
            }
        } catch {
            throw carried ?? .wire(error)
        }
        return values
    }

    /// The boxed types of more than one character that userInfo values take.
    private enum Tagged {
        case bytes, array, dictionary, date, url, uuid, set, null

        init?(_ type: UnsafeRawBufferPointer) {
            switch type.count {
            case 2:
                guard type[0] == UInt8(ascii: "a") || type[0] == UInt8(ascii: "(") else { return nil }
                if type[0] == UInt8(ascii: "(") { if type[1] == UInt8(ascii: ")") { self = .null; return } else { return nil } }
                switch type[1] {
                case UInt8(ascii: "y"): self = .bytes
                case UInt8(ascii: "v"): self = .array
                default: return nil
                }
            case 3:
                guard type[0] == UInt8(ascii: "("), type[2] == UInt8(ascii: ")") else { return nil }
                switch type[1] {
                case UInt8(ascii: "d"): self = .date
                case UInt8(ascii: "s"): self = .url
                default: return nil
                }
            case 4:
                guard type[0] == UInt8(ascii: "("), type[1] == UInt8(ascii: "a"), type[3] == UInt8(ascii: ")") else { return nil }
                switch type[2] {
                case UInt8(ascii: "y"): self = .uuid
                case UInt8(ascii: "v"): self = .set
                default: return nil
                }
            case 5:
                guard Tagged.matches(type, "a{sv}") else { return nil }
                self = .dictionary
            default: return nil
            }
        }

        private static func matches(_ type: UnsafeRawBufferPointer, _ text: StaticString) -> Bool {
            type.count == text.utf8CodeUnitCount && memcmp(type.baseAddress!, text.utf8Start, type.count) == 0
        }
    }
}
