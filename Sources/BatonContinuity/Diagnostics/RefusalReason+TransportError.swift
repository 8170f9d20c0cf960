extension DiagnosticEvent.RefusalReason {
    /// The reason to publish for an incoming connection refused with `error`.
    init(_ error: any Error) {
        switch error as? TransportError {
        case .peerRejected(let trust)?: self = if case .peerRevoked = trust { .revoked } else { .notInGroup }
        case .notAdmitted?, .admissionRefused?, .admissionFailed?, .admissionTimedOut?: self = .admissionGate
        case .tlsVersionTooOld?: self = .tlsVersion
        default: self = .handshakeFailed
        }
    }
}
