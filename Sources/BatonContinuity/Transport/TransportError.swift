import BatonLoop

/// Why a secure connection to or from a peer did not come about. Each case says why.
public enum TransportError: Error, Sendable, CustomStringConvertible {
    /// The peer's certificate is not that of a current device of this group.
    case peerRejected(TrustError)
    /// The TLS handshake failed (no client certificate, a protocol error, a peer that hung up…).
    case handshakeFailed(GLibError)
    /// The peer did not agree on ALPN `baton/1`.
    case wrongProtocol(negotiated: String?)
    /// The peer negotiated a TLS version older than 1.3.
    case tlsVersionTooOld(Int)
    /// The TCP connection could not be made or accepted.
    case connectionFailed(GLibError)
    case invalidAddress(String)
    case closed
    /// A continuation stream's peer sent nothing, or took nothing, for this long: the
    /// connection was shut down.
    case idle(Duration)

    public var description: String {
        switch self {
        case .peerRejected(let trust): "peer refused: \(trust)"
        case .handshakeFailed(let error): "TLS handshake failed: \(error.message)"
        case .wrongProtocol(let negotiated): "the peer does not speak \(SecureChannel.alpn) (it negotiated \(negotiated ?? "nothing"))"
        case .tlsVersionTooOld(let v): "the peer negotiated TLS protocol version \(v); Baton requires TLS 1.3"
        case .connectionFailed(let error): "connection failed: \(error.message)"
        case .invalidAddress(let address): "'\(address)' is not an address Baton can listen on"
        case .closed: "the connection is closed"
        case .idle(let duration): "the peer sent and took nothing for \(duration): the connection was shut down"
        }
    }
}
