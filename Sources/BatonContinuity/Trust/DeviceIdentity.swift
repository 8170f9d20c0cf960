import Crypto
import Foundation
import X509

/// This device's identity: its certificate and key, the group's certificate (the trust
/// anchor), and the revocation list it holds. Made by `GroupAuthority.issueDevice`, written
/// with `write(to:)`, copied to the device, read there with `load(from:)`.
public struct DeviceIdentity: Sendable {
    public let name: String
    public let certificate: Certificate
    let privateKeyPEM: String
    public let groupCertificate: Certificate
    /// The signed revocation list as held (its bytes can be passed on as they are).
    public private(set) var revocationData: Data
    public private(set) var revocations: RevocationList
    /// The group's discovery secret; nil for an identity issued before discovery existed,
    /// which then links through static peers only.
    public private(set) var discoveryKey: DiscoveryKey?

    init(name: String, certificate: Certificate, privateKeyPEM: String, groupCertificate: Certificate,
         revocationData: Data, discoveryKey: DiscoveryKey?) throws {
        self.name = name
        self.discoveryKey = discoveryKey
        self.certificate = certificate
        self.privateKeyPEM = privateKeyPEM
        self.groupCertificate = groupCertificate
        self.revocationData = revocationData
        revocations = try RevocationList.verified(revocationData, authority: groupCertificate, path: "revocations")
    }

    /// Writes the identity's files to `directory` (the keys with mode 0600).
    public func write(to directory: URL) throws {
        try SecureFiles.write(Data(try certificate.serializeAsPEM().pemString.utf8),
                              to: directory.appendingPathComponent("certificate.pem"), mode: 0o644)
        try SecureFiles.write(Data(privateKeyPEM.utf8), to: directory.appendingPathComponent("key.pem"), mode: 0o600)
        try SecureFiles.write(Data(try groupCertificate.serializeAsPEM().pemString.utf8),
                              to: directory.appendingPathComponent("group.pem"), mode: 0o644)
        try SecureFiles.write(revocationData, to: directory.appendingPathComponent("revocations"), mode: 0o644)
        if let discoveryKey {
            try SecureFiles.write(discoveryKey.bytes, to: directory.appendingPathComponent("discovery.key"), mode: 0o600)
        }
    }

    /// Reads an identity, refusing a key file others can read, a certificate the group did
    /// not sign, or a revocation list it did not sign.
    public static func load(from directory: URL) throws -> DeviceIdentity {
        guard FileManager.default.fileExists(atPath: directory.appendingPathComponent("certificate.pem").path) else {
            throw TrustError.noIdentity(directory: directory.path)
        }
        let certificate = try Certificate(pemEncoded: String(decoding: try SecureFiles.read(directory.appendingPathComponent("certificate.pem")), as: UTF8.self))
        let key = String(decoding: try SecureFiles.readPrivate(directory.appendingPathComponent("key.pem")), as: UTF8.self)
        let group = try Certificate(pemEncoded: String(decoding: try SecureFiles.read(directory.appendingPathComponent("group.pem")), as: UTF8.self))
        let key256 = try P256.Signing.PrivateKey(pemRepresentation: key)
        guard Certificate.PublicKey(key256.publicKey) == certificate.publicKey else {
            throw TrustError.unreadable(path: directory.appendingPathComponent("key.pem").path, reason: "the key does not match certificate.pem")
        }
        guard group.publicKey.isValidSignature(certificate.signature, for: certificate) else {
            throw TrustError.peerNotInGroup(reason: "certificate.pem is not signed by group.pem")
        }
        let discoveryFile = directory.appendingPathComponent("discovery.key")
        let discoveryKey = FileManager.default.fileExists(atPath: discoveryFile.path)
            ? try DiscoveryKey(bytes: try SecureFiles.readPrivate(discoveryFile)) : nil
        return try DeviceIdentity(name: certificate.commonName ?? "?", certificate: certificate, privateKeyPEM: key,
                                  groupCertificate: group,
                                  revocationData: try SecureFiles.read(directory.appendingPathComponent("revocations")),
                                  discoveryKey: discoveryKey)
    }

