extension DiagnosticEvent {
    /// Why a pairing session failed (`DiagnosticEvent.pairingFailed`), from its `PairingError`.
    public enum PairingFailure: String, Sendable, Codable, CaseIterable {
        /// The person on this device said no, or typed another code.
        case declinedHere
        /// The other device said no, or its person typed another code.
        case declinedThere
        /// The window refused the newcomer before any code (busy, closing, both typing, another version).
        case refused
        /// The name asked for is taken in the group or cannot be given: nothing was issued.
        case cannotIssue
        /// The device was issued but the newcomer did not confirm it saved its identity.
        case notSaved
        /// Nothing came from the other device within the time.
        case timedOut
        /// The other device hung up, or the connection failed.
        case closed
        /// The other device broke the protocol (TLS, framing, a message, the commitment).
        case protocolError
        /// What the window granted was refused here.
        case grantRefused
        /// The window closed (its time was up, its attempts used, or it was closed).
        case windowClosed
        /// Anything else (no TLS exporter, no window found).
        case other

        /// The failure a `PairingError` stands for.
        public init(_ error: PairingError) {
            switch error {
            case .declinedHere: self = .declinedHere
            case .declinedThere: self = .declinedThere
            case .refused: self = .refused
            case .cannotIssue: self = .cannotIssue
            case .notSaved: self = .notSaved
            case .timedOut: self = .timedOut
            case .closed, .connectionFailed: self = .closed
            case .handshakeFailed, .wrongProtocol, .frameTooLarge, .malformedMessage, .commitmentMismatch: self = .protocolError
            case .grantRefused: self = .grantRefused
            case .windowClosed: self = .windowClosed
            case .exporterUnavailable, .notFound: self = .other
            }
        }
    }

    /// Why the agent refused an app's connection (`DiagnosticEvent.appRefused`).
    public enum AppRefusal: String, Sendable, Codable, CaseIterable {
        /// The connecting process is another user's (or its user is unknown): only the agent's
        /// own user may use it.
        case otherUser
        /// The cap on the agent's connections was reached.
        case tooManyConnections
    }
}

/// Carried in `DiagnosticEvent.pairingRefused` as its raw value.
extension PairingRefusal: Codable {}
