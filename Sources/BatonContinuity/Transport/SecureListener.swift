import BatonLoop
import Foundation

/// Accepts secure connections from the group's devices on one TCP address: device links
/// (ALPN `baton/1`), which carry continuation streams too.
///
/// A `TLSListener` with the group member's policy: before TLS, each connection passes the
/// admission gate (`AdmissionGate`): the peer proves it holds the group's current discovery
/// key (the one of the identity the connection is checked against), or is shut down without
/// having seen a TLS byte, the certificate included. Then the peer must present a current
/// device certificate of the group (`CertificatePolicy.verify`). The deadlines, caps and fairness
/// rules are `TLSListener`'s.
@MainActor
public final class SecureListener: TLSListener {
    private let identity: DeviceIdentity

    /// Listens on `host` (an IP address, or `PeerAddress.allInterfaces` for every interface;
    /// loopback by default) and `port` (0: any free port).
    public init(identity: DeviceIdentity, credential: TLSCredential, host: String = "127.0.0.1",
                port: UInt16 = 0) throws(TransportError) {
        self.identity = identity
        try super.init(policy: .groupMember(identity: identity, credential: credential), host: host, port: port,
                       handshakeDeadline: .seconds(5), maximumUnauthenticated: 64, perAddress: 8)
    }

    /// The identity the listener was made with.
    public var fallbackIdentity: DeviceIdentity { identity }

    /// The next peer that connected and proved it is a device of the group. A peer that
    /// failed is dropped and its failure thrown, so the caller can log it and accept again.
    /// `identity`, when given, is asked as each connection arrives, so the peer is checked
    /// against the newest revocation list (and gated with its discovery key).
    ///
    /// The handshakes run concurrently, started as connections arrive from the first call on;
    /// this only takes the next one that finished. One caller at a time.
    public func accept(identity current: (@MainActor () -> DeviceIdentity)? = nil) async throws(TransportError) -> SecureChannel {
        if let current { checkingIdentity = current }
        return try await next().get()
    }
}
