@testable import BatonContinuity
import BatonLoop
import Crypto
import Foundation
import FuzzSupport

// The group's signed list (revocations, discovery key commitment, names) a peer relays
// (GetRevocations) or a device loads from disk: `RevocationList.verified` against the group's
// certificate, and `DeviceIdentity.adopt`; a list read shows a name for any identifier.
//
// Input: one mode byte, then either the signed file (even mode: what an attacker without the
// authority's key can send) or a body that the target signs with the group's key (odd mode:
// reaches the parser behind the signature check).

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSetup.quietLogs()
    FuzzSeeds.writeIfAsked(seeds)
    _ = FuzzGroup.shared
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRevocationList(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    guard let mode = input.first else { return 0 }
    let group = FuzzGroup.shared
    let file: Data
    if mode & 1 == 0 {
        file = Data(input.dropFirst())
    } else {
        let body = Data(input.dropFirst())
        guard let signature = try? group.authorityKey.signature(for: body).derRepresentation,
              let signed = try? Variant.tuple([.bytes(body), .bytes(signature)]).serialized() else { return 0 }
        file = signed
    }
    guard let list = try? RevocationList.verified(file, authority: group.authority.certificate, path: "fuzz") else { return 0 }
    var holder = group.verifier
    do {
        try holder.adopt(revocationData: file)
        FuzzInput.require(holder.revocations == list, "adopt took another list than verified read")
        for identifier in list.deviceNames.keys.prefix(4) {
            FuzzInput.require(GroupAuthority.isAcceptableName(holder.deviceName(of: identifier)), "a name that could not be issued")
        }
    } catch TrustError.revocationListOlder {
    } catch {
        FuzzInput.require(false, "a list that verifies is refused by adopt: \(error)")
    }
    return 0
}

private func seeds() throws -> [String: Data] {
    let key = FuzzGroup.shared.authorityKey
    let issued = Date(timeIntervalSince1970: 1_780_000_000)
    func mode(_ m: UInt8, _ data: Data) -> Data { Data([m]) + data }
    func body(_ fields: [Variant]) throws -> Data { try Variant.tuple(fields).serialized() }
    return [
        "empty": mode(0, try RevocationList(sequence: 0, issued: issued).signed(with: key)),
        "one": mode(0, try RevocationList(sequence: 1, revokedSerials: ["0a1b2c"], issued: issued).signed(with: key)),
        "many": mode(0, try RevocationList(sequence: 9, revokedSerials: Set((0..<20).map { String(format: "%04x", $0 * 7919) }),
                                           issued: issued).signed(with: key)),
        // Version 3: a rotated key's epoch and commitment, device names, the group's name.
        "names": mode(0, try RevocationList(sequence: 7, revokedSerials: ["0a1b2c"], issued: issued,
                                            discoveryKeyCommitment: Data(repeating: 0x5a, count: 32), discoveryKeyEpoch: 4,
                                            deviceNames: ["00112233445566778899aabbccddeeff": "Ada's laptop", "laptop": "laptop"],
                                            groupName: "Ada").signed(with: key)),
        "body-version-3": mode(1, try body([.uint32(3), .uint64(2), .array(elementType: "s", []), .int64(1_780_000_000),
                                            .uint64(0), .bytes(Data()),
                                            .array(elementType: "(ss)", [.tuple([.string("0123"), .string("phone")])]), .string("Ada")])),
        "body-one": mode(1, try body([.uint32(1), .uint64(2), .array(elementType: "s", [.string("ff")]), .int64(1_780_000_000)])),
        // Almost right: another version, the wrong body type, a signature by another key, no signature.
        "body-version-2": mode(1, try body([.uint32(2), .uint64(2), .array(elementType: "s", []), .int64(0)])),
        "body-wrong-type": mode(1, try body([.uint32(1), .uint32(2)])),
        "other-key": mode(0, try RevocationList(sequence: 5, issued: issued).signed(with: P256.Signing.PrivateKey())),
        "unsigned": mode(0, try Variant.tuple([.bytes(try body([.uint32(1), .uint64(1), .array(elementType: "s", []), .int64(0)])),
                                               .bytes(Data())]).serialized()),
    ]
}

FuzzDriver.run(fuzzRevocationList)
