@testable import BatonContinuity
import BatonLoop
import Crypto
import Foundation
import FuzzSupport

// The pairing messages a window or a newcomer reads from a stranger (`PairingMessage`, after the
// frame's length was checked) and the grant the newcomer decodes (`DeviceGrant(serialized:)`):
// any bytes, as the body of each step; a message read must be written back as it was read.

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSetup.quietLogs()
    FuzzSeeds.writeIfAsked(seeds)
    return 0
}

private let steps: [PairingMessage.Step] = [.hello, .commit, .nonce, .reveal, .verdict, .grant, .saved]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPairingMessage(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzInput.data(bytes, count)
    for step in steps where data.count <= step.limit {
        guard let message = try? PairingMessage(step: step, body: data) else { continue }
        do {
            // (Reasons longer than 200 characters are cut when read, so the bytes may differ.)
            let frame = try message.frame()
            FuzzInput.require(frame.count <= data.count + 4, "a message read is written back larger")
            let again = try PairingMessage(step: step, body: frame.dropFirst(4))
            FuzzInput.require(again == message, "a message read is not written back as read")
        } catch {
            FuzzInput.require(false, "a message read cannot be written back: \(error)")
        }
        if case .grant(true, let grant, _) = message { _ = try? DeviceGrant(serialized: grant) }
    }
    _ = try? DeviceGrant(serialized: data)
    return 0
}

private func seeds() throws -> [String: Data] {
    let nonce = Data(repeating: 7, count: 32)
    let key = P256.Signing.PrivateKey()
    let directory = ConfigDirectory(url: FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-pairing-\(UUID().uuidString)"))
    defer { try? FileManager.default.removeItem(at: directory.url) }
    let grant = try GroupAuthority.create(name: "Ada", in: directory).grantDevice(named: "B", publicKey: key.publicKey).serialized()
    let messages: [String: PairingMessage] = [
        "hello": .hello(version: 1, typing: false),
        "commit": .commit(refusal: .none, commitment: nonce, reason: "", typing: true),
        "commit-refused": .commit(refusal: .nameRefused, commitment: Data(), reason: "a device named 'A' is already in the group", typing: false),
        "nonce": .nonce(nonce),
        "verdict": .verdict(true, name: "Zoë’s laptop"),
        "grant": .grant(ok: true, grant: grant, reason: ""),
        "grant-refused": .grant(ok: false, grant: Data(), reason: "not confirmed on the other device"),
        "saved": .saved(ok: false, reason: "disk full"),
    ]
    var result = try messages.mapValues { try $0.frame().dropFirst(4) }.mapValues { Data($0) }
    result["device-grant"] = grant
    return result
}

FuzzDriver.run(fuzzPairingMessage)
