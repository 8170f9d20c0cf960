import BatonLoop
import Foundation

/// Reads GVariant's serialised normal form, little-endian, straight from bytes, accepting
/// exactly what GLib's `g_variant_is_normal_form` accepts (gvariant-serialiser.c, followed rule
/// by rule: framing offsets no wider than needed, zero padding, booleans 0 or 1, NUL-terminated UTF-8 strings, boxed
/// types that are one definite type, and GLib's depth limits), for the types `Variant` models.
///
/// Every read is bounds-checked against the slice it belongs to before it happens; a value is a
/// slice `(start, size)` of `bytes` and a depth (0 for the outermost value, one more per level,
/// as GLib counts).
struct WireReader {
    let bytes: UnsafeRawBufferPointer

    // MARK: Primitives

    func byte(_ at: Int) -> UInt8 { bytes.load(fromByteOffset: at, as: UInt8.self) }

    func uint32(_ at: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }

    func uint64(_ at: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }

    /// A little-endian framing offset of `width` bytes (0 reads 0), clamped to Int.
    func offset(_ at: Int, _ width: Int) -> Int {
        var value: UInt64 = 0
        for index in stride(from: width - 1, through: 0, by: -1) { value = value << 8 | UInt64(byte(at + index)) }
        return value > UInt64(Int.max) ? Int.max : Int(value)
    }

    /// A terminal value's own rule: it has bytes, and is not deeper than GLib allows.
    @inline(__always) func terminal(_ size: Int, _ depth: Int) throws(WireFormatError) {
        guard size > 0, depth < WireType.maxDepth else { throw .notNormalForm }
    }

    /// A string (`s`): NUL-terminated, no other NUL, valid UTF-8 (`g_variant_serialiser_is_string`).
    func string(_ start: Int, _ size: Int, _ depth: Int) throws(WireFormatError) -> String {
        try terminal(size, depth)
        guard byte(start + size - 1) == 0 else { throw .notNormalForm }
        // Read as a C string up to the first NUL, which must be the last byte.
        guard let value = String(validatingCString: (bytes.baseAddress! + start).assumingMemoryBound(to: CChar.self)),
              value.utf8.count == size - 1 else { throw .notNormalForm }
        return value
    }

    /// A boxed value (`v`): the bounds of its content and its type (`gvs_variant_get_child`,
    /// `gvs_variant_is_normal`). `typeBytes` is the type string, for the fast paths that
    /// recognise it before parsing.
    func boxed(_ start: Int, _ size: Int, _ depth: Int) throws(WireFormatError) -> (size: Int, typeBytes: UnsafeRawBufferPointer) {
        guard size > 0 else { throw .notNormalForm }
        var nul = size - 1
        while nul > 0 && byte(start + nul) != 0 { nul -= 1 }
        guard byte(start + nul) == 0 else { throw .notNormalForm }
        return (nul, UnsafeRawBufferPointer(rebasing: bytes[(start + nul + 1)..<(start + size)]))
    }

    /// The boxed type's rules once known: one definite type of the subset, its fixed size if any
    /// matching the content, and GLib's depth check (`depth < 128 - typeDepth`, in GLib's
    /// unsigned arithmetic).
    func boxedType(_ typeBytes: UnsafeRawBufferPointer, size: Int, depth: Int) throws(WireFormatError) -> WireType {
        guard let type = WireType.parse(typeBytes) else {
            throw .unsupportedType(String(decoding: typeBytes, as: UTF8.self))
        }
        try boxedType(type, size: size, depth: depth)
        return type
    }

    @inline(__always) func boxedType(_ type: WireType, size: Int, depth: Int) throws(WireFormatError) {
        let fixed = type.fixedSize
        guard fixed == 0 || fixed == size else { throw .notNormalForm }
        try boxedDepth(type.depth, depth)
    }

    @inline(__always) func boxedDepth(_ typeDepth: Int, _ depth: Int) throws(WireFormatError) {
        guard UInt(depth) < UInt(WireType.maxDepth) &- UInt(typeDepth) else { throw .notNormalForm }
    }

