import Crypto
import Foundation
import X509

/// This device's identity: its certificate and key, the group's certificate (the trust
/// anchor), and the group's signed list it holds (revocations and names). Made by
/// `GroupAuthority.issueDevice`, written with `write(to:)`, copied to the device, read there
/// with `load(from:)`.
public struct DeviceIdentity: Sendable {
    /// The identifier the certificate carries (its common name): opaque for a device issued
    /// now, the device's name for one issued before names moved to the signed list.
    public let identifier: String
    /// This device's certificate, signed by the group's CA, with the device profile.
    public let certificate: Certificate
    let privateKeyPEM: String
    /// The group's CA certificate: the trust anchor every peer's certificate is checked against.
    public let groupCertificate: Certificate
    /// The signed revocation list as held (its bytes can be passed on as they are).
    public private(set) var revocationData: Data
    /// The revocation list as parsed from `revocationData`, its signature checked.
    public private(set) var revocations: RevocationList
    /// The group's discovery secret, also proved and asked at the admission gate before TLS;
    /// nil for an identity issued before discovery existed, which then links through static
    /// peers only, without the gate (so only with devices that have no key either).
    public private(set) var discoveryKey: DiscoveryKey?
    /// The discovery key held before the last one adopted (`discovery.key.previous`), if any:
    /// proved at a device's admission gate when the current one is refused, so a device that
    /// missed a rotation of the key can still be reached. Never accepted from others.
    public private(set) var previousDiscoveryKey: DiscoveryKey?

    init(certificate: Certificate, privateKeyPEM: String, groupCertificate: Certificate,
         revocationData: Data, discoveryKey: DiscoveryKey?, previousDiscoveryKey: DiscoveryKey? = nil) throws {
        identifier = certificate.commonName ?? "?"
        self.discoveryKey = discoveryKey
        self.previousDiscoveryKey = previousDiscoveryKey
        self.certificate = certificate
        self.privateKeyPEM = privateKeyPEM
        self.groupCertificate = groupCertificate
        self.revocationData = revocationData
        revocations = try RevocationList.verified(revocationData, authority: groupCertificate, path: "revocations")
    }

    /// This device's name, as the list held gives it (see `RevocationList.deviceName(of:)`).
    public var name: String { revocations.deviceName(of: identifier) }

    /// The group's name, as the list held gives it (for a group created before names moved
    /// there, its certificate's common name).
    public var groupName: String { revocations.groupName ?? groupCertificate.commonName ?? "?" }

    /// The name to show for the peer device of `identifier` (what `verifyPeer` returned).
    public func deviceName(of identifier: String) -> String { revocations.deviceName(of: identifier) }

    /// The files of an identity, in its folder.
    static let files = ["key.pem", "certificate.pem", "group.pem", "revocations", "discovery.key", "discovery.key.previous"]

    /// Writes the identity's files to `directory` (the keys with mode 0600), all together or
    /// none. A folder that already holds an identity (any of its files) is refused with
    /// `TrustError.identityExists`, unless `replacingExisting`: then the old files are first
    /// moved to a new folder `replaced-TIMESTAMP` inside `directory` (mode 0700), never
    /// deleted. Returns that folder, if files were moved there.
    @discardableResult
    public func write(to directory: URL, replacingExisting: Bool = false) throws -> URL? {
        let files = FileTransaction()
        let movedAside = try stage(in: directory, replacingExisting: replacingExisting, files)
        try files.commit()
        return movedAside
    }

    /// Adds the identity's files to `transaction`; see `write(to:replacingExisting:)`.
    func stage(in directory: URL, replacingExisting: Bool, _ transaction: FileTransaction) throws -> URL? {
        var existing: [URL] = []
        for file in Self.files.map({ directory.appendingPathComponent($0) }) {
            if try SecureFiles.exists(file) { existing.append(file) }
        }
        var movedAside: URL?
        if let first = existing.first {
            guard replacingExisting else { throw TrustError.identityExists(path: first.path) }
            let folder = try Self.asideFolder(in: directory)
            transaction.keepAside(existing, in: folder)
            movedAside = folder
        }
        try transaction.write(Data(try certificate.serializeAsPEM().pemString.utf8),
                              to: directory.appendingPathComponent("certificate.pem"), mode: 0o644)
        try transaction.write(Data(privateKeyPEM.utf8), to: directory.appendingPathComponent("key.pem"), mode: 0o600)
        try transaction.write(Data(try groupCertificate.serializeAsPEM().pemString.utf8),
                              to: directory.appendingPathComponent("group.pem"), mode: 0o644)
        try transaction.write(revocationData, to: directory.appendingPathComponent("revocations"), mode: 0o600)
        if let discoveryKey {
            try transaction.write(discoveryKey.bytes, to: directory.appendingPathComponent("discovery.key"), mode: 0o600)
        }
        if let previousDiscoveryKey {
            try transaction.write(previousDiscoveryKey.bytes, to: directory.appendingPathComponent("discovery.key.previous"), mode: 0o600)
        }
        return movedAside
    }

