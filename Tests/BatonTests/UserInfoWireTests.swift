@testable import Baton
import BatonLoop
import CGLib
import Foundation
import XCTest

/// The direct payload coder against GLib, its reference (GVariant specification; issue 30):
/// every payload written is byte-identical to what GLib's builder makes from the same values,
/// and in normal form; every input is accepted or refused, with the same kind of error, by the
/// direct reader and by GLib's (`GLibPayloadReference`).
final class UserInfoWireTests: BatonTestCase {
    static let seed: UInt64 = 0x5EED_0030

    func testUserInfoBytesEqualGLibsBuilderForGeneratedValues() throws {
        var random = SplitMix(seed: Self.seed)
        var sizes = Set<Int>()
        for index in 0..<3000 {
            var (info, expected) = random.userInfo(depth: 3)
            if index % 300 == 0 {  // over 64 KiB: 4-byte framing offsets
                let big = Data(count: 65_536 + random.below(2000))
                info["big"] = big
                expected["big"] = .bytes(big)
            }
            let direct = try UserInfoCoding.encode(info).bytes
            let glib = Self.glibBuilt(.dictionary(expected))
            XCTAssertEqual(Data(direct), glib, "value \(index) (seed \(Self.seed))")
            XCTAssertTrue(Self.isNormalForm(direct, type: "a{sv}"), "value \(index)")
            sizes.insert(WireWriter.offsetSize(forTotal: direct.count))
            if Data(direct) != glib { return }
        }
        // The framing offsets of every width the payload limit allows were exercised.
        XCTAssertTrue(sizes.isSuperset(of: [0, 1, 2, 4]), "offset widths seen: \(sizes.sorted())")
    }

    func testPayloadBytesEqualGLibsBuilderAndReadBackTheSame() throws {
        try MainActor.assumeIsolated {
            var random = SplitMix(seed: Self.seed &+ 1)
            for index in 0..<1500 {
                let (activity, expected) = random.activity()
                let direct = try activity.encodedPayload()
                XCTAssertEqual(direct, Self.glibBuilt(expected), "payload \(index)")
                XCTAssertTrue(Self.isNormalForm(Array(direct), type: "(uv)"), "payload \(index)")
                XCTAssertNil(GLibPayloadReference.disagreement(payload: direct), "payload \(index)")
                let read = try UserActivity(payload: direct)
                XCTAssertTrue(GLibPayloadReference.same(try UserActivity(payload: try read.encodedPayload()), read), "payload \(index) does not round-trip")
            }
        }
    }

    /// Corrupted payloads (a byte changed, cut, added or removed; a framing offset moved): the
    /// direct reader and GLib's accept the same ones and refuse the rest with the same kind of error.
    func testCorruptedPayloadsAreReadAsGLibReadsThem() throws {
        try MainActor.assumeIsolated {
            var random = SplitMix(seed: Self.seed &+ 2)
            var accepted = 0, refused = 0
            for index in 0..<6000 {
                let (activity, _) = random.activity()
                var bytes = Array(try activity.encodedPayload())
                for _ in 0...random.below(3) { random.corrupt(&bytes) }
                let data = Data(bytes)
                if let disagreement = GLibPayloadReference.disagreement(payload: data) {
                    return XCTFail("corruption \(index): \(disagreement); bytes \(data.base64EncodedString())")
                }
                if (try? UserActivity(payload: data)) != nil { accepted += 1 } else { refused += 1 }
            }
            XCTAssertGreaterThan(accepted, 100)
            XCTAssertGreaterThan(refused, 1000)
        }
    }

    /// GLib limits nesting to 128 levels; a userInfo nested just too deep is refused by both
    /// readers, one level less is read by both.
    func testTheDepthLimitIsGLibs() throws {
        try MainActor.assumeIsolated {
            var outcomes: [Bool] = []
            for levels in 36...46 {
                for leaf in [Any](["leaf", [1, 2] as [Any], Data([1]), NSNull(), [String: Any]()]) {
                    var value: Any = leaf
                    for _ in 0..<levels { value = ["k": value] as [String: Any] }
                    let activity = UserActivity(activityType: "com.example.deep")
                    try activity.setUserInfo(["root": value])
                    let data = try activity.encodedPayload()
                    XCTAssertNil(GLibPayloadReference.disagreement(payload: data), "\(levels) levels of \(type(of: leaf))")
                    outcomes.append((try? UserActivity(payload: data)) != nil)
                }
            }
            XCTAssertTrue(outcomes.contains(true) && outcomes.contains(false), "the limit was not reached")
        }
    }

