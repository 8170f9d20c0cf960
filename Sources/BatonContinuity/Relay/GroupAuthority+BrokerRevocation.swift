import Crypto
import Foundation
import X509

extension GroupAuthority {
    /// The name of the group's CRL beside its signed list (`group/revocations.crl`), written with
    /// each revocation: the file to copy to the broker (as `RelayServerConfig.crlFileName`).
    public static let crlFileName = "revocations.crl"

    /// The group's current list as an X.509 CRL signed by the group CA, for the broker
    /// (`CertificateRevocationList`).
    public func certificateRevocationList() throws -> CertificateRevocationList {
        try CertificateRevocationList(try revocationList(), authority: certificate, key: privateKey)
    }

    /// The group CA as the broker trusts it (mosquitto's `cafile`): the same key, subject,
    /// validity and basic constraints as the group's certificate, re-certified (self-signed, a
    /// new serial) with keyUsage keyCertSign and cRLSign, since OpenSSL refuses a CRL whose
    /// issuer's keyUsage lacks cRLSign and the group's certificate, which every device holds,
    /// has keyCertSign alone. It verifies exactly the certificates the group's certificate
    /// verifies (the same key and name), and the group's CRLs besides. Devices never see it.
    public func brokerClientAuthority() throws -> Certificate {
        let constraints = try certificate.extensions.basicConstraints ?? .isCertificateAuthority(maxPathLength: 0)
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: certificate.publicKey,
            notValidBefore: certificate.notValidBefore, notValidAfter: certificate.notValidAfter,
            issuer: certificate.subject, subject: certificate.subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(constraints)
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(privateKey))
    }

    /// Stages, in `files`, `list` as the group's CRL beside its signed list (mode 0644: it
    /// holds serials only), so that it is written with the list or not at all.
    func stageCertificateRevocationList(of list: RevocationList, in files: FileTransaction) throws {
        let crl = try CertificateRevocationList(list, authority: certificate, key: privateKey)
        try files.write(Data(crl.pemString.utf8), to: directory.groupDirectory.appendingPathComponent(Self.crlFileName), mode: 0o644)
    }
}