    /// A name for a folder, not yet taken, to move a replaced identity into: `replaced-` and
    /// the time in UTC (`replaced-20261122T214800Z`), with `-2`, `-3`… if it is taken.
    private static func asideFolder(in directory: URL) throws(TrustError) -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = "replaced-\(formatter.string(from: Date()))"
        for suffix in 1...100 {
            let folder = directory.appendingPathComponent(suffix == 1 ? base : "\(base)-\(suffix)")
            if try !SecureFiles.exists(folder) { return folder }
        }
        throw TrustError.cannotWrite(path: directory.appendingPathComponent(base).path, reason: "a hundred folders of that name exist")
    }

    /// Reads an identity, refusing a key file others can read, a certificate the group did
    /// not sign, or a revocation list it did not sign. Every error names the file.
    public static func load(from directory: URL) throws -> DeviceIdentity {
        guard try SecureFiles.exists(directory.appendingPathComponent("certificate.pem")) else {
            throw TrustError.noIdentity(directory: directory.path)
        }
        let certificate = try SecureFiles.certificate(at: directory.appendingPathComponent("certificate.pem"))
        let keyFile = directory.appendingPathComponent("key.pem")
        let key = try SecureFiles.privateKey(at: keyFile)
        let group = try SecureFiles.certificate(at: directory.appendingPathComponent("group.pem"))
        guard Certificate.PublicKey(key.publicKey) == certificate.publicKey else {
            throw TrustError.malformedFile(path: keyFile.path, problem: "it is not the key of certificate.pem beside it")
        }
        guard group.publicKey.isValidSignature(certificate.signature, for: certificate) else {
            throw TrustError.malformedFile(path: directory.appendingPathComponent("certificate.pem").path,
                                           problem: "it is not signed by group.pem beside it: the two come from different groups")
        }
        let discoveryKey = try readDiscoveryKey(directory.appendingPathComponent("discovery.key"))
        let previous = try readDiscoveryKey(directory.appendingPathComponent("discovery.key.previous"))
        let revocations = try SecureFiles.revocationList(at: directory.appendingPathComponent("revocations"), authority: group)
        return try DeviceIdentity(certificate: certificate, privateKeyPEM: key.pemRepresentation,
                                  groupCertificate: group, revocationData: revocations.data, discoveryKey: discoveryKey,
                                  previousDiscoveryKey: discoveryKey == nil ? nil : previous)
    }

    /// The discovery key in `file` (mode 0600, 32 bytes), nil if there is no such file.
    static func readDiscoveryKey(_ file: URL) throws -> DiscoveryKey? {
        guard try SecureFiles.exists(file) else { return nil }
        let bytes = try SecureFiles.readPrivate(file)
        guard bytes.count == 32 else {
            throw TrustError.malformedFile(path: file.path, problem: "it holds \(bytes.count) bytes, not the 32 of a discovery key")
        }
        return try DiscoveryKey(bytes: bytes)
    }

    /// Takes a newer signed list (from the authority, or passed on by a peer); the names shown
    /// come from it from then on.
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

    /// Takes `bytes` as the group's discovery key if the revocation list held commits to it; the
    /// key held until then becomes `previousDiscoveryKey`.
    public mutating func adopt(discoveryKey bytes: Data) throws {
        let key = try DiscoveryKey(bytes: bytes)
        guard let commitment = revocations.discoveryKeyCommitment, key.commitment == commitment else {
            throw TrustError.discoveryKeyNotCommitted(sequence: revocations.sequence)
        }
        if discoveryKey != key { previousDiscoveryKey = discoveryKey }
        discoveryKey = key
    }

    /// The identifier of the device `peer` belongs to (its certificate's common name; see
    /// `deviceName(of:)` for the name to show), if it is a current device of this group: signed
    /// by the group, within its validity, for TLS clients and servers, and not revoked.
    public func verifyPeer(_ peer: Certificate, at time: Date = Date()) throws(TrustError) -> String {
        guard peer.issuer == groupCertificate.subject, groupCertificate.publicKey.isValidSignature(peer.signature, for: peer) else {
            throw .peerNotInGroup(reason: "its certificate is not signed by this device's group")
        }
        guard peer.notValidBefore <= time, time <= peer.notValidAfter else {
            throw .peerNotInGroup(reason: "its certificate is not valid at \(time)")
        }
        if let defect = Self.deviceProfileDefect(of: peer) {
            throw .peerNotInGroup(reason: "its certificate is not a device certificate: \(defect)")
        }
        let identifier = peer.commonName ?? "?"
        guard !revocations.revokedSerials.contains(peer.serialHex) else { throw .peerRevoked(device: deviceName(of: identifier)) }
        return identifier
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
