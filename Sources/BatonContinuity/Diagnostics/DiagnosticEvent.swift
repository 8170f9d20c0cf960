import Foundation

/// Something a device did or refused that a person, a tool or a test may want to know, as a
/// value: what the continuity log says in words, said once more as data. A node publishes them
/// through `ContinuityNode.diagnostics`; the agent publishes its own (apps joining, leaving,
/// being dropped) through its node's. Logs are for people and their wording may change; these
/// are the contract.
///
/// Device names are the names the group's signed list gives (what the log shows), and every
/// string that came from a peer is carried as data, never as terminal output: a reader prints
/// it through `PrintableText.escaped`.
public enum DiagnosticEvent: Sendable, Equatable, Codable {
    /// A listener is open on `host:port` (at start, and at each port rotation).
    case listening(host: String, port: UInt16)
    /// Discovery changed state (`DiscoveryStatus.code`).
    case discovery(state: String)
    /// A link to `peer` is up; `dialed` is whether this device dialed it.
    case linked(peer: String, dialed: Bool)
    /// The link to `peer` went down.
    case unlinked(peer: String, reason: UnlinkReason)
    /// A connection, a message or a peer was refused (`from`: the device's name or the
    /// address, where known).
    case refused(from: String?, reason: RefusalReason)
    /// This device adopted the group's revocation list `sequence`: from the linked device
    /// `from`, or (nil) from the file beside its identity.
    case revocationsAdopted(sequence: UInt64, from: String?)
    /// This device holds the discovery key of revocation list `sequence`: from the linked
    /// device `from`, or (nil) from the file beside its identity.
    case discoveryKeyAdopted(sequence: UInt64, from: String?)
    /// An activity of `activityType` from `peer` was continued on this device.
    case continued(activityType: String, from: String)
    /// A continuation on this device failed with Handoff error `code`
    /// (`NSUserActivityErrorDomain`'s codes: `UserActivityError.Code`).
    case continuationFailed(activityType: String, code: Int)
    /// An app joined the agent (`appID` as its manifest names it; its process).
    case appJoined(appID: String, processID: Int32)
    /// An app that had joined left the agent, or was dropped by it (`reason` nil when it left
    /// by itself).
    case appLeft(appID: String, reason: AppDropReason?)
    /// A linked device was slowed for what it sent (said once a link).
    case peerLimited(peer: String, reason: PeerLimit)

    /// Why something from the network was refused.
    public enum RefusalReason: String, Sendable, Codable, CaseIterable {
        /// No group token the admission gate accepts: not one of the group's devices.
        case admissionGate
        /// The certificate is not the group's, or is malformed.
        case notInGroup
        /// The certificate's device was revoked by the group.
        case revoked
        /// The client offered no TLS 1.3 in its ClientHello.
        case tlsVersion
        /// The caps on connections (per source address or in all) were full.
        case tooManyConnections
        /// The handshake (TLS and D-Bus) did not finish within its deadline.
        case handshakeDeadline
        /// The handshake failed.
        case handshakeFailed
        /// A message larger than the limit was announced.
        case oversizedMessage
        /// A message could not be decoded.
        case malformedMessage
        /// The peer did not read what was sent to it, past the cap on what may wait for it.
        case doesNotRead
    }

    /// Why a link went down.
    public enum UnlinkReason: String, Sendable, Codable, CaseIterable {
        /// The connection closed (the peer hung up or went away).
        case closed
        /// The group revoked the peer's device.
        case revoked
        /// The peer broke the protocol, or did not answer as it must.
        case protocolError
    }

    /// Why the agent dropped an app.
    public enum AppDropReason: String, Sendable, Codable, CaseIterable {
        /// It did not read what the agent sent it, past the cap.
        case doesNotRead
        /// The agent is stopping.
        case agentStopping
    }

    /// Why a peer was limited.
    public enum PeerLimit: String, Sendable, Codable, CaseIterable {
        /// It sent activity updates faster than its budget: only the latest is taken, and its
        /// link is read only as fast as the budget allows.
        case updateRate
    }
}
