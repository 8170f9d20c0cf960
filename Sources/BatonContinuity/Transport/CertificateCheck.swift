import BatonLoop
import CGLib
import Foundation
import X509

/// Decides, during a TLS handshake, whether to take the peer's certificate, under a
/// `CertificatePolicy`.
///
/// The connection's certificate database is set to none, so GIO never trusts the system's CAs
/// and raises `accept-certificate` for every peer certificate; this handler parses it with
/// swift-certificates and asks the policy (`CertificatePolicy.verify`) — one place decides,
/// and a refused peer is dropped before any byte of application data.
final class CertificateCheck: CallbackBox, @unchecked Sendable {
    let policy: CertificatePolicy
    private let lock = NSLock()
    private var outcome: Result<VerifiedPeer, TrustError>?

    init(policy: CertificatePolicy) { self.policy = policy }

    /// The verified peer, or why it was refused; nil if no certificate was seen.
    var result: Result<VerifiedPeer, TrustError>? {
        lock.lock(); defer { lock.unlock() }
        return outcome
    }

    func decide(_ certificate: UnsafeMutablePointer<GTlsCertificate>) -> Bool {
        let decision: Result<VerifiedPeer, TrustError>
        if let der = baton_tls_certificate_der(certificate) {
            defer { g_byte_array_unref(der) }
            let bytes = Array(UnsafeBufferPointer(start: der.pointee.data, count: Int(der.pointee.len)))
            do {
                let peer = try Certificate(derEncoded: bytes)
                do { decision = .success(try policy.verify(peer)) } catch { decision = .failure(error) }
            } catch {
                decision = .failure(.peerNotInGroup(reason: "its certificate cannot be parsed: \(error)"))
            }
        } else {
            decision = .failure(.peerNotInGroup(reason: "it sent no certificate"))
        }
        lock.lock(); outcome = decision; lock.unlock()
        if case .success = decision { return true }
        return false
    }

    /// Connects the handler to `connection`; the box is released when the handler is
    /// (`detach`, or the connection's end). Returns the handler's id for `detach`.
    func attach(to connection: UnsafeMutablePointer<GTlsConnection>) -> gulong {
        let handler = unsafeBitCast(acceptCertificateTrampoline, to: GCallback.self)
        return g_signal_connect_data(connection, "accept-certificate", handler, retainedOpaque(), CallbackBox.closureNotify, GConnectFlags(0))
    }

    /// Disconnects the handler once the handshake is over, releasing the box at once on this
    /// thread: the connection itself may be finalised later on a GIO worker thread (the
    /// handshake's task holds it until that thread lets go). A certificate raised after this
    /// is refused (GIO's default).
    static func detach(_ id: gulong, from connection: UnsafeMutablePointer<GTlsConnection>) {
        g_signal_handler_disconnect(connection, id)
    }
}

/// `gboolean accept-certificate(GTlsConnection *, GTlsCertificate *, GTlsCertificateFlags, gpointer)`.
private let acceptCertificateTrampoline: @convention(c) (
    UnsafeMutableRawPointer?, UnsafeMutablePointer<GTlsCertificate>?, GTlsCertificateFlags, UnsafeMutableRawPointer?
) -> gboolean = { _, certificate, _, userData in
    guard let certificate, let userData else { return 0 }
    return CertificateCheck.borrow(userData).decide(certificate) ? 1 : 0
}
