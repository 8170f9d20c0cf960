import BatonLoop
import CGLib
import Foundation
import FuzzSupport

// D-Bus and payload argument decoding: `Variant(serialized:type:)` on any bytes and any type
// string, and `Variant(reading:)` on any GVariant GLib builds from bytes (normal form or not, as
// a GVariant read from a file or a message can be).
//
// Input: one byte n, n bytes of type string, the serialised value.

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSetup.quietLogs()
    FuzzSeeds.writeIfAsked(seeds)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVariant(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    guard let length = input.first.map(Int.init), input.count > length else { return 0 }
    let typeBytes = input.dropFirst().prefix(length)
    guard !typeBytes.contains(0) else { return 0 }
    let type = String(decoding: typeBytes, as: UTF8.self)
    let body = Data(input.dropFirst(1 + length))

    if let value = try? Variant(serialized: body, type: type) {
        // What was read is of the type asked for, and serialises again, to bytes that read back
        // to the same serialisation.
        FuzzInput.require(value.typeString == type, "read \(value.typeString) for \(type)")
        let again: Data
        do { again = try value.serialized() } catch { FuzzInput.require(false, "a value read does not serialise: \(error)"); return 0 }
        do {
            let third = try Variant(serialized: again, type: type).serialized()
            FuzzInput.require(third == again, "the serialisation of \(type) is not stable")
        } catch {
            FuzzInput.require(false, "a value written does not read back: \(error)")
        }
    }
    readAnyForm(body, type: type)
    return 0
}

/// `Variant(reading:)` on the GVariant GLib makes of `body`, without the normal-form check.
private func readAnyForm(_ body: Data, type: String) {
    type.withCString { typeString in
        guard g_variant_type_string_is_valid(typeString) != 0, g_variant_type_is_definite(baton_variant_type(typeString)) != 0 else { return }
        let bytes = body.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }!
        defer { g_bytes_unref(bytes) }
        let value = g_variant_ref_sink(g_variant_new_from_bytes(baton_variant_type(typeString), bytes, 0))!
        defer { g_variant_unref(value) }
        _ = try? Variant(reading: value)
    }
}

private func seeds() throws -> [String: Data] {
    func seed(_ value: Variant) throws -> Data {
        let type = Data(value.typeString.utf8)
        return Data([UInt8(type.count)]) + type + (try value.serialized())
    }
    func raw(_ type: String, _ body: [UInt8]) -> Data { Data([UInt8(type.utf8.count)]) + Data(type.utf8) + Data(body) }
    let metadata = Variant.dictionary(["sequence": .uint64(7), "type": .string("com.example.edit"), "title": .string("Draft"),
                                       "app": .string("com.example.App"), "team": .string("TEAM123456"),
                                       "webpageURL": .string("https://example.com/a")])
    return [
        "bool": try seed(.bool(true)),
        "int64": try seed(.int64(-42)),
        "uint64": try seed(.uint64(.max)),
        "uint32": try seed(.uint32(1)),
        "double": try seed(.double(3.5)),
        "string": try seed(.string("héllo")),
        "bytes": try seed(.bytes(Data([0, 1, 2, 255]))),
        "unit": try seed(.tuple([])),
        "boxed": try seed(.boxed(.boxed(.string("inner")))),
        "metadata": try seed(metadata),
        "getcurrent-reply": try seed(.tuple([metadata])),
        "fetch-argument": try seed(.tuple([.uint64(7)])),
        "openstreams-reply": try seed(.tuple([.bytes(Data(repeating: 0xab, count: 32)), .uint32(49152)])),
        "array-of-tuples": try seed(.array(elementType: "(ssxb)", [.tuple([.string("a"), .string("01"), .int64(1), .bool(false)])])),
        "array-of-variants": try seed(.array(elementType: "v", [.boxed(.int64(1)), .boxed(.dictionary([:]))])),
        "nested-arrays": try seed(.array(elementType: "aay", [.array(elementType: "ay", [.bytes(Data([1])), .bytes(Data())])])),
        // Edge cases: types Baton does not read, an indefinite type, a type string that is not one,
        // a variant whose inner type is unsupported, bytes that are not normal form.
        "unsupported-y": raw("y", [1]),
        "unsupported-dict": raw("a{ss}", []),
        "indefinite": raw("*", [0]),
        "invalid-type": raw("(s", [0]),
        "boxed-maybe": raw("v", [0, 0x6d, 0x73]),
        "not-normal-string": raw("s", [0x61, 0x62]),
        "empty-string-type": raw("", []),
    ]
}

FuzzDriver.run(fuzzVariant)