    /// How many items an array of variable-size items at `(start, size)` says it has (its
    /// offset table's length; 0 when that is not even plausible), to reserve room for them.
    func itemCount(_ start: Int, _ size: Int) -> Int {
        guard size > 0 else { return 0 }
        let width = WireWriter.offsetSize(forTotal: size)
        let lastEnd = offset(start + size - width, width)
        guard lastEnd <= size else { return 0 }
        return (size - lastEnd) / width
    }

    /// The items of an array of variable-size items (`gvs_variable_sized_array_is_normal`):
    /// calls `item` with each item's bounds, after its padding (to `alignmentMask`) is checked.
    func variableItems(_ start: Int, _ size: Int, alignmentMask: Int,
                       _ item: (Int, Int) throws(WireFormatError) -> Void) throws(WireFormatError) {
        guard size > 0 else { return }
        let width = WireWriter.offsetSize(forTotal: size)
        let lastEnd = offset(start + size - width, width)
        guard lastEnd <= size else { throw .notNormalForm }
        let table = size - lastEnd
        guard table % width == 0, table > 0 else { throw .notNormalForm }
        // Offsets no wider than needed (GLib 2.74's normal form: one form per value).
        guard WireWriter.totalSize(body: lastEnd, offsets: table / width) == size else { throw .notNormalForm }
        var position = 0
        for index in 0..<(table / width) {
            let end = offset(start + lastEnd + index * width, width)
            guard end >= position, end <= lastEnd else { throw .notNormalForm }
            while position & alignmentMask != 0 {
                guard position < end, byte(start + position) == 0 else { throw .notNormalForm }
                position += 1
            }
            try item(start + position, end - position)
            position = end
        }
    }

    /// A tuple's or dictionary entry's members (`gvs_tuple_is_normal`): calls `member` with each
    /// member's index and bounds.
    func members(_ types: [WireType], _ start: Int, _ size: Int, fixedSize: Int, alignmentMask: Int,
                 _ member: (Int, Int, Int) throws(WireFormatError) -> Void) throws(WireFormatError) {
        let width = WireWriter.offsetSize(forTotal: size)
        var offsetEnd = size
        var position = 0
        // Offsets no wider than needed (GLib 2.74's normal form: one form per value).
        let framed = types.dropLast().reduce(0) { $0 + ($1.fixedSize == 0 ? 1 : 0) }
        if framed > 0 && width > 0 {  // a tuple of no bytes has offsets of no width, and is not held to this
            guard size >= framed * width, WireWriter.totalSize(body: size - framed * width, offsets: framed) == size else {
                throw .notNormalForm
            }
        }
        for (index, type) in types.enumerated() {
            let mask = type.alignmentMask
            while position & mask != 0 {
                guard position < size, byte(start + position) == 0 else { throw .notNormalForm }
                position += 1
            }
            let end: Int
            let fixed = type.fixedSize
            if fixed > 0 {
                end = position + fixed
            } else if index == types.count - 1 {
                end = offsetEnd
            } else {
                guard offsetEnd >= width else { throw .notNormalForm }
                offsetEnd -= width
                guard offsetEnd >= position else { throw .notNormalForm }
                end = offset(start + offsetEnd, width)
            }
            guard end >= position, end <= offsetEnd else { throw .notNormalForm }
            try member(index, start + position, end - position)
            position = end
        }
        if fixedSize > 0 {
            if types.isEmpty {
                guard position < size, byte(start + position) == 0 else { throw .notNormalForm }
                position += 1
            } else {
                while position & alignmentMask != 0 {
                    guard position < size, byte(start + position) == 0 else { throw .notNormalForm }
                    position += 1
                }
            }
        }
        guard offsetEnd == position else { throw .notNormalForm }
    }

