import BatonLoop
import Crypto
import Foundation
import X509

/// The device group's certificate authority, on the machine that administers the group.
///
/// The trust anchor is a CA (not a signed roster) because every TLS stack verifies a chain to a
/// CA by itself — GnuTLS in GIO, and real clients such as `openssl s_client` — so membership is
/// proved by the TLS handshake, with nothing home-made on the wire. Revocation, which a CA alone
/// lacks, is a signed list (`RevocationList`), which also carries the names: certificates
/// name nothing but an opaque identifier (`OpaqueIdentifier`), so a client that connects
/// without a certificate learns no name of the user, the group or the device.
public struct GroupAuthority: Sendable {
    /// The group's CA certificate (ECDSA P-256, self-signed): every device holds it as its
    /// trust anchor.
    public let certificate: Certificate
    let privateKey: P256.Signing.PrivateKey
    let directory: ConfigDirectory

    /// The group's name, from its signed list (for a group created before names moved there,
    /// its certificate's common name).
    public var name: String { (try? revocationList().groupName) ?? certificate.commonName ?? "?" }

    /// The files of a group, in `directory/group`.
    static let groupFiles = ["authority.pem", "authority-key.pem", "roster", "revocations"]

    /// True if `name` may name a device or a group: 1–64 characters that all show as
    /// themselves (`PrintableText`: no control, format or bidirectional characters), no `/`,
    /// no leading or trailing space. Every name issued passes this one rule.
    public static func isAcceptableName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && !name.contains("/") && PrintableText.isPrintable(name)
            && name.first?.isWhitespace == false && name.last?.isWhitespace == false
    }

    /// Creates a group: a P-256 CA certificate valid for 20 years whose subject is a random
    /// identifier, its key (0600), an empty roster, and a signed list with the group's name
    /// and no device yet, in `directory/group`, written together or not at all. A folder that
    /// holds any file of a group is left alone.
    public static func create(name: String, in directory: ConfigDirectory) throws -> GroupAuthority {
        guard isAcceptableName(name) else { throw TrustError.invalidGroupName(name) }
        let group = directory.groupDirectory
        for file in groupFiles {
            if try SecureFiles.exists(group.appendingPathComponent(file)) { throw TrustError.groupExists(directory: group.path) }
        }
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(OpaqueIdentifier.random()) }
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
        let files = FileTransaction()
        try files.write(Data(try certificate.serializeAsPEM().pemString.utf8), to: group.appendingPathComponent("authority.pem"), mode: 0o644)
        try files.write(Data(key.pemRepresentation.utf8), to: group.appendingPathComponent("authority-key.pem"), mode: 0o600)
        try authority.stage(Roster(), in: files)
        try authority.stage(RevocationList(groupName: name), in: files)
        try files.commit()
        return authority
    }

    /// The group administered from `directory`.
    public static func load(from directory: ConfigDirectory) throws -> GroupAuthority {
        let group = directory.groupDirectory
        guard try SecureFiles.exists(group.appendingPathComponent("authority.pem")) else {
            // A device of a group administered elsewhere is not told to create a group.
            if let member = try? DeviceIdentity.load(from: directory.deviceDirectory) {
                throw TrustError.authorityElsewhere(directory: group.path, group: member.groupName)
            }
            throw TrustError.noGroup(directory: group.path)
        }
        let certificate = try SecureFiles.certificate(at: group.appendingPathComponent("authority.pem"))
        let keyFile = group.appendingPathComponent("authority-key.pem")
        let key = try SecureFiles.privateKey(at: keyFile)
        guard Certificate.PublicKey(key.publicKey) == certificate.publicKey else {
            throw TrustError.malformedFile(path: keyFile.path, problem: "it is not the key of authority.pem beside it")
        }
        return GroupAuthority(certificate: certificate, privateKey: key, directory: directory)
    }

    /// Issues a device: its own P-256 key and a certificate for client and server TLS, valid
    /// for 5 years, whose subject is a random identifier; recorded in the roster; with the
    /// group's discovery key and a new signed list (the next sequence) that names it. Returns
    /// the identity to copy to that device. The list is also written into each of
    /// `deviceDirectories` that holds a list and belongs to this group (this machine's own
    /// device), as `revokeDevice(named:updating:)` does. Nothing is recorded if it fails.
    public func issueDevice(named name: String, updating deviceDirectories: [URL] = []) throws -> DeviceIdentity {
        let (identity, roster) = try prepareDevice(named: name)
        let files = FileTransaction()
        try stage(roster, in: files)
        try stage(identity.revocationData, in: files, updating: deviceDirectories)
        try files.commit()
        return identity
    }

    /// Issues a device and writes its identity to `folder` (as `DeviceIdentity.write(to:)`),
    /// in one step: the roster records the device only if its files are written, and a
    /// failure leaves the group and `folder` as they were. A folder that already holds an
    /// identity is refused, unless `replacingExisting`: then its files are first moved to a
    /// new folder `replaced-TIMESTAMP` inside it (mode 0700), never deleted. Returns the
    /// identity and that folder, if files were moved there. The new list naming the device is
    /// written as with `issueDevice(named:updating:)`.
    public func issueDevice(named name: String, writingTo folder: URL, replacingExisting: Bool = false,
                            updating deviceDirectories: [URL] = []) throws -> (identity: DeviceIdentity, movedAside: URL?) {
        let (identity, roster) = try prepareDevice(named: name)
        let files = FileTransaction()
        let movedAside = try identity.stage(in: folder, replacingExisting: replacingExisting, files)
        try stage(roster, in: files)
        try stage(identity.revocationData, in: files,
                  updating: deviceDirectories.filter { $0.standardizedFileURL != folder.standardizedFileURL })
        try files.commit()
        return (identity, movedAside)
    }

    /// The identity of a new device, with the list that names it, and the roster that records
    /// it, none written yet. The device's key is made here (`baton device add`).
    private func prepareDevice(named name: String) throws -> (DeviceIdentity, Roster) {
        let key = P256.Signing.PrivateKey()
        let (certificate, list, roster) = try prepareCertificate(named: name, publicKey: key.publicKey)
        let identity = try DeviceIdentity(certificate: certificate, privateKeyPEM: key.pemRepresentation,
                                          groupCertificate: self.certificate, revocationData: list,
                                          discoveryKey: try discoveryKey())
        return (identity, roster)
    }

    /// Refuses `name` for a new device unless it is acceptable (`isAcceptableName`) and no
    /// device of the roster (revoked ones included) bears it: `TrustError.invalidDeviceName`
    /// or `TrustError.deviceExists`. Pairing asks it once both people have confirmed the code
    /// (the name travels with the new device's "yes"), before the device is issued.
    public func checkNewDeviceName(_ name: String) throws {
        guard GroupAuthority.isAcceptableName(name) else { throw TrustError.invalidDeviceName(name) }
        guard !(try loadRoster()).devices.contains(where: { $0.name == name }) else { throw TrustError.deviceExists(name) }
    }

    /// Issues a device whose key was made on the device itself (pairing): a certificate for
    /// `publicKey`, as `issueDevice(named:updating:)` issues one, recorded in the roster, and a
    /// new signed list naming it, written (with the lists of `deviceDirectories`, as there) all
    /// together or not at all. Returns what the device needs beside its own key: the grant
    /// holds no private key. A name taken or not acceptable is refused (`checkNewDeviceName`).
    public func grantDevice(named name: String, publicKey: P256.Signing.PublicKey,
                            updating deviceDirectories: [URL] = []) throws -> DeviceGrant {
        let (certificate, list, roster) = try prepareCertificate(named: name, publicKey: publicKey)
        let grant = DeviceGrant(certificate: certificate, groupCertificate: self.certificate, revocationData: list,
                                discoveryKey: try discoveryKey())
        let files = FileTransaction()
        try stage(roster, in: files)
        try stage(list, in: files, updating: deviceDirectories)
        try files.commit()
        return grant
    }

    /// A device certificate for `publicKey`, the next signed list naming it, and the roster
    /// recording it, none written yet.
    private func prepareCertificate(named name: String,
                                    publicKey: P256.Signing.PublicKey) throws -> (Certificate, Data, Roster) {
        try checkNewDeviceName(name)
        var roster = try loadRoster()
        let identifier = OpaqueIdentifier.random()
        var list = try revocationList()
        list.sequence += 1
        list.issued = Date()
        list.deviceNames[identifier] = name
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: .init(publicKey),
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(5 * 365 * 86_400),
            issuer: self.certificate.subject,
            subject: try DistinguishedName { CommonName(identifier) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth, .clientAuth])
            },
            issuerPrivateKey: .init(privateKey))
        roster.devices.append(.init(name: name, serial: certificate.serialHex, issued: now, revoked: false))
        return (certificate, try list.signed(with: privateKey), roster)
    }

    /// Revokes a device: it is marked in the roster and a new signed list, with the next
    /// sequence number (and the names of the one before), is written. The list rotates the discovery key: the new key is
    /// written as `group/discovery.key` (0600), to copy with the list to one device, which
    /// hands it to the others. The list and the key are also written into each of
    /// `deviceDirectories` that holds a list and belongs to this group (this machine's own
    /// device), whose key held until then becomes its `discovery.key.previous`. With relay
    /// settings holding a TURN secret, the list carries a new secret
    /// (`RelaySettings.rotatingTURNSecret()`). The list is also written as an X.509 CRL for the
    /// broker, `group/revocations.crl` (`GroupAuthority.crlFileName`, mode 0644). All of it is
    /// written together or not at all. Returns the list's bytes, to copy to the devices.
    @discardableResult
    public func revokeDevice(named name: String, updating deviceDirectories: [URL] = []) throws -> Data {
        var roster = try loadRoster()
        guard let index = roster.devices.firstIndex(where: { $0.name == name }) else { throw TrustError.noSuchDevice(name) }
        roster.devices[index].revoked = true
        var list = try revocationList()
        list.sequence += 1  // the new list rotates the discovery key: a new epoch, `sequence` (above every earlier one)
        list.issued = Date()
        list.revokedSerials = Set(roster.devices.filter(\.revoked).map(\.serial))
        list.revokedDevices = Self.revokedDevices(in: roster, names: list.deviceNames)  // for the relay connector (issue 29)
        let key = DiscoveryKey(derivedFrom: privateKey, epoch: list.sequence)
        list.discoveryKeyEpoch = list.sequence
        list.discoveryKeyCommitment = key.commitment
        list.relay = list.relay?.rotatingTURNSecret()  // the revoked device knew the TURN secret (issue 29)
        let files = FileTransaction()
        try stage(roster, in: files)
        try stageCertificateRevocationList(of: list, in: files)  // for the broker (issue 29)
        let data = try list.signed(with: privateKey)
        try files.write(key.bytes, to: directory.groupDirectory.appendingPathComponent("discovery.key"), mode: 0o600)
        for device in try stage(data, in: files, updating: deviceDirectories) {
            // The key replaced stays beside it as the previous one, proved at the admission
            // gate of a device that missed this rotation (see `DeviceIdentity.previousDiscoveryKey`).
            let held = device.appendingPathComponent("discovery.key")
            if let previous = try? DeviceIdentity.readDiscoveryKey(held), previous != key {
                try files.write(previous.bytes, to: device.appendingPathComponent("discovery.key.previous"), mode: 0o600)
            }
            try files.write(key.bytes, to: held, mode: 0o600)
        }
        try files.commit()
        return data
    }

    /// The group's discovery key now: that of the epoch the current list names (epoch 0 until a
    /// revocation rotates it). Devices issued now get it; after a revocation, write it beside one device's
    /// identity as `discovery.key` (with the new `revocations`) and the others get it over their links.
    public func discoveryKey() throws -> DiscoveryKey {
        let list = try revocationList()
        return DiscoveryKey(derivedFrom: privateKey, epoch: list.discoveryKeyEpoch)
    }

    /// The devices issued so far.
    public func loadRoster() throws -> Roster {
        let path = directory.groupDirectory.appendingPathComponent("roster")
        return try Roster(data: try SecureFiles.read(path), path: path.path)
    }

    /// The group's current revocation list.
    public func revocationList() throws -> RevocationList {
        try SecureFiles.revocationList(at: directory.groupDirectory.appendingPathComponent("revocations"), authority: certificate).list
    }

    private func stage(_ roster: Roster, in files: FileTransaction) throws {
        try files.write(try roster.data(), to: directory.groupDirectory.appendingPathComponent("roster"), mode: 0o600)
    }

    private func stage(_ list: RevocationList, in files: FileTransaction) throws {
        try stage(try list.signed(with: privateKey), in: files, updating: [])
    }

    /// Adds the signed list `data` as the group's list (0600: it names the devices) and as the
    /// list of each of `deviceDirectories` that holds one and belongs to this group; returns those.
    @discardableResult
    func stage(_ data: Data, in files: FileTransaction, updating deviceDirectories: [URL]) throws -> [URL] {
        try files.write(data, to: directory.groupDirectory.appendingPathComponent("revocations"), mode: 0o600)
        var updated: [URL] = []
        for device in deviceDirectories {
            let list = device.appendingPathComponent("revocations")
            guard try SecureFiles.exists(list),
                  (try? SecureFiles.certificate(at: device.appendingPathComponent("group.pem"))) == certificate else { continue }
            try files.write(data, to: list, mode: 0o600)
            updated.append(device)
        }
        return updated
    }
}

/// The devices a group has issued: GVariant `a(ssxb)` — name, serial (hex), issue time, revoked.
public struct Roster: Sendable, Equatable {
    /// One issued device, as `baton device list` shows it.
    public struct Device: Sendable, Equatable {
        /// The name it was issued with.
        public var name: String
        /// Its certificate's serial number, in hex (what a revocation lists).
        public var serial: String
        /// When it was issued.
        public var issued: Date
        /// Whether the group has revoked it.
        public var revoked: Bool
    }

    /// The issued devices, in the order they were issued.
    public var devices: [Device] = []

    init() {}

    init(data: Data, path: String) throws {
        let variant: Variant
        do { variant = try Variant(serialized: data, type: "a(ssxb)") } catch {
            throw TrustError.malformedFile(path: path, problem: "it is not a roster (a GVariant a(ssxb))")
        }
        guard case .array(_, let items) = variant else { return }
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
