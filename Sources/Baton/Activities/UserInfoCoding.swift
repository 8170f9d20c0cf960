import Foundation

/// The userInfo values Handoff carries, and their GVariant form (docs/PROTOCOL.md).
///
/// One function decides both what is accepted and how it is encoded, so validation and
/// serialisation cannot disagree. Accepted (implementing-handoff-in-your-app, "Update
/// Activities While the User is Active"): String, every integer type, Double, Float, Bool,
/// NSNumber, Data, Date, URL, UUID, NSNull, and arrays, sets and string-keyed dictionaries of
/// them. Decoded numbers come back as `NSNumber`, as on Apple's systems, so `as? Int`,
/// `as? Double` and `as? Bool` all work.
enum UserInfoCoding {
    static func encode(_ info: [AnyHashable: Any], path: String = "") throws(UserActivityError) -> Variant {
        var entries: [String: Variant] = [:]
        for (key, value) in info {
            guard let name = key.base as? String else {
                throw .unsupportedUserInfoKey(key: path + "\(key.base)", type: "\(type(of: key.base))")
            }
            guard !name.utf8.contains(0) else { throw .stringContainsNUL(field: "userInfo key \(path)\(name.debugDescription)") }
            entries[name] = try encode(value, path: path.isEmpty ? name : "\(path).\(name)")
        }
        return .dictionary(entries)
    }

    static func encode(_ value: Any, path: String) throws(UserActivityError) -> Variant {
        if let scalar = try encodeCommonScalar(value, path: path) { return scalar }
        switch value {
        case let v as String:
            guard !v.utf8.contains(0) else { throw .stringContainsNUL(field: "userInfo[\(path)]") }
            return .string(v)
        case let v as Bool where type(of: value) == Bool.self: return .bool(v)
        case let v as Int: return .int64(Int64(v))
        case let v as Int8: return .int64(Int64(v))
        case let v as Int16: return .int64(Int64(v))
        case let v as Int32: return .int64(Int64(v))
        case let v as Int64: return .int64(v)
        case let v as UInt: return .uint64(UInt64(v))
        case let v as UInt8: return .uint64(UInt64(v))
        case let v as UInt16: return .uint64(UInt64(v))
        case let v as UInt32: return .uint64(UInt64(v))
        case let v as UInt64: return .uint64(v)
        case let v as Double: return .double(v)
        case let v as Float: return .double(Double(v))
        case let v as Data: return .bytes(v)
        case let v as Date: return .tuple([.double(v.timeIntervalSince1970)])
        case let v as URL: return .tuple([.string(v.absoluteString)])
        case let v as UUID: return .tuple([.bytes(withUnsafeBytes(of: v.uuid) { Data($0) })])
        case is NSNull: return .tuple([])
        case let v as [AnyHashable: Any]: return try encode(v, path: path)
        case let v as Set<AnyHashable>:
            var items: [Variant] = []
            for item in v { items.append(.boxed(try encode(item.base, path: "\(path){}"))) }
            return .tuple([.array(elementType: "v", items)])
        case let v as [Any]:
            var items: [Variant] = []
            for (index, item) in v.enumerated() { items.append(.boxed(try encode(item, path: "\(path)[\(index)]"))) }
            return .array(elementType: "v", items)
        case let v as NSNumber:  // last: casting a Foundation value to NSNumber bridges it first
            return encode(number: v)
        default:
            throw .unsupportedUserInfoValue(key: path, type: "\(type(of: value))")
        }
    }

