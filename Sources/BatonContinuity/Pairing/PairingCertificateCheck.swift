import BatonLoop
import CGLib
import Crypto
import Foundation
import X509

/// Takes, during a pairing's TLS handshake, whatever certificate the peer presents if it
/// parses and holds a P-256 key, and keeps that key: nothing is trusted at this point (the
/// code the people compare decides), but the handshake's CertificateVerify proves the peer
/// holds that key, and the code names it.
final class PairingCertificateCheck: CallbackBox, @unchecked Sendable {
    private let lock = NSLock()
    private var key: P256.Signing.PublicKey?

    /// The peer's key, once its certificate was taken.
    var peerKey: P256.Signing.PublicKey? {
        lock.lock(); defer { lock.unlock() }
        return key
    }

    func decide(_ certificate: UnsafeMutablePointer<GTlsCertificate>) -> Bool {
        guard let der = baton_tls_certificate_der(certificate) else { return false }
        defer { g_byte_array_unref(der) }
        let bytes = Array(UnsafeBufferPointer(start: der.pointee.data, count: Int(der.pointee.len)))
        guard let parsed = try? Certificate(derEncoded: bytes), let peer = P256.Signing.PublicKey(parsed.publicKey) else { return false }
        lock.lock(); key = peer; lock.unlock()
        return true
    }

    /// Connects the handler to `connection`; returns its id for `detach`.
    func attach(to connection: UnsafeMutablePointer<GTlsConnection>) -> gulong {
        let handler = unsafeBitCast(pairingAcceptTrampoline, to: GCallback.self)
        return g_signal_connect_data(connection, "accept-certificate", handler, retainedOpaque(), CallbackBox.closureNotify, GConnectFlags(0))
    }
}

/// `gboolean accept-certificate(GTlsConnection *, GTlsCertificate *, GTlsCertificateFlags, gpointer)`.
private let pairingAcceptTrampoline: @convention(c) (
    UnsafeMutableRawPointer?, UnsafeMutablePointer<GTlsCertificate>?, GTlsCertificateFlags, UnsafeMutableRawPointer?
) -> gboolean = { _, certificate, _, userData in
    guard let certificate, let userData else { return 0 }
    return PairingCertificateCheck.borrow(userData).decide(certificate) ? 1 : 0
}
