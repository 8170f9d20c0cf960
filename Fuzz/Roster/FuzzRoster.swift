@testable import BatonContinuity
import BatonLoop
import Foundation
import FuzzSupport

// The group's roster (`group/roster`, read by every `baton device` and `baton revoke`):
// `Roster(data:)` on any bytes; a roster that was read must be written again as it was read.

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSetup.quietLogs()
    FuzzSeeds.writeIfAsked(seeds)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRoster(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let roster = try? Roster(data: FuzzInput.data(bytes, count), path: "fuzz input") else { return 0 }
    do {
        // Issue times are whole seconds in a Double: only names, serials and flags must come back exactly.
        let again = try Roster(data: try roster.data(), path: "fuzz input")
        FuzzInput.require(again.devices.map(\.name) == roster.devices.map(\.name)
                          && again.devices.map(\.serial) == roster.devices.map(\.serial)
                          && again.devices.map(\.revoked) == roster.devices.map(\.revoked), "a roster read is not written back as read")
    } catch {
        FuzzInput.require(false, "a roster read cannot be written back: \(error)")
    }
    return 0
}

private func seeds() throws -> [String: Data] {
    var roster = Roster()
    let issued = Date(timeIntervalSince1970: 1_780_000_000)
    roster.devices = [
        .init(name: "laptop", serial: "4f1c9a", issued: issued, revoked: false),
        .init(name: "phone", serial: "0b77", issued: issued.addingTimeInterval(60), revoked: true),
        .init(name: "Zoë’s tablet", serial: "01", issued: issued.addingTimeInterval(120), revoked: false),
    ]
    var early = Roster()
    early.devices = [.init(name: "old", serial: "02", issued: Date(timeIntervalSince1970: -86_400), revoked: false)]
    return [
        "empty": try Roster().data(),
        "three": try roster.data(),
        "before-1970": try early.data(),
        // Almost right: one field of the wrong type, a tuple too short.
        "wrong-type": try Variant.array(elementType: "(ssxs)", [.tuple([.string("a"), .string("01"), .int64(0), .string("no")])])
            .serialized(),
        "short": try Variant.array(elementType: "(ss)", [.tuple([.string("a"), .string("01")])]).serialized(),
    ]
}

FuzzDriver.run(fuzzRoster)
