extension DiagnosticEvent.RefusalReason {
    /// The reason to publish for an incoming connection refused with `error`.
    init(_ error: any Error) {
        switch error as? TransportError {
        case .peerRejected(let trust)?: self = if case .peerRevoked = trust { .revoked } else { .notInGroup }
        case .notAdmitted?, .admissionRefused?, .admissionFailed?, .admissionTimedOut?: self = .admissionGate
        case .tlsVersionTooOld?, .tls13NotOffered?: self = .tlsVersion
        case .noPlace?: self = .tooManyConnections
        case .noClientHello?, .deadlinePassed?: self = .handshakeDeadline
        default: self = .handshakeFailed
        }
    }
}
