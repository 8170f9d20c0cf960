import CGLib
import Foundation

/// A value of GLib's GVariant type system, as a Swift enum, with GLib's own serialisation.
///
/// Baton's payloads and wire messages are Variants: `serialized()` gives GVariant's normal
/// form, little-endian on every host; `init(serialized:type:)` takes untrusted bytes and
/// refuses anything that is not in normal form or not of the expected type, with a typed
/// error, never a trap.
public indirect enum Variant: Equatable, Sendable {
    /// A boolean, type `b`.
    case bool(Bool)
    /// A signed 64-bit integer, type `x`.
    case int64(Int64)
    /// An unsigned 64-bit integer, type `t`.
    case uint64(UInt64)
    /// An unsigned 32-bit integer, type `u`.
    case uint32(UInt32)
    /// A double, type `d`.
    case double(Double)
    /// A UTF-8 string, type `s`; it may not contain NUL characters.
    case string(String)
    /// Bytes, type `ay`.
    case bytes(Data)
    /// A tuple of the values' types, `(…)`; `()` for none.
    case tuple([Variant])
    /// An array of elements of one type, `a` followed by `elementType` (which an empty array
    /// needs to have a type at all).
    case array(elementType: String, [Variant])
    /// A dictionary of strings to boxed values, type `a{sv}`; serialised with its keys sorted,
    /// so equal dictionaries give equal bytes.
    case dictionary([String: Variant])
    /// A value in a box, type `v`: its type travels with it.
    case boxed(Variant)

    /// The GVariant type string, e.g. `a{sv}`.
    public var typeString: String {
        switch self {
        case .bool: "b"
        case .int64: "x"
        case .uint64: "t"
        case .uint32: "u"
        case .double: "d"
        case .string: "s"
        case .bytes: "ay"
        case .tuple(let items): "(" + items.map(\.typeString).joined() + ")"
        case .array(let elementType, _): "a" + elementType
        case .dictionary: "a{sv}"
        case .boxed: "v"
        }
    }

    /// GVariant's serialised normal form, little-endian.
    public func serialized() throws(VariantError) -> Data {
        let value = g_variant_ref_sink(try makeGVariant())!
        defer { g_variant_unref(value) }
        let normal = g_variant_get_normal_form(value)!
        defer { g_variant_unref(normal) }
        let ordered = isLittleEndianHost ? g_variant_ref(normal)! : g_variant_byteswap(normal)!
        defer { g_variant_unref(ordered) }
        let size = g_variant_get_size(ordered)
        guard size > 0, let bytes = g_variant_get_data(ordered) else { return Data() }
        return Data(bytes: bytes, count: Int(size))
    }

    /// Decodes untrusted bytes that must be the normal form of a value of `type`, a definite
    /// GVariant type string (one that names a single type: no `*`, `?`, `r` or `{?*}`);
    /// any other type string is refused as `invalidTypeString`.
    public init(serialized data: Data, type: String) throws(VariantError) {
        guard !type.utf8.contains(0), type.withCString({
            g_variant_type_string_is_valid($0) != 0 && g_variant_type_is_definite(baton_variant_type($0)) != 0
        }) else {
            throw .invalidTypeString(type)
        }
        let bytes = data.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }!
        defer { g_bytes_unref(bytes) }
        let raw = type.withCString { g_variant_new_from_bytes(baton_variant_type($0), bytes, 0) }!
        let value = g_variant_ref_sink(raw)!
        defer { g_variant_unref(value) }
        let native = isLittleEndianHost ? g_variant_ref(value)! : g_variant_byteswap(value)!
        defer { g_variant_unref(native) }
        guard g_variant_is_normal_form(native) != 0 else { throw .notNormalForm(type: type, size: data.count) }
        self = try Variant(reading: native)
    }

    /// Reads a GVariant (any type this enum covers).
    public init(reading value: OpaquePointer) throws(VariantError) {
        switch UInt8(truncatingIfNeeded: g_variant_classify(value).rawValue) {
        case UInt8(ascii: "b"): self = .bool(g_variant_get_boolean(value) != 0)
        case UInt8(ascii: "x"): self = .int64(Int64(g_variant_get_int64(value)))
        case UInt8(ascii: "t"): self = .uint64(UInt64(g_variant_get_uint64(value)))
        case UInt8(ascii: "u"): self = .uint32(g_variant_get_uint32(value))
        case UInt8(ascii: "d"): self = .double(g_variant_get_double(value))
        case UInt8(ascii: "s"): self = .string(String(cString: g_variant_get_string(value, nil)))
        case UInt8(ascii: "v"):
            let inner = g_variant_get_variant(value)!
            defer { g_variant_unref(inner) }
            self = .boxed(try Variant(reading: inner))
        case UInt8(ascii: "("):
            self = .tuple(try Variant.children(of: value))
        case UInt8(ascii: "a"):
            self = try Variant(readingArray: value)
        default:
            throw .unsupportedType(String(cString: g_variant_get_type_string(value)))
        }
    }

    /// From this size on, `ay` read from a GVariant shares its memory instead of copying it.
    static let sharedBytesThreshold: gsize = 4096

    /// `ay` as bytes, `a{sv}` as a dictionary, any other array as an array.
    private init(readingArray value: OpaquePointer) throws(VariantError) {
        let type = g_variant_get_type_string(value)!
        if type[1] == UInt8(ascii: "y") && type[2] == 0 {
            var count: gsize = 0
            let pointer = g_variant_get_fixed_array(value, &count, 1)
            if count >= Self.sharedBytesThreshold, let pointer {
                // Large bytes are not copied: the Data holds a reference to the (immutable)
                // GVariant, released when the Data goes.
                let address = UInt(bitPattern: g_variant_ref(value))
                self = .bytes(Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: pointer), count: Int(count),
                                   deallocator: .custom { _, _ in g_variant_unref(OpaquePointer(bitPattern: address)) }))
            } else {
                self = .bytes(count == 0 || pointer == nil ? Data() : Data(bytes: pointer!, count: Int(count)))
            }
        } else if strcmp(type, "a{sv}") == 0 {
            var entries: [String: Variant] = [:]
            let count = g_variant_n_children(value)
            entries.reserveCapacity(Int(count))
            for index in 0..<count {
                let entry = g_variant_get_child_value(value, index)!
                defer { g_variant_unref(entry) }
                let key = g_variant_get_child_value(entry, 0)!, boxed = g_variant_get_child_value(entry, 1)!
                defer { g_variant_unref(key); g_variant_unref(boxed) }
                let name = String(cString: g_variant_get_string(key, nil))
                guard entries[name] == nil else { throw .duplicateKey(name) }
                let inner = g_variant_get_variant(boxed)!
                defer { g_variant_unref(inner) }
                entries[name] = try Variant(reading: inner)
            }
            self = .dictionary(entries)
        } else if type[1] == UInt8(ascii: "{") {
            throw .unsupportedType(String(cString: type))
        } else {
            self = .array(elementType: String(cString: type + 1), try Variant.children(of: value))
        }
    }

    private static func children(of value: OpaquePointer) throws(VariantError) -> [Variant] {
        var items: [Variant] = []
        for index in 0..<g_variant_n_children(value) {
            let child = g_variant_get_child_value(value, index)!
            defer { g_variant_unref(child) }
            items.append(try Variant(reading: child))
        }
        return items
    }

    /// A new floating GVariant for this value.
    public func makeGVariant() throws(VariantError) -> OpaquePointer {
        switch self {
        case .bool(let v): return g_variant_new_boolean(v ? 1 : 0)
        case .int64(let v): return g_variant_new_int64(gint64(v))
        case .uint64(let v): return g_variant_new_uint64(guint64(v))
        case .uint32(let v): return g_variant_new_uint32(v)
        case .double(let v): return g_variant_new_double(v)
        case .string(let v):
            guard !v.utf8.contains(0) else { throw .stringContainsNUL(String(v.prefix(40))) }
            return g_variant_new_string(v)
        case .bytes(let data):
            return data.withUnsafeBytes { buffer in
                "y".withCString { g_variant_new_fixed_array(baton_variant_type($0), buffer.baseAddress, gsize(buffer.count), 1) }
            }!
        case .boxed(let inner): return g_variant_new_variant(try inner.makeGVariant())
        case .tuple(let items):
            let children = try Variant.make(items)
            return children.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        case .array(let elementType, let items):
            for item in items where item.typeString != elementType {
                throw .elementTypeMismatch(expected: elementType, found: item.typeString)
            }
            let children = try Variant.make(items)
            return elementType.withCString { type in
                children.withUnsafeBufferPointer { g_variant_new_array(baton_variant_type(type), $0.baseAddress, gsize($0.count)) }
            }
        case .dictionary(let entries):
            var children: [OpaquePointer?] = []
            for (key, value) in entries.sorted(by: { $0.key < $1.key }) {
                let k = try Variant.string(key).makeGVariant()
                children.append(g_variant_new_dict_entry(k, g_variant_new_variant(try value.makeGVariant())))
            }
            return "{sv}".withCString { type in
                children.withUnsafeBufferPointer { g_variant_new_array(baton_variant_type(type), $0.baseAddress, gsize($0.count)) }
            }
        }
    }

    private static func make(_ items: [Variant]) throws(VariantError) -> [OpaquePointer?] {
        var made: [OpaquePointer?] = []
        do {
            for item in items { made.append(try item.makeGVariant()) }
        } catch {
            for value in made { g_variant_unref(g_variant_ref_sink(value)) }
            throw error
        }
        return made
    }
}

