import BatonLoop
import Crypto
import Foundation
import SwiftASN1
import X509

/// The devices the group no longer trusts, signed by the group authority.
///
/// Each device checks a peer against the list it holds on every new connection, so a
/// revocation takes effect on the next connection once the list has reached the device. The
/// list is signed, so any device may pass it on; a device only takes a list with a higher
/// `sequence` than the one it holds. File format (docs/PROTOCOL.md): GVariant `(ayay)`, the
/// body `(utasx)` — version 1, sequence, revoked serial numbers (hex, sorted), issue time — and
/// the authority's ECDSA P-256 signature over the body's bytes.
public struct RevocationList: Sendable, Equatable {
    public var sequence: UInt64
    public var revokedSerials: Set<String>
    public var issued: Date

    public init(sequence: UInt64 = 0, revokedSerials: Set<String> = [], issued: Date = Date()) {
        self.sequence = sequence
        self.revokedSerials = revokedSerials
        self.issued = issued
    }

    static let version: UInt32 = 1

    private var body: Variant {
        .tuple([.uint32(RevocationList.version), .uint64(sequence),
                .array(elementType: "s", revokedSerials.sorted().map(Variant.string)),
                .int64(Int64(issued.timeIntervalSince1970))])
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
        guard case .tuple(let fields) = try Variant(serialized: bodyBytes, type: "(utasx)"),
              case .uint32(let version) = fields[0], version == RevocationList.version,
              case .uint64(let sequence) = fields[1], case .array(_, let serials) = fields[2],
              case .int64(let issued) = fields[3] else {
            throw TrustError.revocationListNotSigned(path: path)
        }
        return RevocationList(sequence: sequence,
                              revokedSerials: Set(serials.compactMap { if case .string(let s) = $0 { s } else { nil } }),
                              issued: Date(timeIntervalSince1970: TimeInterval(issued)))
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