    /// Around the widths' limits (255 and 65,535 bytes), containers with offsets of the
    /// smallest width and of the next: the reader accepts what GLib accepts in normal form
    /// (GLib 2.74 refuses offsets wider than needed): an array and a tuple.
    func testOffsetWidthsAtTheirLimitsAreReadAsGLibReadsThem() throws {
        var verdicts = Set<Bool>()
        for (type, limit) in [("as", 255), ("(ss)", 255), ("as", 65_535), ("(ss)", 65_535)] {
            for length in (limit - 6)...(limit + 2) {
                for width in [1, 2, 4] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "k"), count: length)
                    bytes.append(0)
                    let end = bytes.count
                    if type == "(ss)" { bytes.append(0) }
                    for index in 0..<width { bytes.append(UInt8(truncatingIfNeeded: end >> (8 * index))) }
                    let glib = (try? Variant(serialized: Data(bytes), type: type)) != nil
                    let wireType = Array(type.utf8).withUnsafeBytes { WireType.parse($0) }!
                    let direct = bytes.withUnsafeBytes { raw in (try? WireReader(bytes: raw).value(wireType, 0, raw.count, 0)) != nil }
                    XCTAssertEqual(direct, glib, "\(type), \(length) bytes, offsets of \(width)")
                    verdicts.insert(glib)
                }
            }
        }
        XCTAssertEqual(verdicts, [true, false])
    }

    /// Types `Variant` does not read, where no value of them is read (an empty array of them)
    /// or where one is: in a newer version's body, an unknown property, the userInfo. Both
    /// readers agree on each (the first case is what the fuzz target found).
    func testTypesVariantDoesNotReadAreTreatedAsGLibsReaderTreatsThem() throws {
        try MainActor.assumeIsolated {
            XCTAssertNil(GLibPayloadReference.disagreement(payload: Data(base64Encoded: "AQAAnwAAAAAAAAAAAGEoYXhhKHkpKQ==")!))
            // Offsets wider than needed (2 bytes for 133 empty items), which GLib 2.74 refuses.
            let wide = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../Fuzz/Corpus/ActivityPayload/version-2-offsets-wider-than-needed").standardized)
            XCTAssertNil(GLibPayloadReference.disagreement(payload: wide))
            XCTAssertThrowsError(try UserActivity(payload: wide))
            let values = ["@a(y) []", "@ai []", "@ai [1]", "@a{ss} {}", "@a{ss} {'a': 'b'}", "@ams []", "@ams [nothing]",
                          "@a(axa(y)) [([1], @a(y) [])]", "@a(axa(y)) [([1], [(byte 1,)])]", "@aa{ss} []", "@aa{ss} [@a{ss} {}]",
                          "@(ai) ([],)", "@(y) (byte 1,)", "@y 1", "@n 1", "@mi nothing", "@{ss} {'a', 'b'}", "@{sv} {'a', <1>}",
                          "@ao []", "@ag []", "@ah []", "@a{yv} {}", "@a{sv} {}", "@aay [b'']", "@au [1]"]
            var readers = (accepted: 0, refused: 0)
            for value in values {
                for text in ["(uint32 1, <('t', {'future': <\(value)>}, @a{sv} {})>)", "(uint32 2, <\(value)>)",
                             "(uint32 1, <('t', @a{sv} {}, {'k': <\(value)>})>)", "(uint32 1, <('t', {'title': <'x'>, 'f': <\(value)>}, {'k': <'v'>})>)"] {
                    let data = try XCTUnwrap(Self.parsed(text), text)
                    XCTAssertNil(GLibPayloadReference.disagreement(payload: data), text)
                    if (try? UserActivity(payload: data)) != nil { readers.accepted += 1 } else { readers.refused += 1 }
                }
            }
            XCTAssertGreaterThan(readers.accepted, 10)
            XCTAssertGreaterThan(readers.refused, 10)
        }
    }

    /// GLib's text form parsed (`g_variant_parse`), in normal form.
    private static func parsed(_ text: String) -> Data? {
        guard let value = g_variant_parse(nil, text, nil, nil, nil) else { return nil }
        let sunk = g_variant_ref_sink(value)!
        defer { g_variant_unref(sunk) }
        let normal = g_variant_get_normal_form(sunk)!
        defer { g_variant_unref(normal) }
        return Data(bytes: g_variant_get_data(normal)!, count: Int(g_variant_get_size(normal)))
    }

    /// What GLib's builder makes of `value` (`g_variant_new_*`, then its normal form), with
    /// dictionary keys and string arrays in byte order, as Baton writes them.
    private static func glibBuilt(_ value: Variant) -> Data {
        let made = g_variant_ref_sink(Self.build(value))!
        defer { g_variant_unref(made) }
        let normal = g_variant_get_normal_form(made)!
        defer { g_variant_unref(normal) }
        let size = Int(g_variant_get_size(normal))
        return size == 0 ? Data() : Data(bytes: g_variant_get_data(normal)!, count: size)
    }

    private static func build(_ value: Variant) -> OpaquePointer {
        switch value {
        case .bool(let v): return g_variant_new_boolean(v ? 1 : 0)
        case .int64(let v): return g_variant_new_int64(gint64(v))
        case .uint64(let v): return g_variant_new_uint64(guint64(v))
        case .uint32(let v): return g_variant_new_uint32(v)
        case .double(let v): return g_variant_new_double(v)
        case .string(let v): return g_variant_new_string(v)
        case .bytes(let data):
            return data.withUnsafeBytes { buffer in
                "y".withCString { g_variant_new_fixed_array(baton_variant_type($0), buffer.baseAddress, gsize(buffer.count), 1) }
            }!
        case .boxed(let inner): return g_variant_new_variant(build(inner))
        case .tuple(let items):
            let children: [OpaquePointer?] = items.map { build($0) }
            return children.withUnsafeBufferPointer { g_variant_new_tuple($0.baseAddress, gsize($0.count)) }
        case .array(let elementType, let items):
            let ordered = elementType == "s" ? items.sorted { a, b in
                guard case .string(let x) = a, case .string(let y) = b else { return false }
                return Array(x.utf8).lexicographicallyPrecedes(Array(y.utf8))
            } : items
            let children: [OpaquePointer?] = ordered.map { build($0) }
            return elementType.withCString { type in
                children.withUnsafeBufferPointer { g_variant_new_array(baton_variant_type(type), $0.baseAddress, gsize($0.count)) }
            }
        case .dictionary(let entries):
            let children: [OpaquePointer?] = entries.sorted { Array($0.key.utf8).lexicographicallyPrecedes(Array($1.key.utf8)) }.map {
                g_variant_new_dict_entry(g_variant_new_string($0.key), g_variant_new_variant(build($0.value)))
            }
            return "{sv}".withCString { type in
                children.withUnsafeBufferPointer { g_variant_new_array(baton_variant_type(type), $0.baseAddress, gsize($0.count)) }
            }
        }
    }

    private static func isNormalForm(_ bytes: [UInt8], type: String) -> Bool {
        bytes.withUnsafeBytes { raw in
            let gbytes = g_bytes_new(raw.baseAddress, gsize(raw.count))!
            defer { g_bytes_unref(gbytes) }
            let value = type.withCString { g_variant_ref_sink(g_variant_new_from_bytes(baton_variant_type($0), gbytes, 0)) }!
            defer { g_variant_unref(value) }
            return g_variant_is_normal_form(value) != 0
        }
    }
}

