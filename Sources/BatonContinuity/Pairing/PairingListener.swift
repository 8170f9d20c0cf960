import BatonLoop
import Crypto
import Foundation

/// Accepts pairing connections on one TCP address, with a throwaway certificate made for this
/// listener (its subject a random identifier: a stranger who connects learns nothing stable).
///
/// A `TLSListener` with the pairing newcomer's policy. There is no admission gate (the
/// newcomer holds no group secret yet): a whole ClientHello offering TLS 1.3 is what proves a
/// connection, after which it is never shut down to make room for one that has not. Each
/// connection has `handshakeDeadline` (`helloDeadline`) from accept to its first message (its
/// TLS handshake included; the caller ends the wait with `PairingChannel`'s hello).
/// Connections that fail before their hello are dropped and only counted
/// (`failedConnections`).
@MainActor
public final class PairingListener: TLSListener {
    let certificate: PairingCertificate

    /// Listens on `host` (an IP address) and `port` (0: any free port).
    public init(host: String = "127.0.0.1", port: UInt16 = 0) throws(PairingError) {
        certificate = try PairingCertificate(key: P256.Signing.PrivateKey())
        do {
            try super.init(policy: .pairingNewcomer(certificate), host: host, port: port, handshakeDeadline: .seconds(10),
                           maximumUnauthenticated: 64, perAddress: 8)
        } catch .connectionFailed(let error) {
            throw .connectionFailed(error)
        } catch {
            throw .connectionFailed(GLibError(domain: "baton", code: 0, message: "\(error)"))
        }
    }

    /// How long a connection has from accept to its first message.
    public var helloDeadline: Duration {
        get { handshakeDeadline }
        set { handshakeDeadline = newValue }
    }

    /// The next connection whose TLS handshake succeeded (its hello deadline still running);
    /// nil once the listener is closed. One caller at a time.
    func accept() async -> PairingChannel? {
        while true {
            switch await next() {
            case .success(let channel):
                // Only a TLS stack that cannot export keying material fails here: dropped.
                if let pairing = try? PairingChannel(channel, own: certificate) { return pairing }
            case .failure where closed: return nil
            case .failure: continue  // counted in `failedConnections`
            }
        }
    }
}
