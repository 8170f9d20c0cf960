import BatonLoop
import Crypto
import Foundation
import SwiftASN1
import X509

/// The devices the group no longer trusts, signed by the group authority.
///
/// Each device checks a peer against the list it holds on every new connection and before it
/// answers every call, and drops the links of the devices a newer list revokes as soon as it
/// holds it. The list is signed, so any device may pass it on; a device only takes a list
/// with a higher `sequence` than the one it holds. File format (docs/PROTOCOL.md): GVariant
/// `(ayay)`, the body and the authority's ECDSA P-256 signature over the body's bytes. The body
/// is `(utasx)` — version 1, sequence, revoked serial numbers (hex, sorted), issue time — or,
/// for a list that rotates the discovery key, `(utasxay)` — version 2, the same, and the
/// SHA-256 of the discovery key of epoch `sequence` (`DiscoveryKey.commitment`).
public struct RevocationList: Sendable, Equatable {
    public var sequence: UInt64
    public var revokedSerials: Set<String>
    public var issued: Date
    /// The SHA-256 of the group's discovery key from this list on; nil for a list that does
    /// not rotate it (version 1).
    public var discoveryKeyCommitment: Data?

    public init(sequence: UInt64 = 0, revokedSerials: Set<String> = [], issued: Date = Date(), discoveryKeyCommitment: Data? = nil) {
        self.sequence = sequence
        self.revokedSerials = revokedSerials
        self.issued = issued
        self.discoveryKeyCommitment = discoveryKeyCommitment
    }

    static let version: UInt32 = 1
    static let rotatingVersion: UInt32 = 2

    private var body: Variant {
        var fields: [Variant] = [.uint32(discoveryKeyCommitment == nil ? Self.version : Self.rotatingVersion), .uint64(sequence),
                                 .array(elementType: "s", revokedSerials.sorted().map(Variant.string)),
                                 .int64(Int64(issued.timeIntervalSince1970))]
        if let discoveryKeyCommitment { fields.append(.bytes(discoveryKeyCommitment)) }
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
              case .bytes(let bodyBytes) = parts[0], case .bytes(let signature) = parts[1] else {
            throw TrustError.revocationListNotSigned(path: path)
        }
        guard authority.publicKey.isValidSignature(signature, for: bodyBytes, signatureAlgorithm: .ecdsaWithSHA256) else {
            throw TrustError.revocationListNotSigned(path: path)
        }
        // The version is the first field of either body: a version-1 body read as version 2
        // (or the reverse) shows the wrong version and is read the other way.
        var commitment: Data?
        let fields: [Variant]
        if case .tuple(let rotating)? = try? Variant(serialized: bodyBytes, type: "(utasxay)"),
           case .uint32(RevocationList.rotatingVersion) = rotating[0], case .bytes(let digest) = rotating[4], digest.count == 32 {
            fields = rotating
            commitment = digest
        } else if case .tuple(let plain)? = try? Variant(serialized: bodyBytes, type: "(utasx)"),
                  case .uint32(RevocationList.version) = plain[0] {
            fields = plain
        } else {
            throw TrustError.revocationListNotSigned(path: path)
        }
        guard case .uint64(let sequence) = fields[1], case .array(_, let serials) = fields[2],
              case .int64(let issued) = fields[3] else {
            throw TrustError.revocationListNotSigned(path: path)
        }
        return RevocationList(sequence: sequence,
                              revokedSerials: Set(serials.compactMap { if case .string(let s) = $0 { s } else { nil } }),
                              issued: Date(timeIntervalSince1970: TimeInterval(issued)), discoveryKeyCommitment: commitment)
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
