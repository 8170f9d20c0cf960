@testable import BatonContinuity
import Crypto
import Foundation
import FuzzSupport
import X509

// Certificates as the TLS verifier sees them (`CertificateCheck.decide`):
// `Certificate(derEncoded:)`, then `DeviceIdentity.verifyPeer` against the group.
//
// Input: one mode byte, then DER. Even mode: the DER as it came (what an attacker without the
// group's key can present). Odd mode: what parses is issued again by the group's key, as
// read, so the checks behind the signature see every extension and name the fuzzer makes.

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    FuzzSetup.quietLogs()
    FuzzSeeds.writeIfAsked(seeds)
    _ = FuzzGroup.shared
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCertificate(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = FuzzInput.data(bytes, count)
    guard let mode = input.first, let parsed = try? Certificate(derEncoded: Array(input.dropFirst())) else { return 0 }
    let group = FuzzGroup.shared
    var peer = parsed
    if mode & 1 == 1 {
        guard let reissued = try? Certificate(
            version: parsed.version, serialNumber: parsed.serialNumber, publicKey: parsed.publicKey,
            notValidBefore: parsed.notValidBefore, notValidAfter: parsed.notValidAfter,
            issuer: group.authority.certificate.subject, subject: parsed.subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: parsed.extensions, issuerPrivateKey: .init(group.authorityKey)) else { return 0 }
        peer = reissued
    }
    // What CertificateCheck reads of every certificate, then the verdict.
    _ = peer.serialHex
    _ = try? group.verifier.verifyPeer(peer)
    return 0
}

private func seeds() throws -> [String: Data] {
    let group = FuzzGroup.shared
    func der(_ certificate: Certificate) throws -> Data { Data(try certificate.derBytes()) }
    func mode(_ m: UInt8, _ data: Data) -> Data { Data([m]) + data }
    let device = try group.issue("laptop")
    // Made by the group's key with the usages the issue names as wrong for a device.
    func signed(_ extensions: Certificate.Extensions, name: String) throws -> Data {
        let key = P256.Signing.PrivateKey()
        let now = Date()
        return try der(Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(5 * 365 * 86_400),
            issuer: group.authority.certificate.subject,
            subject: try DistinguishedName { OrganizationName("Baton device"); CommonName(name) },
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(group.authorityKey)))
    }
    return [
        "device": mode(0, try der(device.certificate)),
        "device-reissued": mode(1, try der(device.certificate)),
        "group-authority": mode(0, try der(group.authority.certificate)),
        "no-extensions": mode(0, try signed(Certificate.Extensions(), name: "bare")),
        "ca-true": mode(0, try signed(try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
            try ExtendedKeyUsage([.serverAuth, .clientAuth])
        }, name: "ca")),
        "key-cert-sign-only": mode(0, try signed(try Certificate.Extensions { Critical(KeyUsage(keyCertSign: true)) }, name: "signer")),
        "server-only": mode(0, try signed(try Certificate.Extensions { try ExtendedKeyUsage([.serverAuth]) }, name: "server")),
        "other-group": mode(0, try der(try FuzzGroup.foreignDevice())),
    ]
}

FuzzDriver.run(fuzzCertificate)
