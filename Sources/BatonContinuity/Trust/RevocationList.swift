import BatonLoop
import Crypto
import Foundation
import SwiftASN1
import X509

/// The group's signed list: the devices it no longer trusts, the discovery key it holds now,
/// and the names of the group and its devices, signed by the group authority.
///
/// Each device checks a peer against the list it holds on every new connection and before it
/// answers every call, and drops the links of the devices a newer list revokes as soon as it
/// holds it. Certificates carry opaque identifiers (`OpaqueIdentifier`), so the names a device
/// shows for its peers come from here. The list is signed, so any device may pass it on; a
/// device only takes a list with a higher `sequence` than the one it holds. The authority
/// issues a new one for each device it adds (with that device's name) and each it revokes.
///
/// File format (docs/PROTOCOL.md): GVariant `(ayay)`, the body and the authority's ECDSA P-256
/// signature over the body's bytes. The body is `(utasxtaya(ss)s)` — version 3, sequence,
/// revoked serial numbers (hex, sorted), issue time, discovery key epoch, the SHA-256 of that
/// epoch's discovery key (empty if the key was never rotated), the device names (identifier,
/// name; sorted by identifier) and the group's name (empty if none). A list that carries the
/// group's relay settings (`RelaySettings`, issue 29) is version 4, `(utasxtaya(ss)s(ta(sus)suay))`:
/// the same fields and the settings last; a list without them is still written as version 3,
/// so devices that predate relay settings keep reading it. A list with relay settings that
/// also revokes devices is version 5, `(utasxtaya(ss)s(ta(sus)suay)as)`: version 4's fields and
/// the revoked devices' identifiers (sorted), which the relay connector needs (it knows the
/// devices it offers to by identifier, not by certificate); without relay settings nothing
/// needs them and they are not written. Older lists are still
/// read: `(utasx)` — version 1, no names, discovery key epoch 0 — and `(utasxay)` — version 2,
/// a rotated key whose epoch is the sequence.
public struct RevocationList: Sendable, Equatable {
    /// Increases with each list the authority issues: a device keeps the list with the
    /// highest sequence it has seen and refuses older ones.
    public var sequence: UInt64
    /// The serial numbers (hex) of the revoked device certificates.
    public var revokedSerials: Set<String>
    /// When the authority issued the list.
    public var issued: Date
    /// The SHA-256 of the group's discovery key from this list on; nil while the group's
    /// first key (epoch 0) was never rotated.
    public var discoveryKeyCommitment: Data?
    /// The epoch of the discovery key this list commits to (`DiscoveryKey(derivedFrom:epoch:)`).
    public var discoveryKeyEpoch: UInt64
    /// The name of each device the group issued with an opaque identifier, by identifier.
    public var deviceNames: [String: String]
    /// The group's name, as `baton group create` was given it; nil in a list older than names.
    public var groupName: String?
    /// The group's relay settings (TURN servers, broker, TURN shared secret), if the authority
    /// set them (`GroupAuthority.setRelaySettings(_:updating:)`); carried by every later list.
    public var relay: RelaySettings?
    /// The identifiers of the revoked devices (those of `revokedSerials` the authority could
    /// name), carried only in a list with relay settings (version 5): empty in one without.
    public var revokedDevices: Set<String>

    /// A list with these contents (unsigned: `GroupAuthority` signs it when it writes it).
    public init(sequence: UInt64 = 0, revokedSerials: Set<String> = [], issued: Date = Date(), discoveryKeyCommitment: Data? = nil,
                discoveryKeyEpoch: UInt64 = 0, deviceNames: [String: String] = [:], groupName: String? = nil,
                relay: RelaySettings? = nil, revokedDevices: Set<String> = []) {
        self.sequence = sequence
        self.revokedSerials = revokedSerials
        self.issued = issued
        self.discoveryKeyCommitment = discoveryKeyCommitment
        self.discoveryKeyEpoch = discoveryKeyEpoch
        self.deviceNames = deviceNames
        self.groupName = groupName
        self.relay = relay
        self.revokedDevices = revokedDevices
    }