/// Why bytes or a value could not be a `Variant`.
public enum VariantError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text is not a GVariant type string.
    case invalidTypeString(String)
    /// The bytes (this many) are not the normal form of a value of `type`: truncated, padded,
    /// with offsets out of place, or otherwise what GLib's `g_variant_is_normal_form` refuses.
    case notNormalForm(type: String, size: Int)
    /// A valid GVariant type that `Variant` does not model.
    case unsupportedType(String)
    /// A dictionary holds this key twice.
    case duplicateKey(String)
    /// A string to serialise holds a NUL character, which GVariant strings cannot.
    case stringContainsNUL(String)
    /// An array element is not of the array's element type.
    case elementTypeMismatch(expected: String, found: String)

    public var description: String {
        switch self {
        case .invalidTypeString(let t): "'\(t)' is not a GVariant type string"
        case .notNormalForm(let t, let n): "\(n) bytes are not the normal form of a GVariant of type \(t)"
        case .unsupportedType(let t): "GVariant type \(t) is not one Baton reads"
        case .duplicateKey(let k): "the dictionary has the key '\(k)' twice"
        case .stringContainsNUL(let s): "a GVariant string cannot hold a NUL character: \"\(s)\""
        case .elementTypeMismatch(let e, let f): "an array of \(e) cannot hold a \(f)"
        }
    }
}

private let isLittleEndianHost = 1.littleEndian == 1
