import Crypto
import Foundation
import SwiftASN1
import X509

/// The group's revocation list as an X.509 CRL (RFC 5280 §5), for the group's MQTT broker:
/// mosquitto (OpenSSL) refuses a client certificate whose serial the CRL in its `crlfile`
/// lists, so a revoked device's certificate stops opening connections to the broker.
///
/// A version-2 CRL signed with the group CA's key (ECDSA P-256 with SHA-256): issuer the
/// group CA's subject; `thisUpdate` the list's issue time less `clockMargin` (a server whose
/// clock is behind the authority's would otherwise read it as not yet valid, and refuse every
/// device); `nextUpdate` the group CA's own expiry (the group issues a CRL with each
/// revocation, not on a schedule, so it must not expire before the CA); one entry per revoked
/// serial, each with that same time as its revocation date; and the list's `sequence` as the
/// CRL number. No authority key identifier: the group CA has no subject key identifier to
/// match. OpenSSL takes a CRL only from an issuer whose keyUsage includes cRLSign, which the
/// group CA's certificate (keyCertSign alone) lacks: the broker trusts the CA re-certified
/// with it (`GroupAuthority.brokerClientAuthority()`), the same key and name.
public struct CertificateRevocationList: Sendable, Equatable {
    /// The CRL, DER-encoded.
    public let derBytes: [UInt8]

    /// How far `thisUpdate` is set before the list's issue time.
    public static let clockMargin: TimeInterval = 3600

    /// The CRL as PEM (`-----BEGIN X509 CRL-----`), the form mosquitto's `crlfile` reads.
    public var pemString: String { PEMDocument(type: "X509 CRL", derBytes: derBytes).pemString }

    /// The CRL of `list`, issued and signed by the group CA `authority` with its `key`.
    init(_ list: RevocationList, authority: Certificate, key: P256.Signing.PrivateKey) throws {
        let updated = list.issued.addingTimeInterval(-Self.clockMargin)
        var tbs = DER.Serializer()
        try tbs.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(1)  // v2
            try Self.serializeSignatureAlgorithm(into: &coder)
            try coder.serialize(authority.subject)
            try Self.serialize(updated, into: &coder)
            try Self.serialize(authority.notValidAfter, into: &coder)
            let serials = list.revokedSerials.sorted().compactMap(Self.bytes(ofHex:))
            if !serials.isEmpty {
                try coder.appendConstructedNode(identifier: .sequence) { coder in
                    for serial in serials {
                        try coder.appendConstructedNode(identifier: .sequence) { coder in
                            try coder.serialize(Certificate.SerialNumber(bytes: serial).bytes)
                            try Self.serialize(updated, into: &coder)
                        }
                    }
                }
            }
            var number = DER.Serializer()
            try number.serialize(ArraySlice(Self.bigEndian(list.sequence)))
            let crlNumber = Certificate.Extension(oid: [2, 5, 29, 20], critical: false, value: ArraySlice(number.serializedBytes))
            try coder.appendConstructedNode(identifier: ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific)) { coder in
                try coder.appendConstructedNode(identifier: .sequence) { coder in try coder.serialize(crlNumber) }
            }
        }
        let signature = try key.signature(for: tbs.serializedBytes).derRepresentation
        var crl = DER.Serializer()
        try crl.appendConstructedNode(identifier: .sequence) { coder in
            coder.serializeRawBytes(tbs.serializedBytes)
            try Self.serializeSignatureAlgorithm(into: &coder)
            try coder.serialize(ASN1BitString(bytes: ArraySlice(signature)))
        }
        derBytes = crl.serializedBytes
    }

    /// AlgorithmIdentifier ecdsa-with-SHA256 (RFC 5758 §3.2: no parameters).
    private static func serializeSignatureAlgorithm(into coder: inout DER.Serializer) throws {
        try coder.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize([1, 2, 840, 10_045, 4, 3, 2] as ASN1ObjectIdentifier)
        }
    }

    /// A time as RFC 5280 §5.1.2.4 has it: UTCTime through 2049, GeneralizedTime from 2050, in
    /// whole seconds, UTC.
    private static func serialize(_ date: Date, into coder: inout DER.Serializer) throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let (year, month, day, hour, minute, second) = (c.year!, c.month!, c.day!, c.hour!, c.minute!, c.second!)
        if year < 2050 {
            try coder.serialize(UTCTime(year: year, month: month, day: day, hours: hour, minutes: minute, seconds: second))
        } else {
            try coder.serialize(GeneralizedTime(year: year, month: month, day: day, hours: hour, minutes: minute,
                                                seconds: second, fractionalSeconds: 0))
        }
    }

    /// The bytes of a serial in hex (`Certificate.serialHex`); nil for text that is not hex.
    static func bytes(ofHex hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// `value`'s big-endian bytes without leading zeros (one zero for 0).
    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        let significant = Array(withUnsafeBytes(of: value.bigEndian, Array.init).drop { $0 == 0 })
        return significant.isEmpty ? [0] : significant
    }
}
