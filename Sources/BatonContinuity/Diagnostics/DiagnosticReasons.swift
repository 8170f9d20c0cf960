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

extension DiagnosticEvent {
    /// Why signalling through the broker could not connect or stay connected
    /// (`DiagnosticEvent.brokerConnectFailed`, `.brokerDisconnected`), from its `BrokerError`.
    public enum BrokerProblem: String, Sendable, Codable, CaseIterable {
        /// The device's identity has no discovery key (issued before discovery existed).
        case noGroupKey
        /// Not connected when a message was to be sent.
        case notConnected
        /// A message was over the cap on its size.
        case tooLarge
        /// No connection with its subscriptions within the deadline.
        case timedOut
        /// The broker's host could not be resolved or reached.
        case unreachable
        /// The TLS handshake failed: the broker's certificate is not the group's (or not for its
        /// host), or the broker did not take this device's.
        case tls
        /// The broker refused the connection (its MQTT reason code is the event's `code`).
        case refusedByBroker
        /// The broker refused a subscription to an inbox.
        case subscriptionRefused
        /// The connection was lost (closed, or keep-alives unanswered).
        case connectionLost
        /// libmosquitto failed (its error code is the event's `code`).
        case library

        /// The problem `error` stands for, and the code it carries (nil for none).
        public static func of(_ error: BrokerError) -> (problem: BrokerProblem, code: Int?) {
            switch error {
            case .noGroupKey: (.noGroupKey, nil)
            case .notConnected: (.notConnected, nil)
            case .tooLarge: (.tooLarge, nil)
            case .timedOut: (.timedOut, nil)
            case .unreachable: (.unreachable, nil)
            case .tls: (.tls, nil)
            case .refusedByBroker(let code): (.refusedByBroker, code)
            case .subscriptionRefused: (.subscriptionRefused, nil)
            case .connectionLost: (.connectionLost, nil)
            case .library(let code, _): (.library, code)
            }
        }
    }

    /// Why a message that came through the broker was refused
    /// (`DiagnosticEvent.brokerMessageRefused`), from its `BrokerRefusal`.
    public enum BrokerMessageRefusal: String, Sendable, Codable, CaseIterable {
        /// It came on a topic that is not one of this device's inboxes.
        case unknownTopic
        /// It was larger than the cap: refused unread.
        case tooLarge
        /// It did not open with the group's sealing key: not sealed by a device of the group.
        case unsealed
        /// It opened but was not a well-formed envelope.
        case malformed
        /// Its signature did not verify.
        case badSignature
        /// It was addressed to another device.
        case wrongRecipient
        /// Its certificate is not a current device of the group.
        case untrustedSender
        /// Its certificate's device was revoked by the group.
        case revokedSender
        /// It claimed a sender other than the device whose certificate signed it.
        case senderMismatch
        /// Its timestamp was too far from this device's clock.
        case stale
        /// It was seen before.
        case replayed

        /// The refusal `refusal` stands for.
        public init(_ refusal: BrokerRefusal) {
            switch refusal {
            case .unknownTopic: self = .unknownTopic
            case .tooLarge: self = .tooLarge
            case .unsealed: self = .unsealed
            case .malformed: self = .malformed
            case .badSignature: self = .badSignature
            case .wrongRecipient: self = .wrongRecipient
            case .untrustedSender(.peerRevoked): self = .revokedSender
            case .untrustedSender: self = .untrustedSender
            case .senderMismatch: self = .senderMismatch
            case .stale: self = .stale
            case .replayed: self = .replayed
            }
        }
    }
}

extension DiagnosticEvent {
    /// The diagnostic event a `BrokerEvent` stands for (what a node publishes for its
    /// `BrokerSignalling.onEvent`): connected, a failed attempt or a lost connection with its
    /// problem and the delay before the next attempt, or a refused message.
    public init(_ event: BrokerEvent) {
        func milliseconds(_ duration: Duration) -> Int64 {
            let (seconds, attoseconds) = duration.components
            return seconds * 1000 + attoseconds / 1_000_000_000_000_000
        }
        switch event {
        case .connected:
            self = .brokerConnected
        case .connectFailed(let error, let retryIn):
            let (problem, code) = BrokerProblem.of(error)
            self = .brokerConnectFailed(reason: problem, code: code, retryAfterMilliseconds: milliseconds(retryIn))
        case .disconnected(let error, let retryIn):
            let (problem, code) = BrokerProblem.of(error)
            self = .brokerDisconnected(reason: problem, code: code, retryAfterMilliseconds: milliseconds(retryIn))
        case .refused(let refusal):
            self = .brokerMessageRefused(reason: BrokerMessageRefusal(refusal))
        }
    }
}
