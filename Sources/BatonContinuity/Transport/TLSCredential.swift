import CGLib
import BatonLoop

/// A device's certificate and key loaded into GIO once (`g_tls_certificate_new_from_pem`).
public final class TLSCredential: @unchecked Sendable {
    let certificate: UnsafeMutablePointer<GTlsCertificate>

    /// Loads `identity`'s certificate and private key into GIO; throws if GIO refuses them.
    public convenience init(identity: DeviceIdentity) throws(TransportError) {
        try self.init(pem: identity.tlsPEM)
    }

    /// A certificate and its key, as one PEM (a pairing's own certificates).
    init(pem: String) throws(TransportError) {
        var error: UnsafeMutablePointer<GError>?
        guard let certificate = g_tls_certificate_new_from_pem(pem, -1, &error) else {
            throw .handshakeFailed(GLibError(consuming: error!))
        }
        self.certificate = certificate
    }

    deinit { g_object_unref(certificate) }
}