    /// A dictionary entry `{sv}`: the key, and the bounds of the boxed value.
    func entry(_ start: Int, _ size: Int, _ depth: Int) throws(WireFormatError) -> (key: String, start: Int, size: Int) {
        // `members` specialised to (s, v): the key's end is the one framing offset.
        let width = WireWriter.offsetSize(forTotal: size)
        guard size >= width, width == 0 || WireWriter.totalSize(body: size - width, offsets: 1) == size else { throw .notNormalForm }
        let offsetEnd = size - width
        let keyEnd = offset(start + offsetEnd, width)
        guard keyEnd <= offsetEnd else { throw .notNormalForm }
        let key = try string(start, keyEnd, depth + 1)
        var position = keyEnd
        while position & 7 != 0 {
            guard position < size, byte(start + position) == 0 else { throw .notNormalForm }
            position += 1
        }
        guard offsetEnd >= position else { throw .notNormalForm }
        return (key, start + position, offsetEnd - position)
    }

    // MARK: Any value of the subset

    /// The value of `type` at `(start, size)`, checked as GLib checks normal form, as `Variant`
    /// reads it (`a{sv}` as a dictionary of unboxed values, `ay` as bytes).
    func value(_ type: WireType, _ start: Int, _ size: Int, _ depth: Int) throws(WireFormatError) -> Variant {
        switch type {
        case .bool:
            try terminal(size, depth)
            let value = byte(start)
            guard value < 2 else { throw .notNormalForm }
            return .bool(value == 1)
        case .uint32:
            try terminal(size, depth)
            return .uint32(uint32(start))
        case .int64:
            try terminal(size, depth)
            return .int64(Int64(bitPattern: uint64(start)))
        case .uint64:
            try terminal(size, depth)
            return .uint64(uint64(start))
        case .double:
            try terminal(size, depth)
            return .double(Double(bitPattern: uint64(start)))
        case .string:
            return .string(try string(start, size, depth))
        case .byte, .entry, .unread:
            throw .unsupportedType(type.typeString)  // as `Variant(reading:)` refuses a value of them
        case .variant:
            let (inner, typeBytes) = try boxed(start, size, depth)
            let innerType = try boxedType(typeBytes, size: inner, depth: depth)
            return .boxed(try value(innerType, start, inner, depth + 1))
        case .array(.byte):
            if size > 0 { try terminal(1, depth + 1) }
            return .bytes(Data(UnsafeRawBufferPointer(rebasing: bytes[start..<(start + size)])))
        case .array(.entry):
            var entries: [String: Variant] = [:]
            try variableItems(start, size, alignmentMask: 7) { (itemStart, itemSize) throws(WireFormatError) in
                let (key, valueStart, valueSize) = try entry(itemStart, itemSize, depth + 1)
                let (inner, typeBytes) = try boxed(valueStart, valueSize, depth + 2)
                let innerType = try boxedType(typeBytes, size: inner, depth: depth + 2)
                let item = try value(innerType, valueStart, inner, depth + 3)
                guard entries.updateValue(item, forKey: key) == nil else { throw .duplicateKey(key) }
            }
            return .dictionary(entries)
        case .array(.unread(let element)) where element.isEntry:
            throw .unsupportedType("a" + element.typeString)  // refused even empty, as by `Variant(reading:)`
        case .array(let element):
            var items: [Variant] = []
            let fixed = element.fixedSize
            if fixed > 0 {
                guard size % fixed == 0 else { throw .notNormalForm }
                for index in 0..<(size / fixed) { items.append(try value(element, start + index * fixed, fixed, depth + 1)) }
            } else {
                try variableItems(start, size, alignmentMask: element.alignmentMask) { (itemStart, itemSize) throws(WireFormatError) in
                    items.append(try value(element, itemStart, itemSize, depth + 1))
                }
            }
            return .array(elementType: element.typeString, items)
        case .tuple(let types):
            var items: [Variant] = []
            try members(types, start, size, fixedSize: type.fixedSize, alignmentMask: type.alignmentMask) {
                (index, memberStart, memberSize) throws(WireFormatError) in
                items.append(try value(types[index], memberStart, memberSize, depth + 1))
            }
            return .tuple(items)
        }
    }
}