    /// The common scalar types by exact type, before the chain of casts below: a failed
    /// dynamic cast of an `Any` costs about as much as encoding a whole value.
    private static func encodeCommonScalar(_ value: Any, path: String) throws(UserActivityError) -> Variant? {
        switch ObjectIdentifier(type(of: value)) {
        case stringType:
            let v = value as! String
            guard !v.utf8.contains(0) else { throw .stringContainsNUL(field: "userInfo[\(path)]") }
            return .string(v)
        case intType: return .int64(Int64(value as! Int))
        case doubleType: return .double(value as! Double)
        case boolType: return .bool(value as! Bool)
        case dateType: return .tuple([.double((value as! Date).timeIntervalSince1970)])
        case urlType: return .tuple([.string((value as! URL).absoluteString)])
        case dataType: return .bytes(value as! Data)
        case stringArrayType:
            var items: [Variant] = []
            for (index, item) in (value as! [String]).enumerated() {
                guard !item.utf8.contains(0) else { throw .stringContainsNUL(field: "userInfo[\(path)[\(index)]]") }
                items.append(.boxed(.string(item)))
            }
            return .array(elementType: "v", items)
        case stringDictionaryType:
            return try encode((value as! [String: Any]) as [AnyHashable: Any], path: path)
        default: return nil
        }
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

    private static func encode(number: NSNumber) -> Variant {
        switch String(cString: number.objCType) {
        case "d", "f": .double(number.doubleValue)
        case "Q", "L", "I", "S", "C": .uint64(number.uint64Value)
        default: .int64(number.int64Value)
        }
    }

    static func decode(_ variant: Variant, path: String) throws(UserActivityError) -> Any {
        switch variant {
        case .string(let v): return v
        case .bool(let v): return v
        case .int64(let v): return NSNumber(value: v)
        case .uint64(let v): return NSNumber(value: v)
        case .double(let v): return NSNumber(value: v)
        case .bytes(let v): return v
        case .dictionary(let entries): return try decodeDictionary(entries, path: path)
        case .array(elementType: "v", let items):
            return try decodeBoxed(items, path: path)
        case .tuple(let items):
            return try decodeTagged(items, path: path)
        default:
            throw malformed(path, "GVariant type \(variant.typeString) is not a userInfo value")
        }
    }

    private static func decodeBoxed(_ items: [Variant], path: String) throws(UserActivityError) -> [Any] {
        var values: [Any] = []
        for (index, item) in items.enumerated() {
            guard case .boxed(let inner) = item else { throw malformed(path, "an array element is not boxed") }
            values.append(try decode(inner, path: "\(path)[\(index)]"))
        }
        return values
    }

    /// The one-element tuples that tag Date, URL, UUID and Set, and the unit tuple for NSNull.
    private static func decodeTagged(_ items: [Variant], path: String) throws(UserActivityError) -> Any {
        guard let only = items.first else { return NSNull() }
        guard items.count == 1 else { throw malformed(path, "a tuple of \(items.count) is not a userInfo value") }
        switch only {
        case .double(let seconds):
            return Date(timeIntervalSince1970: seconds)
        case .string(let text):
            guard let url = URL(string: text) else { throw malformed(path, "'\(text)' is not a URL") }
            return url
        case .bytes(let bytes):
            guard bytes.count == 16 else { throw malformed(path, "a UUID needs 16 bytes, not \(bytes.count)") }
            let t = Array(bytes)
            return UUID(uuid: (t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13], t[14], t[15]))
        case .array(elementType: "v", let elements):
            var set = Set<AnyHashable>()
            for value in try decodeBoxed(elements, path: "\(path){}") {
                guard let element = value as? AnyHashable else { throw malformed(path, "a set element is not hashable") }
                set.insert(element)
            }
            return set
        default:
            throw malformed(path, "the tuple (\(only.typeString)) is not a userInfo value")
        }
    }

    static func decodeDictionary(_ entries: [String: Variant], path: String) throws(UserActivityError) -> [String: Any] {
        var result: [String: Any] = [:]
        for (key, value) in entries {
            result[key] = try decode(value, path: path.isEmpty ? key : "\(path).\(key)")
        }
        return result
    }

    private static func malformed(_ path: String, _ reason: String) -> UserActivityError {
        .malformedPayload(reason: "userInfo[\(path)]: \(reason)")
    }
}