    static let version: UInt32 = 1
    static let rotatingVersion: UInt32 = 2
    static let namingVersion: UInt32 = 3
    static let namingBodyType = "(utasxtaya(ss)s)"
    static let relayVersion: UInt32 = 4
    static let relayBodyType = "(utasxtaya(ss)s\(RelaySettings.variantType))"
    static let revokingVersion: UInt32 = 5
    static let revokingBodyType = "(utasxtaya(ss)s\(RelaySettings.variantType)as)"
    /// At most this many revoked identifiers are read from a list (more are refused).
    static let maximumRevokedDevices = 10_000

    /// The name to show for the device of `identifier`: its name in this list, or else
    /// `OpaqueIdentifier.shortForm` (for a device issued before names moved here, the name its
    /// certificate carries).
    public func deviceName(of identifier: String) -> String {
        deviceNames[identifier] ?? OpaqueIdentifier.shortForm(identifier)
    }

    /// The body: version 5 with relay settings and revoked devices, 4 with relay settings
    /// alone, 3 without.
    private var body: Variant {
        let version = relay == nil ? Self.namingVersion : revokedDevices.isEmpty ? Self.relayVersion : Self.revokingVersion
        var fields: [Variant] = [.uint32(version), .uint64(sequence),
                .array(elementType: "s", revokedSerials.sorted().map(Variant.string)),
                .int64(Int64(issued.timeIntervalSince1970)),
                .uint64(discoveryKeyEpoch), .bytes(discoveryKeyCommitment ?? Data()),
                .array(elementType: "(ss)", deviceNames.sorted { $0.key < $1.key }.map { .tuple([.string($0.key), .string($0.value)]) }),
                .string(groupName ?? "")]
        if let relay { fields.append(relay.variant) }
        if version == Self.revokingVersion { fields.append(.array(elementType: "s", revokedDevices.sorted().map(Variant.string))) }
        return .tuple(fields)
    }

    /// The signed file bytes.
    func signed(with key: P256.Signing.PrivateKey) throws -> Data {
        let bodyBytes = try body.serialized()
        let signature = try key.signature(for: bodyBytes).derRepresentation
        return try Variant.tuple([.bytes(bodyBytes), .bytes(signature)]).serialized()
    }

