import Crypto
import Foundation
import X509

/// A self-signed certificate for one pairing: the window's throwaway key, or the newcomer's own
/// new key before the group has certified it. Its subject is a random identifier, so a peer
/// that connects learns nothing stable; it is valid for a day around now.
struct PairingCertificate {
    let key: P256.Signing.PrivateKey
    let certificate: Certificate
    let credential: TLSCredential

    init(key: P256.Signing.PrivateKey) throws(PairingError) {
        self.key = key
        do {
            let subject = try DistinguishedName { CommonName(OpaqueIdentifier.random()) }
            let now = Date()
            certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400),
                issuer: subject, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    Critical(KeyUsage(digitalSignature: true))
                    try ExtendedKeyUsage([.serverAuth, .clientAuth])
                },
                issuerPrivateKey: .init(key))
            credential = try TLSCredential(pem: try certificate.serializeAsPEM().pemString + "\n" + key.pemRepresentation + "\n")
        } catch {
            throw .handshakeFailed("cannot make this side's pairing certificate: \(error)")
        }
    }

    /// The DER SubjectPublicKeyInfo of the key, what the code names.
    var subjectPublicKeyInfo: Data { key.publicKey.derRepresentation }
}
