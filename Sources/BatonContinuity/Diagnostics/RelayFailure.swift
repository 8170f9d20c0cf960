extension DiagnosticEvent {
    /// Why an attempt to link with a device beyond the LAN (ICE through the broker's
    /// signalling, docs/PROTOCOL.md, 7.4) failed (`DiagnosticEvent.relayAttemptFailed`). None
    /// carries text from the network.
    public enum RelayFailure: String, Error, Sendable, Codable, CaseIterable {
        /// The broker was not connected (down, unreachable, or refusing this device), or refused
        /// the message: no offer or answer could be sent.
        case brokerUnavailable
        /// No answer to the offer came within the answer deadline (the peer is offline, or its
        /// broker connection is down).
        case noAnswer
        /// The peer declined the offer: it is linked with this device on the LAN already, or has
        /// as many attempts running as it takes.
        case declined
        /// A description could not be made: gathering failed or found no candidate (no
        /// interface, an unresolvable STUN/TURN server, the gathering deadline).
        case gatheringFailed
        /// Only relayed candidates were asked for and the TURN server gave none (unreachable,
        /// or it refused the credentials).
        case noRelayCandidate
        /// The peer's description (or its message) broke a rule and was refused unparsed.
        case invalidDescription
        /// The connectivity checks failed, or found no path within their deadline.
        case noPath
        /// The link over the ICE stream failed: the admission gate, the TLS handshake or the
        /// peer's certificate (another device than the one offered to, revoked, not the group's).
        case linkFailed
        /// The peer got linked on the LAN meanwhile: the link over ICE was closed unused (the
        /// LAN comes first).
        case linkedOnLAN
        /// The node's links did not take the link over ICE (D-Bus could not be set up).
        case notAdopted
        /// The link the attempt made dropped sooner than `RelayConnector.minimumLinkLifetime`
        /// after it came up (a relay or NAT that lets the checks through, then drops the flow):
        /// tried again after the same back-off as a failed attempt, not at once.
        case droppedSoon
        /// The group revoked the device (the list held names it): its attempt and its next
        /// offer were stopped at once, and it is never offered to or answered again.
        case revoked
        /// The attempt was stopped: the node stopped, the relay settings changed, or the peer
        /// started a new attempt in its place.
        case cancelled
    }
}
