import Crypto
import Foundation
import X509

/// One message through the broker, as its sender made it: who sends it to whom, when, a
/// random nonce and the blob (an ICE description, say), with the sender's certificate, signed
/// with the sender's device key and sealed with the group's key (docs/PROTOCOL.md, 7.2).
///
/// On the wire: format byte 1, then ChaCha20-Poly1305 (`BrokerKeys.sealKey`; 12-byte nonce,
/// ciphertext, 16-byte tag; the topic authenticated with it) of: version 1, sender and recipient
/// identifiers (u16 length each), timestamp (u64, milliseconds since 1970), 16-byte nonce, the
/// sender's certificate (DER, u16 length), the blob (u32 length), and the ECDSA P-256 signature
/// (64 bytes, r ‖ s) over `baton broker envelope v1`, 0, the topic, 0 and all that precedes it.
struct BrokerEnvelope: Sendable, Equatable {
    var sender: String
    var recipient: String
    /// Milliseconds since 1970.
    var timestamp: UInt64
    var nonce: Data
    var blob: Data

    static let format: UInt8 = 1
    static let version: UInt8 = 1
    static let nonceSize = 16
    static let signatureSize = 64
    static let maxIdentifierBytes = 128
    static let maxCertificateBytes = 4096
    /// Bytes around the blob at most: format, AEAD nonce and tag, and every field but the blob.
    static let overhead = 1 + 12 + 16 + 1 + (2 + maxIdentifierBytes) * 2 + 8 + nonceSize + 2 + maxCertificateBytes + 4 + signatureSize

    /// The sealed message of `blob` from `identity` (signed with `signingKey`) to `recipient`
    /// on `topic`.
    static func seal(_ blob: Data, to recipient: String, on topic: String, from identity: DeviceIdentity,
                     signingKey: P256.Signing.PrivateKey, keys: BrokerKeys, now: Date) throws -> Data {
        var nonce = Data(count: nonceSize)
        for index in nonce.indices { nonce[index] = UInt8.random(in: 0...255) }
        let envelope = BrokerEnvelope(sender: identity.identifier, recipient: recipient,
                                      timestamp: UInt64(max(0, now.timeIntervalSince1970 * 1000)), nonce: nonce, blob: blob)
        return try envelope.sealed(certificate: Data(try identity.certificate.derBytes()), signingKey: signingKey, on: topic, keys: keys)
    }

    /// This envelope with `certificate` (DER), signed with `signingKey` and sealed for `topic`
    /// (`seal` makes one; tests make forged ones).
    func sealed(certificate: Data, signingKey: P256.Signing.PrivateKey, on topic: String, keys: BrokerKeys) throws -> Data {
        let format = Self.format
        var plain = encoded(certificate: certificate)
        let signature = try signingKey.signature(for: Self.signedBytes(plain, topic: topic))
        plain.append(signature.rawRepresentation)
        let box = try ChaChaPoly.seal(plain, using: keys.sealKey, authenticating: Self.additionalData(topic: topic))
        return Data([format]) + box.combined
    }

    /// The envelope in `payload`, which came on `topic`, with the certificate that signed it;
    /// or why it is refused. Its size is checked against `limit` before anything is read.
    /// Whether the sender is a device of the group, the recipient this device, and the message
    /// fresh, is `BrokerSignalling`'s to check.
    static func open(_ payload: Data, on topic: String, keys: BrokerKeys, limit: Int) throws(BrokerRefusal) -> (BrokerEnvelope, Certificate) {
        guard payload.count <= limit else { throw .tooLarge(size: payload.count, limit: limit) }
        guard payload.first == format, payload.count > 1 + 12 + 16 else { throw .unsealed }
        let plain: Data
        do {
            let box = try ChaChaPoly.SealedBox(combined: payload.dropFirst())
            plain = try ChaChaPoly.open(box, using: keys.sealKey, authenticating: additionalData(topic: topic))
        } catch {
            throw .unsealed
        }
        var reader = ByteReader(plain)
        guard reader.byte() == version else { throw .malformed(problem: "not version \(version)") }
        guard let sender = reader.string(maxBytes: maxIdentifierBytes), let recipient = reader.string(maxBytes: maxIdentifierBytes),
              let timestamp = reader.uint64(), let nonce = reader.bytes(nonceSize),
              let certificateLength = reader.uint16(), Int(certificateLength) <= maxCertificateBytes,
              let certificateBytes = reader.bytes(Int(certificateLength)),
              let blobLength = reader.uint32(), Int(blobLength) <= limit, let blob = reader.bytes(Int(blobLength)) else {
            throw .malformed(problem: "a field is missing or over its bound")
        }
        let signedLength = reader.offset
        guard let signatureBytes = reader.bytes(signatureSize), reader.isAtEnd else {
            throw .malformed(problem: "no signature, or bytes after it")
        }
        let certificate: Certificate
        do { certificate = try Certificate(derEncoded: Array(certificateBytes)) } catch {
            throw .malformed(problem: "the sender's certificate cannot be parsed")
        }
        guard let key = P256.Signing.PublicKey(certificate.publicKey),
              let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes),
              key.isValidSignature(signature, for: signedBytes(plain.prefix(signedLength), topic: topic)) else {
            throw .badSignature
        }
        return (BrokerEnvelope(sender: sender, recipient: recipient, timestamp: timestamp, nonce: nonce, blob: blob), certificate)
    }

    /// The fields before the signature, with `certificate` (DER).
    func encoded(certificate: Data) -> Data {
        var out = Data([Self.version])
        for text in [sender, recipient] {
            let bytes = Data(text.utf8)
            out.append(contentsOf: [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xff)])
            out.append(bytes)
        }
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((timestamp >> UInt64(shift)) & 0xff)) }
        out.append(nonce)
        out.append(contentsOf: [UInt8(certificate.count >> 8), UInt8(certificate.count & 0xff)])
        out.append(certificate)
        for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8((blob.count >> shift) & 0xff)) }
        out.append(blob)
        return out
    }

    private static func signedBytes(_ fields: Data, topic: String) -> Data {
        Data("baton broker envelope v1".utf8) + [0] + Data(topic.utf8) + [0] + fields
    }

    private static func additionalData(topic: String) -> Data { Data("baton/1 broker".utf8) + [0] + Data(topic.utf8) }
}