    /// Takes a newer signed revocation list (from the authority, or passed on by a peer).
    public mutating func adopt(revocationData data: Data) throws {
        let list = try RevocationList.verified(data, authority: groupCertificate, path: "offered revocation list")
        guard list.sequence >= revocations.sequence else {
            throw TrustError.revocationListOlder(have: revocations.sequence, offered: list.sequence)
        }
        revocations = list
        revocationData = data
    }

    /// False when the revocation list held rotated the discovery key and the key held is not
    /// that list's (it commits to another): the device then has to get the new key.
    public var discoveryKeyIsCurrent: Bool {
        guard let commitment = revocations.discoveryKeyCommitment else { return true }
        return discoveryKey?.commitment == commitment
    }

    /// Takes `bytes` as the group's discovery key if the revocation list held commits to it.
    public mutating func adopt(discoveryKey bytes: Data) throws {
        let key = try DiscoveryKey(bytes: bytes)
        guard let commitment = revocations.discoveryKeyCommitment, key.commitment == commitment else {
            throw TrustError.discoveryKeyNotCommitted(sequence: revocations.sequence)
        }
        discoveryKey = key
    }

    /// The name of the device `peer` belongs to, if it is a current device of this group: signed
    /// by the group, within its validity, for TLS clients and servers, and not revoked.
    public func verifyPeer(_ peer: Certificate, at time: Date = Date()) throws(TrustError) -> String {
        guard peer.issuer == groupCertificate.subject, groupCertificate.publicKey.isValidSignature(peer.signature, for: peer) else {
            throw .peerNotInGroup(reason: "its certificate is not signed by \(groupCertificate.commonName ?? "the group")")
        }
        guard peer.notValidBefore <= time, time <= peer.notValidAfter else {
            throw .peerNotInGroup(reason: "its certificate is not valid at \(time)")
        }
        if let defect = Self.deviceProfileDefect(of: peer) {
            throw .peerNotInGroup(reason: "its certificate is not a device certificate: \(defect)")
        }
        let name = peer.commonName ?? "?"
        guard !revocations.revokedSerials.contains(peer.serialHex) else { throw .peerRevoked(device: name) }
        return name
    }

    /// What keeps `certificate` from being a device certificate as the protocol defines one
    /// (docs/PROTOCOL.md, "Device certificates"), or nil. Fails closed: each extension must be
    /// present, well formed and exactly as `GroupAuthority.issueDevice` issues it —
    /// basicConstraints CA:FALSE, keyUsage digitalSignature only, extendedKeyUsage serverAuth
    /// and clientAuth only.
    static func deviceProfileDefect(of certificate: Certificate) -> String? {
        let extensions = certificate.extensions
        do {
            switch try extensions.basicConstraints {
            case .notCertificateAuthority?: break
            case .isCertificateAuthority?: return "it is a certificate authority (basicConstraints CA:TRUE)"
            case nil: return "it has no basicConstraints"
            }
            guard let usage = try extensions.keyUsage else { return "it has no keyUsage" }
            guard usage == KeyUsage(digitalSignature: true) else { return "its keyUsage is not digitalSignature alone" }
            guard let extended = try extensions.extendedKeyUsage else { return "it has no extendedKeyUsage" }
            guard Set(extended) == [.serverAuth, .clientAuth], extended.count == 2 else {
                return "its extendedKeyUsage is not serverAuth and clientAuth alone"
            }
        } catch {
            return "an extension is malformed (\(error))"
        }
        return nil
    }

    /// The certificate and key as one PEM, as `g_tls_certificate_new_from_pem` takes them.
    var tlsPEM: String {
        ((try? certificate.serializeAsPEM().pemString) ?? "") + "\n" + privateKeyPEM + "\n"
    }
}
