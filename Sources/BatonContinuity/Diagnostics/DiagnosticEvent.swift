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
    /// The listener replaced at a port rotation stopped listening on `port` (its grace is over):
    /// the port refuses connections from now on.
    case stoppedListening(port: UInt16)
    /// Discovery changed state (`DiscoveryStatus.code`).
    case discovery(state: String)
    /// A link to `peer` is up; `dialed` is whether this device dialed it.
    case linked(peer: String, dialed: Bool)
    /// The link to `peer` went down.
    case unlinked(peer: String, reason: UnlinkReason)
    /// A connection, a message or a peer was refused (`from`: the device's name or the
    /// address, where known; on the agent's socket, the app's id, or `pid N` before it joined).
    case refused(from: String?, reason: RefusalReason)
    /// This device adopted the group's revocation list `sequence`: from the linked device
    /// `from`, or (nil) from the file beside its identity.
    case revocationsAdopted(sequence: UInt64, from: String?)
    /// This device holds the discovery key of revocation list `sequence`: from the linked
    /// device `from`, or (nil) from the file beside its identity.
    case discoveryKeyAdopted(sequence: UInt64, from: String?)
    /// The linked device `at` was asked for the discovery key of revocation list `sequence`
    /// and did not have it.
    case discoveryKeyMissing(sequence: UInt64, at: String)
    /// No linked device had the discovery key of revocation list `sequence`: they are asked
    /// again after `afterSeconds` (the delay doubling each time, up to a bound), or at once
    /// when a reason comes (a new link, a device sending the list).
    case discoveryKeyRetry(sequence: UInt64, afterSeconds: Int)
    /// An activity of `activityType` from `peer` was continued on this device.
    case continued(activityType: String, from: String)
    /// This device's activity of `activityType` was continued on `by`, which fetched it: its
    /// delegate has been told (`userActivityWasContinued(_:)`).
    case continuedElsewhere(activityType: String, by: String)
    /// A continuation on this device failed with Handoff error `code`
    /// (`NSUserActivityErrorDomain`'s codes: `UserActivityError.Code`).
    case continuationFailed(activityType: String, code: Int)
    /// An app joined the agent (`appID` as its manifest names it; its process).
    case appJoined(appID: String, processID: Int32)
    /// The agent serves apps on its Unix socket at `path`: its server accepts their
    /// connections from now on (published once, when the server starts, after the device's
    /// `.listening`).
    case agentServing(path: String)
    /// This app joined the agent at `socketPath`, which speaks interface `version`: the agent
    /// answered its `Join` (after publishing its own `.appJoined`), and the app has told it
    /// what it advertises and taken what is nearby. Published by the app's `AgentConnection`
    /// each time it joins or joins again, when its `onJoined` is called.
    case joinedAgent(socketPath: String, version: UInt32)
    /// An app that had joined left the agent, or was dropped by it (`reason` nil when it left
    /// by itself).
    case appLeft(appID: String, reason: AppDropReason?)
    /// A linked device was slowed for what it sent (said once a link).
    case peerLimited(peer: String, reason: PeerLimit)
    /// This device pinged its `links` links to measure their round trips
    /// (`ContinuityNode.roundTrips()`, asked by `baton status` or `baton inspect`, never on a
    /// timer); `answered` of them answered within the deadline.
    case roundTripsMeasured(links: Int, answered: Int)

    /// A linked device offers an activity of `activityType` now: it is nearby on this device
    /// (published once when it appears, not at each update of the same activity).
    case nearbyOffered(activityType: String, device: String)
    /// The activity of `activityType` that `device` offered is no longer nearby (the device
    /// offers another or none, or its link went down).
    case nearbyWithdrawn(activityType: String, device: String)

    /// This device's record is published through avahi-daemon as the DNS-SD instance `name`
    /// (`_baton._tcp`, or `_baton-pair._tcp` for a pairing window), for `port`. The name is
    /// random and is what the network sees anyway.
    case servicePublished(name: String, port: UInt16)
    /// Discovery found a device of the group at `address` (`host:port`): its record's token
    /// verified for that address and port.
    case deviceFound(address: String)
    /// A device discovery had found withdrew its record (`address`, `host:port`).
    case deviceLost(address: String)

    /// A pairing window is open on `port` (its listener's), for a newcomer.
    case pairingWindowOpen(port: UInt16)
    /// The pairing window on `port` closed (a device paired, its time or attempts used, or it
    /// was closed): the port refuses connections from now on.
    case pairingWindowClosed(port: UInt16)
    /// The code of a pairing session was put to the person here (`onWindow`: on the window's
    /// side, else on the newcomer's) — the code the terminal or notification shows them.
    case pairingCode(code: String, onWindow: Bool)
    /// The pairing window turned a newcomer away before any code (it uses no attempt).
    case pairingRefused(reason: PairingRefusal)
    /// A pairing session failed on this side; `attemptsLeft` is the window's (nil on the
    /// newcomer's side).
    case pairingFailed(reason: PairingFailure, attemptsLeft: Int?)
    /// The pairing window issued `device` and the newcomer confirmed it saved its identity.
    case paired(device: String)
    /// This device joined `group` as `device`: its identity is saved.
    case joinedGroup(group: String, device: String)

    /// The agent refused an app's connection to its socket (`userID`: the connecting
    /// process's, nil when unknown).
    case appRefused(userID: UInt32?, reason: AppRefusal)
    /// An app the agent launched to continue an activity ended (`exitStatus`: its status, nil
    /// when a signal ended it).
    case launchedAppExited(appID: String, processID: Int32, exitStatus: Int32?)

    /// Signalling through the group's MQTT broker (docs/PROTOCOL.md, 7.2) is connected and
    /// subscribed to this device's inboxes (`BrokerEvent.connected`).
    case brokerConnected
    /// An attempt to connect to the broker failed (`BrokerEvent.connectFailed`); the next
    /// starts after `retryAfterMilliseconds`. `code`: the MQTT reason code the broker answered,
    /// or libmosquitto's error code, where `reason` has one.
    case brokerConnectFailed(reason: BrokerProblem, code: Int?, retryAfterMilliseconds: Int64)
    /// The connection to the broker was lost (`BrokerEvent.disconnected`); the next attempt
    /// starts after `retryAfterMilliseconds`.
    case brokerDisconnected(reason: BrokerProblem, code: Int?, retryAfterMilliseconds: Int64)
    /// A message that came through the broker was refused before its blob was used
    /// (`BrokerEvent.refused`). Its sender is not named: nothing it claims was verified.
    case brokerMessageRefused(reason: BrokerMessageRefusal)
    /// An attempt to link with the device `peer` (its name) beyond the LAN started: through ICE,
    /// its description exchanged through the group's broker (docs/PROTOCOL.md, 7.4). `offering`:
    /// this device sent the offer (its identifier sorts first); else it answers the peer's.
    case relayAttemptStarted(peer: String, offering: Bool)
    /// The attempt with `peer` ended with a verified link over ICE along `path` (a direct
    /// path, or through the TURN relay), handed to the node's links.
    case relayAttemptSucceeded(peer: String, path: IcePath)
    /// The attempt with `peer` failed for `reason`; this device (if it offers) tries again
    /// after `retryAfterMilliseconds`, nil when it does not try again by itself.
    case relayAttemptFailed(peer: String, reason: RelayFailure, retryAfterMilliseconds: Int64?)

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
        /// A device said it continued this device's activity without having fetched it.
        case continuedWithoutFetch
    }

    /// Why a link went down.
    public enum UnlinkReason: String, Sendable, Codable, CaseIterable {
        /// The connection closed (the peer hung up or went away).
        case closed
        /// The group revoked the peer's device.
        case revoked
        /// The peer broke the protocol, or did not answer as it must.
        case protocolError
        /// This device no longer holds the local address the link's connection was made from
        /// (its network went down or changed under it: a resume from suspend, a new lease, a
        /// roam): nothing sent on it could leave, so it was dropped at once when the network
        /// changed, and its device is dialed again.
        case localAddressGone
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
