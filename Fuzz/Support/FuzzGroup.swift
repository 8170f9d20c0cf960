@testable import BatonContinuity
import Crypto
import Foundation
import X509

/// A device group whose authority key is fixed, so that the committed seeds (device
/// certificates, revocation lists) verify in every later run; made with Baton's own
/// `GroupAuthority`, in a temporary directory.
public struct FuzzGroup: Sendable {
    public let authority: GroupAuthority
    /// A device of the group, the verifier in the certificate target.
    public let verifier: DeviceIdentity
    public var authorityKey: P256.Signing.PrivateKey { authority.privateKey }

    /// The one group of the process.
    public static let shared: FuzzGroup = {
        do { return try FuzzGroup() } catch { fatalError("fuzz: cannot make the group: \(error)") }
    }()

    private init() throws {
        let key = try P256.Signing.PrivateKey(rawRepresentation: Array(SHA256.hash(data: Data("baton fuzz group authority".utf8))))
        let subject = try DistinguishedName {
            OrganizationName("Baton device group")
            CommonName("Fuzz")
        }
        let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(bytes: [0x01]),
            publicKey: .init(key.publicKey),
            notValidBefore: start, notValidAfter: start.addingTimeInterval(20 * 365 * 86_400),
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(key))
        let directory = ConfigDirectory(url: FileManager.default.temporaryDirectory
            .appendingPathComponent("baton-fuzz-\(getpid())", isDirectory: true))
        try FileManager.default.createDirectory(at: directory.groupDirectory, withIntermediateDirectories: true)
        try SecureFiles.write(try Roster().data(), to: directory.groupDirectory.appendingPathComponent("roster"), mode: 0o600)
        try SecureFiles.write(try RevocationList().signed(with: key),
                              to: directory.groupDirectory.appendingPathComponent("revocations"), mode: 0o600)
        authority = GroupAuthority(certificate: certificate, privateKey: key, directory: directory)
        verifier = try authority.issueDevice(named: "verifier")
        try? FileManager.default.removeItem(at: directory.url)
    }

    /// A new device of the group, issued as `baton device add` issues one (in a directory of
    /// its own, removed again).
    public func issue(_ name: String) throws -> DeviceIdentity {
        let directory = ConfigDirectory(url: FileManager.default.temporaryDirectory
            .appendingPathComponent("baton-fuzz-\(getpid())-\(name)", isDirectory: true))
        defer { try? FileManager.default.removeItem(at: directory.url) }
        try FileManager.default.createDirectory(at: directory.groupDirectory, withIntermediateDirectories: true)
        try SecureFiles.write(try Roster().data(), to: directory.groupDirectory.appendingPathComponent("roster"), mode: 0o600)
        try SecureFiles.write(try RevocationList().signed(with: authorityKey),
                              to: directory.groupDirectory.appendingPathComponent("revocations"), mode: 0o600)
        return try GroupAuthority(certificate: authority.certificate, privateKey: authorityKey, directory: directory)
            .issueDevice(named: name)
    }
}

extension FuzzGroup {
    /// A device certificate of another group (its own authority, made by `GroupAuthority.create`).
    public static func foreignDevice() throws -> Certificate {
        let directory = ConfigDirectory(url: FileManager.default.temporaryDirectory
            .appendingPathComponent("baton-fuzz-\(getpid())-foreign", isDirectory: true))
        defer { try? FileManager.default.removeItem(at: directory.url) }
        return try GroupAuthority.create(name: "Other", in: directory).issueDevice(named: "stranger").certificate
    }
}