/// A seeded generator of userInfo values, each with the `Variant` GLib builds for it.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    static let pieces = ["a", "b", "key", "é", "e\u{301}", "日本", "👍🏽", " ", "-", "Z", "0", "ß", "\u{7F}", "\u{10FFFF}"]

    mutating func text() -> String {
        switch below(20) {
        case 0: return ""
        case 1: return String(repeating: "x", count: 240 + below(40))  // around the 1-byte offset limit
        case 2: return String(repeating: "y", count: below(600))
        default: return (0..<below(8)).map { _ in Self.pieces[below(Self.pieces.count)] }.joined()
        }
    }

    mutating func scalar() -> (Any, Variant) {
        switch below(19) {
        case 0: let s = text(); return (s, .string(s))
        case 1: let v = Int(bitPattern: UInt(next())) >> below(64); return (v, .int64(Int64(v)))
        case 2: let v = Int8(truncatingIfNeeded: next()); return (v, .int64(Int64(v)))
        case 3: let v = Int16(truncatingIfNeeded: next()); return (v, .int64(Int64(v)))
        case 4: let v = Int32(truncatingIfNeeded: next()); return (v, .int64(Int64(v)))
        case 5: let v = Int64(bitPattern: next()); return (v, .int64(v))
        case 6: let v = UInt(next() >> below(64)); return (v, .uint64(UInt64(v)))
        case 7: let v = UInt8(truncatingIfNeeded: next()); return (v, .uint64(UInt64(v)))
        case 8: let v = UInt32(truncatingIfNeeded: next()); return (v, .uint64(UInt64(v)))
        case 9: let v = Double(bitPattern: next()); return (v, .double(v))
        case 10: let v = Float(bitPattern: UInt32(truncatingIfNeeded: next())); return (v, .double(Double(v)))
        case 11: let v = next() & 1 == 0; return (v, .bool(v))
        case 12:
            let count = below(10) == 0 ? 200 + below(400) : below(40)
            let d = Data((0..<count).map { _ in UInt8(truncatingIfNeeded: next()) })
            return (d, .bytes(d))
        case 13: let d = Date(timeIntervalSince1970: Double(Int32(truncatingIfNeeded: next())) / 8); return (d, .tuple([.double(d.timeIntervalSince1970)]))
        case 14:
            let u = URL(string: "https://example.com/\(below(1000))?q=\(below(99))")!
            return (u, .tuple([.string(u.absoluteString)]))
        case 15:
            var bytes = (0..<16).map { _ in UInt8(truncatingIfNeeded: next()) }
            let uuid = UUID(uuid: bytes.withUnsafeMutableBytes { $0.loadUnaligned(as: uuid_t.self) })
            bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            return (uuid, .tuple([.bytes(Data(bytes))]))
        case 16: return (NSNull(), .tuple([]))
        case 17: let v = UInt16(truncatingIfNeeded: next()); return (v, .uint64(UInt64(v)))
        default: let v = UInt64(next()); return (v, .uint64(v))
        }
    }

    mutating func value(depth: Int) -> (Any, Variant) {
        guard depth > 0 else { return scalar() }
        switch below(10) {
        case 0:
            var values: [Any] = [], variants: [Variant] = []
            for _ in 0..<below(6) { let (v, e) = value(depth: depth - 1); values.append(v); variants.append(.boxed(e)) }
            return (values, .array(elementType: "v", variants))
        case 1:
            let strings = (0..<below(5)).map { _ in text() }
            return (strings, .array(elementType: "v", strings.map { .boxed(.string($0)) }))
        case 2:
            var set = Set<AnyHashable>()
            for _ in 0..<below(5) {
                switch below(4) {
                case 0: set.insert(AnyHashable(text()))
                case 1: set.insert(AnyHashable(Int(truncatingIfNeeded: next())))
                case 2: set.insert(AnyHashable(Data([UInt8(truncatingIfNeeded: next())])))
                default: set.insert(AnyHashable(next() & 1 == 0))
                }
            }
            let items: [Variant] = set.map { item in
                switch item.base {
                case let s as String: .boxed(.string(s))
                case let i as Int: .boxed(.int64(Int64(i)))
                case let d as Data: .boxed(.bytes(d))
                default: .boxed(.bool(item.base as! Bool))
                }
            }
            return (set, .tuple([.array(elementType: "v", items)]))
        case 3:
            let (info, entries) = userInfo(depth: depth - 1)
            return (info as [String: Any], .dictionary(entries))
        case 4:
            let (info, entries) = userInfo(depth: depth - 1)
            return (info.reduce(into: [AnyHashable: Any]()) { $0[AnyHashable($1.key)] = $1.value }, .dictionary(entries))
        default: return scalar()
        }
    }

    mutating func userInfo(depth: Int) -> ([String: Any], [String: Variant]) {
        var info: [String: Any] = [:], expected: [String: Variant] = [:]
        for _ in 0..<below(depth == 3 ? 14 : 5) {
            let key = text()
            let (v, e) = value(depth: depth)
            info[key] = v
            expected[key] = e
        }
        return (info, expected)
    }

    /// An activity with generated properties and userInfo, and the payload GLib builds for it.
    @MainActor
    mutating func activity() -> (UserActivity, Variant) {
        let type = "com.example.\(text())"
        let activity = UserActivity(activityType: type)
        var properties: [String: Variant] = [:]
        func maybeText(_ key: String) -> String? {
            guard next() & 1 == 0 else { return nil }
            let value = text()
            properties[key] = .string(value)
            return value
        }
        activity.title = maybeText("title")
        activity.targetContentIdentifier = maybeText("targetContentIdentifier")
        activity.persistentIdentifier = maybeText("persistentIdentifier")
        if next() & 1 == 0 {
            let url = URL(string: "https://example.com/r/\(below(100))")!
            activity.referrerURL = url
            properties["referrerURL"] = .string(url.absoluteString)
        }
        if next() & 1 == 0 {
            let url = URL(string: "http://example.org/page\(below(100))")!
            try! activity.setWebpageURL(url)
            properties["webpageURL"] = .string(url.absoluteString)
        }
        if next() & 1 == 0 {
            let date = Date(timeIntervalSince1970: Double(below(1 << 30)))
            activity.expirationDate = date
            properties["expirationDate"] = .double(date.timeIntervalSince1970)
        }
        let keywords = Set((0..<below(4)).map { _ in text() })
        activity.keywords = keywords
        if !keywords.isEmpty { properties["keywords"] = .array(elementType: "s", keywords.sorted().map(Variant.string)) }
        if next() & 1 == 0 {
            let keys = Set((0..<below(3)).map { _ in text() })
            activity.requiredUserInfoKeys = keys
            properties["requiredUserInfoKeys"] = .array(elementType: "s", keys.sorted().map(Variant.string))
        }
        activity.isEligibleForHandoff = next() & 1 == 0
        activity.isEligibleForSearch = next() & 1 == 0
        activity.isEligibleForPublicIndexing = next() & 1 == 0
        activity.supportsContinuationStreams = next() & 1 == 0
        properties["eligibleForHandoff"] = .bool(activity.isEligibleForHandoff)
        properties["eligibleForSearch"] = .bool(activity.isEligibleForSearch)
        properties["eligibleForPublicIndexing"] = .bool(activity.isEligibleForPublicIndexing)
        properties["supportsContinuationStreams"] = .bool(activity.supportsContinuationStreams)
        var (info, expected) = userInfo(depth: 2)
        while (try? Variant.dictionary(expected).serialized().count) ?? 0 > 40_000 { (info, expected) = userInfo(depth: 1) }
        activity.userInfo = info
        let payload = Variant.tuple([.uint32(1), .boxed(.tuple([.string(type), .dictionary(properties), .dictionary(expected)]))])
        return (activity, payload)
    }

    /// One corruption: a byte changed, the end cut, a byte added or removed, or a framing
    /// offset (at the end of a container) moved by one.
    mutating func corrupt(_ bytes: inout [UInt8]) {
        guard !bytes.isEmpty else { return }
        let at = below(bytes.count)
        switch below(6) {
        case 0: bytes[at] = UInt8(truncatingIfNeeded: next())
        case 1: bytes[at] ^= 1 << UInt8(below(8))
        case 2: bytes.removeLast(1 + below(min(bytes.count, 16)))
        case 3: bytes.insert(UInt8(truncatingIfNeeded: next() & 1), at: at)
        case 4: bytes.remove(at: at)
        default: bytes[at] = bytes[at] &+ (next() & 1 == 0 ? 1 : 255)
        }
    }
}
