import BatonLoop
import Crypto
import Foundation
import X509

/// The device group's certificate authority, on the machine that administers the group.
///
/// The trust anchor is a CA (not a signed roster) because every TLS stack verifies a chain to a
/// CA by itself — GnuTLS in GIO, and real clients such as `openssl s_client` — so membership is
/// proved by the TLS handshake, with nothing home-made on the wire. Revocation, which a CA alone
/// lacks, is a signed list (`RevocationList`).
public struct GroupAuthority: Sendable {
    public let certificate: Certificate
    let privateKey: P256.Signing.PrivateKey
    let directory: ConfigDirectory

    public var name: String { certificate.commonName ?? "?" }

    /// Creates a group: a P-256 CA certificate valid for 20 years, its key (0600), an empty
    /// roster and revocation list, in `directory/group`.
    public static func create(name: String, in directory: ConfigDirectory) throws -> GroupAuthority {
        guard !FileManager.default.fileExists(atPath: directory.groupDirectory.appendingPathComponent("authority.pem").path) else {
            throw TrustError.groupExists(directory: directory.groupDirectory.path)
        }
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName {
            OrganizationName("Baton device group")
            CommonName(name)
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(20 * 365 * 86_400),
            issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(key))
        let authority = GroupAuthority(certificate: certificate, privateKey: key, directory: directory)
        let group = directory.groupDirectory
        try SecureFiles.write(Data(try certificate.serializeAsPEM().pemString.utf8), to: group.appendingPathComponent("authority.pem"), mode: 0o644)
        try SecureFiles.write(Data(key.pemRepresentation.utf8), to: group.appendingPathComponent("authority-key.pem"), mode: 0o600)
        try authority.save(Roster())
        try authority.publish(RevocationList())
        return authority
    }

    /// The group administered from `directory`.
    public static func load(from directory: ConfigDirectory) throws -> GroupAuthority {
        let group = directory.groupDirectory
        guard FileManager.default.fileExists(atPath: group.appendingPathComponent("authority.pem").path) else {
            throw TrustError.noGroup(directory: group.path)
        }
        let certificate = try Certificate(pemEncoded: String(decoding: try SecureFiles.read(group.appendingPathComponent("authority.pem")), as: UTF8.self))
        let key = try P256.Signing.PrivateKey(
            pemRepresentation: String(decoding: try SecureFiles.readPrivate(group.appendingPathComponent("authority-key.pem")), as: UTF8.self))
        return GroupAuthority(certificate: certificate, privateKey: key, directory: directory)
    }

    /// Issues a device: its own P-256 key and a certificate for client and server TLS, valid
    /// for 5 years, recorded in the roster, with the group's discovery key. Returns the identity
    /// to copy to that device.
    public func issueDevice(named name: String) throws -> DeviceIdentity {
        guard !name.isEmpty, name.count <= 64, !name.contains("/"), name.allSatisfy({ !$0.isNewline && $0 != "\0" }) else {
            throw TrustError.invalidDeviceName(name)
        }
        var roster = try loadRoster()
        guard !roster.devices.contains(where: { $0.name == name }) else { throw TrustError.deviceExists(name) }
        let key = P256.Signing.PrivateKey()
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(5 * 365 * 86_400),
            issuer: self.certificate.subject,
            subject: try DistinguishedName {
                OrganizationName("Baton device")
                CommonName(name)
            },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
            },
            issuerPrivateKey: .init(privateKey))
        roster.devices.append(.init(name: name, serial: certificate.serialHex, issued: now, revoked: false))
        try save(roster)
        let revocations = try SecureFiles.read(directory.groupDirectory.appendingPathComponent("revocations"))
        return try DeviceIdentity(name: name, certificate: certificate, privateKeyPEM: key.pemRepresentation,
                                  groupCertificate: self.certificate, revocationData: revocations,
                                  discoveryKey: DiscoveryKey(derivedFrom: privateKey))
    }

    /// Revokes a device: it is marked in the roster and a new signed revocation list, with the
    /// next sequence number, is written. Returns the list's bytes, to copy to the devices.
    @discardableResult
    public func revokeDevice(named name: String) throws -> Data {
        var roster = try loadRoster()
        guard let index = roster.devices.firstIndex(where: { $0.name == name }) else { throw TrustError.noSuchDevice(name) }
        roster.devices[index].revoked = true
        try save(roster)
        let current = try revocationList()
        return try publish(RevocationList(sequence: current.sequence + 1,
                                          revokedSerials: Set(roster.devices.filter(\.revoked).map(\.serial))))
    }

    /// The devices issued so far.
    public func loadRoster() throws -> Roster {
        try Roster(data: try SecureFiles.read(directory.groupDirectory.appendingPathComponent("roster")))
    }

    /// The group's current revocation list.
    public func revocationList() throws -> RevocationList {
        let path = directory.groupDirectory.appendingPathComponent("revocations")
        return try RevocationList.verified(try SecureFiles.read(path), authority: certificate, path: path.path)
    }

    private func save(_ roster: Roster) throws {
        try SecureFiles.write(try roster.data(), to: directory.groupDirectory.appendingPathComponent("roster"), mode: 0o600)
    }

    @discardableResult
    private func publish(_ list: RevocationList) throws -> Data {
        let data = try list.signed(with: privateKey)
        try SecureFiles.write(data, to: directory.groupDirectory.appendingPathComponent("revocations"), mode: 0o644)
        return data
    }
}

/// The devices a group has issued: GVariant `a(ssxb)` — name, serial (hex), issue time, revoked.
public struct Roster: Sendable, Equatable {
    public struct Device: Sendable, Equatable {
        public var name: String
        public var serial: String
        public var issued: Date
        public var revoked: Bool
    }

    public var devices: [Device] = []

    init() {}

    init(data: Data) throws {
        guard case .array(_, let items) = try Variant(serialized: data, type: "a(ssxb)") else { return }
        devices = items.compactMap {
            guard case .tuple(let f) = $0, case .string(let name) = f[0], case .string(let serial) = f[1],
                  case .int64(let issued) = f[2], case .bool(let revoked) = f[3] else { return nil }
            return Device(name: name, serial: serial, issued: Date(timeIntervalSince1970: TimeInterval(issued)), revoked: revoked)
        }
    }

    func data() throws -> Data {
        try Variant.array(elementType: "(ssxb)", devices.map {
            .tuple([.string($0.name), .string($0.serial), .int64(Roster.seconds($0.issued)), .bool($0.revoked)])
        }).serialized()
    }

    /// Whole seconds since 1970 (truncated), clamped to `Int64`: a roster read from disk may
    /// hold any `x`, and near `Int64.max` the `Double` in between rounds past it.
    static func seconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970.rounded(.towardZero)
        if seconds.isNaN { return 0 }
        if seconds >= 0x1p63 { return .max }
        if seconds < -0x1p63 { return .min }
        return Int64(seconds)
    }
}
