import BatonLoop

/// A definite GVariant type, with the layout GLib's serialiser gives it (GVariant
/// specification, "Serialisation": alignment, fixed size, and GLib's type depth).
///
/// The types `Variant` reads — `b`, `u`, `x`, `t`, `d`, `s`, `v`, `ay`, `a{sv}`, arrays and
/// tuples — have cases of their own; every other definite type is `unread`: it has a layout (an
/// empty array of it is read, as `Variant(reading:)` reads one) but a value of it is refused.
/// A type string that is not one definite type has no `WireType`.
indirect enum WireType: Equatable, Sendable {
    case bool, byte, uint32, int64, uint64, double, string, variant
    case array(WireType)
    case tuple([WireType])
    /// `{sv}`, as the element of `a{sv}`.
    case entry
    /// Any other definite type: `y` alone, `n`, `q`, `i`, `h`, `o`, `g`, maybes, other
    /// dictionary entries.
    case unread(Unread)

    /// The layout of a type `Variant` does not read.
    struct Unread: Equatable, Sendable {
        let typeString: String
        let fixedSize: Int
        let alignmentMask: Int
        let depth: Int
        /// A dictionary entry type (`{…}`): `Variant(reading:)` refuses even an empty array of it.
        let isEntry: Bool
    }

    /// GLib's limit on nested containers in a type and on the depth of a value
    /// (`G_VARIANT_MAX_RECURSION_DEPTH`).
    static let maxDepth = 128

    /// Parses exactly one type that fills `bytes`, with GLib's depth limit on nesting
    /// (`g_variant_type_string_scan`), or nil for a type outside the subset or not a type at all.
    static func parse(_ bytes: UnsafeRawBufferPointer) -> WireType? {
        var index = 0
        guard let type = parse(bytes, &index, depthLimit: maxDepth), index == bytes.count else { return nil }
        return type
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer, _ index: inout Int, depthLimit: Int) -> WireType? {
        guard index < bytes.count else { return nil }
        let code = bytes[index]
        index += 1
        func basic(_ text: String, _ size: Int, _ mask: Int) -> WireType {
            .unread(Unread(typeString: text, fixedSize: size, alignmentMask: mask, depth: 1, isEntry: false))
        }
        switch code {
        case UInt8(ascii: "b"): return .bool
        case UInt8(ascii: "y"): return .byte
        case UInt8(ascii: "u"): return .uint32
        case UInt8(ascii: "x"): return .int64
        case UInt8(ascii: "t"): return .uint64
        case UInt8(ascii: "d"): return .double
        case UInt8(ascii: "s"): return .string
        case UInt8(ascii: "v"): return .variant
        case UInt8(ascii: "n"): return basic("n", 2, 1)
        case UInt8(ascii: "q"): return basic("q", 2, 1)
        case UInt8(ascii: "i"): return basic("i", 4, 3)
        case UInt8(ascii: "h"): return basic("h", 4, 3)
        case UInt8(ascii: "o"): return basic("o", 0, 0)
        case UInt8(ascii: "g"): return basic("g", 0, 0)
        case UInt8(ascii: "a"):
            guard depthLimit > 0, let element = parse(bytes, &index, depthLimit: depthLimit - 1) else { return nil }
            return .array(element)
        case UInt8(ascii: "m"):
            guard depthLimit > 0, let element = parse(bytes, &index, depthLimit: depthLimit - 1) else { return nil }
            return .unread(Unread(typeString: "m" + element.typeString, fixedSize: 0, alignmentMask: element.alignmentMask,
                                  depth: element.depth + 1, isEntry: false))
        case UInt8(ascii: "{"):
            guard depthLimit > 0, index < bytes.count, let key = basicKey(bytes[index]) else { return nil }
            index += 1
            guard let value = parse(bytes, &index, depthLimit: depthLimit - 1),
                  index < bytes.count, bytes[index] == UInt8(ascii: "}") else { return nil }
            index += 1
            if key == .string && value == .variant { return .entry }
            let layout = WireType.tuple([key, value])
            return .unread(Unread(typeString: "{" + key.typeString + value.typeString + "}", fixedSize: layout.fixedSize,
                                  alignmentMask: layout.alignmentMask, depth: value.depth + 1, isEntry: true))
        case UInt8(ascii: "("):
            var members: [WireType] = []
            while true {
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ")") { index += 1; return .tuple(members) }
                guard depthLimit > 0, let member = parse(bytes, &index, depthLimit: depthLimit - 1) else { return nil }
                members.append(member)
            }
        default: return nil  // not a type, or not a definite one (`*`, `?`, `r`)
        }
    }

    /// A dictionary entry's key: a definite basic type.
    private static func basicKey(_ code: UInt8) -> WireType? {
        var index = 0
        return withUnsafeBytes(of: code) { byte in
            "bynqihuxtdsog".utf8.contains(code) ? parse(byte, &index, depthLimit: 0) : nil
        }
    }

    /// GLib's type depth (`g_variant_type_string_get_depth_`): 1 for a basic type or `v`, one
    /// more than the deepest member for a container; 0 for the unit tuple.
    var depth: Int {
        switch self {
        case .bool, .byte, .uint32, .int64, .uint64, .double, .string, .variant: 1
        case .entry: 2
        case .unread(let u): u.depth
        case .array(let element): element.depth + 1
        case .tuple(let members): members.map { $0.depth + 1 }.max() ?? 0
        }
    }

    /// Alignment minus one (GLib's mask): 0, 3 or 7.
    var alignmentMask: Int {
        switch self {
        case .bool, .byte, .string: 0
        case .uint32: 3
        case .int64, .uint64, .double, .variant, .entry: 7
        case .unread(let u): u.alignmentMask
        case .array(let element): element.alignmentMask
        case .tuple(let members): members.reduce(0) { $0 | $1.alignmentMask }
        }
    }

    /// The fixed size, or 0 for a type of variable size. The unit tuple has size 1.
    var fixedSize: Int {
        switch self {
        case .bool, .byte: 1
        case .uint32: 4
        case .int64, .uint64, .double: 8
        case .string, .variant, .entry, .array: 0
        case .unread(let u): u.fixedSize
        case .tuple(let members):
            {
                var offset = 0
                for member in members {
                    let size = member.fixedSize
                    guard size > 0 else { return 0 }
                    offset = (offset + member.alignmentMask) & ~member.alignmentMask
                    offset += size
                }
                let mask = alignmentMask
                return max(1, (offset + mask) & ~mask)
            }()
        }
    }

    /// The type string, as `Variant.typeString` spells it.
    var typeString: String {
        switch self {
        case .bool: "b"
        case .byte: "y"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .variant: "v"
        case .entry: "{sv}"
        case .unread(let u): u.typeString
        case .array(let element): "a" + element.typeString
        case .tuple(let members): "(" + members.map(\.typeString).joined() + ")"
        }
    }
}
