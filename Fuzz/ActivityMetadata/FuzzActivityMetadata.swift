@testable import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import FuzzSupport

// The metadata a peer advertises (GetCurrent's reply, the CurrentChanged signal):
// `DeviceInterface.activity(from:device:)` on the `a{sv}` read from any bytes, both through the
// checked decoder and as GDBus hands a message's `(a{sv})` to `Variant(reading:)`.

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSetup.quietLogs()
    FuzzSeeds.writeIfAsked(seeds)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzActivityMetadata(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    if let metadata = try? Variant(serialized: input, type: "a{sv}") { check(metadata) }
    let gbytes = input.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }!
    defer { g_bytes_unref(gbytes) }
    let message = "(a{sv})".withCString { g_variant_ref_sink(g_variant_new_from_bytes(baton_variant_type($0), gbytes, 0))! }
    defer { g_variant_unref(message) }
    if case .tuple(let arguments)? = try? Variant(reading: message), let metadata = arguments.first { check(metadata) }
    return 0
}

/// What `activity(from:device:)` accepts keeps the bounds it promises.
private func check(_ metadata: Variant) {
    guard let activity = try? DeviceInterface.activity(from: metadata, device: "peer") else { return }
    for text in [activity.activityType, activity.appID, activity.teamIdentifier] {
        FuzzInput.require(!text.isEmpty && text.utf8.count <= 1024, "a field of \(text.utf8.count) bytes was accepted")
    }
    FuzzInput.require((activity.title?.utf8.count ?? 0) <= 1024, "a title over 1 KiB was kept")
    if let page = activity.webpageURL { FuzzInput.require(["http", "https"].contains(page.scheme ?? ""), "webpageURL \(page)") }
    _ = DeviceInterface.metadata(activity)
}

private func seeds() throws -> [String: Data] {
    let full = NearbyActivity(device: "laptop", sequence: 3, activityType: "com.example.edit", title: "Draft",
                              appID: "com.example.Editor", teamIdentifier: "TEAM123456",
                              webpageURL: URL(string: "https://example.com/d/1"))
    let bare = NearbyActivity(device: "laptop", sequence: 0, activityType: "t", title: nil, appID: "a", teamIdentifier: "T",
                              webpageURL: nil)
    return [
        "full": try DeviceInterface.metadata(full).serialized(),
        "bare": try DeviceInterface.metadata(bare).serialized(),
        "nothing": try DeviceInterface.metadata(nil).serialized(),
        "long-title": try DeviceInterface.metadata(NearbyActivity(
            device: "d", sequence: 1, activityType: "t", title: String(repeating: "é", count: 700), appID: "a",
            teamIdentifier: "T", webpageURL: nil)).serialized(),
        // Almost right: a sequence of the wrong type, an empty type, a page that is not on the web.
        "sequence-uint32": try Variant.dictionary(["sequence": .uint32(1), "type": .string("t"), "app": .string("a"),
                                                   "team": .string("T")]).serialized(),
        "empty-type": try Variant.dictionary(["sequence": .uint64(1), "type": .string(""), "app": .string("a"),
                                              "team": .string("T")]).serialized(),
        "file-page": try Variant.dictionary(["sequence": .uint64(1), "type": .string("t"), "app": .string("a"), "team": .string("T"),
                                             "webpageURL": .string("file:///etc/passwd")]).serialized(),
    ]
}

FuzzDriver.run(fuzzActivityMetadata)
