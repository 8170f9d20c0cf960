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
    /// The host or port given cannot be connected to or listened on (GIO could not parse it).
    case invalidAddress(String)
    /// The channel was closed, by this side or the peer, before or during the operation.
    case closed
    /// A continuation stream's peer sent nothing, or took nothing, for this long: the
    /// connection was shut down.
    case idle(Duration)
    /// The peer listening shut the connection down at the admission gate, after this device's
    /// answer: it does not take the discovery key this device proved (it holds another one).
    case admissionRefused
    /// The admission gate did not go as the protocol says: the peer hung up, or sent a wrong
    /// byte, before admitting this device.
    case admissionFailed
    /// The peer listening did not finish the admission gate within this time.
    case admissionTimedOut(Duration)
    /// The peer connecting did not prove, at the admission gate and within the deadline, that
    /// it holds this device's discovery key: it was shut down before any TLS byte.
    case notAdmitted
    /// The peer connecting sent no TLS ClientHello before its deadline (or its connection was
    /// dropped first): no TLS byte was sent to it.
    case noClientHello
    /// The peer connecting offered no TLS 1.3 in its ClientHello: it was shut down before any
    /// TLS byte (and so before this device's certificate).
    case tls13NotOffered
    /// The caps on waiting connections (per address and in all) were full, and this one gave
    /// way to others or was not taken.
    case noPlace
    /// The peer connecting finished its handshake only after its deadline.
    case deadlinePassed

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
        case .admissionRefused: "the peer refused this device at the admission gate: it holds another discovery key"
        case .admissionFailed: "the peer hung up, or answered out of protocol, at the admission gate"
        case .admissionTimedOut(let duration): "the peer did not finish the admission gate within \(duration)"
        case .notAdmitted: "the peer did not prove it holds the group's discovery key (admission gate)"
        case .noClientHello: "no TLS ClientHello before the deadline"
        case .tls13NotOffered: "the ClientHello does not offer TLS 1.3"
        case .noPlace: "no place among the waiting connections"
        case .deadlinePassed: "TLS finished only after the deadline"
        }
    }
}