    /// Reads signed bytes, checking the signature against `authority`.
    static func verified(_ data: Data, authority: Certificate, path: String) throws -> RevocationList {
        guard case .tuple(let parts) = try Variant(serialized: data, type: "(ayay)"),
              case .bytes(var bodyBytes) = parts[0], case .bytes(let signature) = parts[1] else {
            throw TrustError.revocationListNotSigned(path: path)
        }
        guard authority.publicKey.isValidSignature(signature, for: bodyBytes, signatureAlgorithm: .ecdsaWithSHA256) else {
            throw TrustError.revocationListNotSigned(path: path)
        }
        // The version is the first field of every body: a body read as another version's type
        // shows the wrong version and is read the next way.
        var list: RevocationList
        let fields: [Variant]
        var relay: RelaySettings?
        var revokedDevices: Set<String> = []
        if case .tuple(let revoking)? = try? Variant(serialized: bodyBytes, type: revokingBodyType),
           case .uint32(RevocationList.revokingVersion) = revoking[0], case .array(_, let identifiers) = revoking[9] {
            guard identifiers.count <= maximumRevokedDevices else { throw TrustError.revocationListNotSigned(path: path) }
            revokedDevices = Set(identifiers.compactMap {
                if case .string(let identifier) = $0, GroupAuthority.isAcceptableName(identifier) { identifier } else { nil }
            })
            // The first nine fields are a version-4 body's: read on as one.
            bodyBytes = try Variant.tuple([.uint32(relayVersion)] + revoking[1..<9]).serialized()
        }
        if case .tuple(let withRelay)? = try? Variant(serialized: bodyBytes, type: relayBodyType),
           case .uint32(RevocationList.relayVersion) = withRelay[0] {
            // Signed by the authority, but settings over the caps are refused, naming why.
            do { relay = try RelaySettings(variant: withRelay[8]) } catch { throw TrustError.relaySettingsRefused(error) }
            guard relay != nil else { throw TrustError.revocationListNotSigned(path: path) }
            // The first eight fields are a version-3 body's: read on as one.
            bodyBytes = try Variant.tuple([.uint32(namingVersion)] + withRelay[1..<8]).serialized()
        }
        if case .tuple(let naming)? = try? Variant(serialized: bodyBytes, type: namingBodyType),
           case .uint32(RevocationList.namingVersion) = naming[0],
           case .uint64(let epoch) = naming[4], case .bytes(let digest) = naming[5], digest.isEmpty || digest.count == 32,
           case .array(_, let entries) = naming[6], case .string(let group) = naming[7] {
            fields = naming
            list = RevocationList(discoveryKeyCommitment: digest.isEmpty ? nil : digest, discoveryKeyEpoch: epoch,
                                  deviceNames: names(entries), groupName: GroupAuthority.isAcceptableName(group) ? group : nil)
        } else if case .tuple(let rotating)? = try? Variant(serialized: bodyBytes, type: "(utasxay)"),
           case .uint32(RevocationList.rotatingVersion) = rotating[0], case .bytes(let digest) = rotating[4], digest.count == 32,
           case .uint64(let sequence) = rotating[1] {
            fields = rotating
            list = RevocationList(discoveryKeyCommitment: digest, discoveryKeyEpoch: sequence)
        } else if case .tuple(let plain)? = try? Variant(serialized: bodyBytes, type: "(utasx)"),
                  case .uint32(RevocationList.version) = plain[0] {
            fields = plain
            list = RevocationList()
        } else {
            throw TrustError.revocationListNotSigned(path: path)
        }
        guard case .uint64(let sequence) = fields[1], case .array(_, let serials) = fields[2],
              case .int64(let issued) = fields[3] else {
            throw TrustError.revocationListNotSigned(path: path)
        }
        list.sequence = sequence
        list.relay = relay
        list.revokedDevices = relay == nil ? [] : revokedDevices
        list.revokedSerials = Set(serials.compactMap { if case .string(let s) = $0 { s } else { nil } })
        list.issued = Date(timeIntervalSince1970: TimeInterval(issued))
        return list
    }

    /// The names of a version-3 body: entries whose identifier is 1–64 printable characters
    /// and whose name passes `GroupAuthority.isAcceptableName` (as every name issued does).
    private static func names(_ entries: [Variant]) -> [String: String] {
        var names: [String: String] = [:]
        for entry in entries {
            guard case .tuple(let pair) = entry, pair.count == 2, case .string(let identifier) = pair[0],
                  case .string(let name) = pair[1], GroupAuthority.isAcceptableName(identifier),
                  GroupAuthority.isAcceptableName(name) else { continue }
            names[identifier] = name
        }
        return names
    }
}

extension Certificate {
    /// The serial number as lowercase hex, the form rosters and revocation lists use.
    public var serialHex: String { serialNumber.bytes.map { String(format: "%02x", $0) }.joined() }

    /// The SHA-256 fingerprint of the DER certificate, as colon-separated hex.
    public var fingerprint: String {
        guard let der = try? derBytes() else { return "?" }
        return SHA256.hash(data: der).map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// The subject's common name.
    public var commonName: String? {
        subject.flatMap { $0 }.first { $0.type == .RDNAttributeType.commonName }.map { "\($0.value)" }
    }

    func derBytes() throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(self)
        return serializer.serializedBytes
    }
}
