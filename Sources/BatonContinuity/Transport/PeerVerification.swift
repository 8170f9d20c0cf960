import BatonLoop
import CGLib
import Foundation
import X509

/// Decides, during the TLS handshake, whether the peer is a device of this group.
///
/// The connection's certificate database is set to none, so GIO never trusts the system's CAs
/// and raises `accept-certificate` for every peer certificate; this handler parses it with
/// swift-certificates and asks `DeviceIdentity.verifyPeer` — one place decides membership,
/// and a refused peer is dropped before any byte of application data.
final class PeerVerification: CallbackBox, @unchecked Sendable {
    let identity: DeviceIdentity
    private let lock = NSLock()
    private var outcome: Result<String, TrustError>?
    private var serial: String?

    init(identity: DeviceIdentity) { self.identity = identity }

    /// The verified peer's device name, or why it was refused; nil if no certificate was seen.
    var result: Result<String, TrustError>? {
        lock.lock(); defer { lock.unlock() }
        return outcome
    }

    /// The serial number (hex) of the certificate last checked.
    var peerSerial: String? {
        lock.lock(); defer { lock.unlock() }
        return serial
    }

    func decide(_ certificate: UnsafeMutablePointer<GTlsCertificate>) -> Bool {
        let decision: Result<String, TrustError>
        if let der = baton_tls_certificate_der(certificate) {
            defer { g_byte_array_unref(der) }
            let bytes = Array(UnsafeBufferPointer(start: der.pointee.data, count: Int(der.pointee.len)))
            do {
                let peer = try Certificate(derEncoded: bytes)
                lock.lock(); serial = peer.serialHex; lock.unlock()
                do { decision = .success(try identity.verifyPeer(peer)) } catch { decision = .failure(error) }
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
    /// (disconnected with the returned id, or the connection finalised).
    @discardableResult
    func attach(to connection: UnsafeMutablePointer<GTlsConnection>) -> gulong {
        let handler = unsafeBitCast(acceptCertificateTrampoline, to: GCallback.self)
        return g_signal_connect_data(connection, "accept-certificate", handler, retainedOpaque(), CallbackBox.closureNotify, GConnectFlags(0))
    }
}

/// `gboolean accept-certificate(GTlsConnection *, GTlsCertificate *, GTlsCertificateFlags, gpointer)`.
private let acceptCertificateTrampoline: @convention(c) (
    UnsafeMutableRawPointer?, UnsafeMutablePointer<GTlsCertificate>?, GTlsCertificateFlags, UnsafeMutableRawPointer?
) -> gboolean = { _, certificate, _, userData in
    guard let certificate, let userData else { return 0 }
    return PeerVerification.borrow(userData).decide(certificate) ? 1 : 0
}
