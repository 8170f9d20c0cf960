@_exported import BatonContinuity
@_exported import BatonTestSupport
import Foundation

/// A device process's typed diagnostics (`DiagnosticEvent`, from its `BATON_DIAGNOSTICS_FD`):
/// what tests wait for instead of the wording of its log.
extension RunningProcess {
    /// The first event that `matches`, once published; nil if the process ends or `timeout`
    /// passes first.
    public func waitForEvent(timeout: TimeInterval = 30, occurrence: Int = 1,
                             where matches: (DiagnosticEvent) -> Bool) -> DiagnosticEvent? {
        waitForEvent(DiagnosticEvent.self, occurrence: occurrence, timeout: timeout, where: matches)
    }

    /// Whether the process published `event` (the `occurrence`th time) within `timeout`.
    public func waitFor(_ event: DiagnosticEvent, occurrence: Int = 1, timeout: TimeInterval = 30) -> Bool {
        waitForEvent(timeout: timeout, occurrence: occurrence) { $0 == event } != nil
    }

    /// The address the process's node listens on (`host:port`, as `PeerAddress` writes it),
    /// from its first `.listening` event; nil if none came within `timeout`.
    public func listeningAddress(timeout: TimeInterval = 30) -> PeerAddress? {
        guard case .listening(let host, let port)? = waitForEvent(timeout: timeout, where: {
            if case .listening = $0 { true } else { false }
        }) else { return nil }
        return PeerAddress(host: host, port: port)
    }

    /// Waits until the process has linked with the device shown as `peer`.
    public func waitForLink(with peer: String, occurrence: Int = 1, timeout: TimeInterval = 30) -> Bool {
        waitForEvent(timeout: timeout, occurrence: occurrence) {
            if case .linked(peer, _) = $0 { true } else { false }
        } != nil
    }

    /// Waits until the process's link with the device shown as `peer` has gone down, for any reason.
    public func waitForUnlink(from peer: String, timeout: TimeInterval = 30) -> Bool {
        waitForEvent(timeout: timeout) {
            if case .unlinked(peer, _) = $0 { true } else { false }
        } != nil
    }

    /// Waits until the process has refused something (a connection, a message) for `reason`.
    public func waitForRefusal(_ reason: DiagnosticEvent.RefusalReason, timeout: TimeInterval = 30) -> Bool {
        waitForEvent(timeout: timeout) {
            if case .refused(_, reason) = $0 { true } else { false }
        } != nil
    }

    /// Waits until the `occurrence`th activity (of `activityType`, when given) that `device`
    /// offers is nearby on the process's node (`nearbyOffered`).
    public func waitForNearby(from device: String, _ activityType: String? = nil, occurrence: Int = 1,
                              timeout: TimeInterval = 30) -> Bool {
        waitForEvent(timeout: timeout, occurrence: occurrence) {
            if case .nearbyOffered(let type, device) = $0 { activityType.map { $0 == type } ?? true } else { false }
        } != nil
    }

    /// Waits until the `occurrence`th activity (of `activityType`, when given) of `device` is
    /// no longer nearby on the process's node (`nearbyWithdrawn`).
    public func waitForWithdrawal(from device: String, _ activityType: String? = nil, occurrence: Int = 1,
                                  timeout: TimeInterval = 30) -> Bool {
        waitForEvent(timeout: timeout, occurrence: occurrence) {
            if case .nearbyWithdrawn(let type, device) = $0 { activityType.map { $0 == type } ?? true } else { false }
        } != nil
    }

    /// Waits until the process has continued, for the `occurrence`th time, an activity (from
    /// `device`, when given).
    public func waitForContinued(from device: String? = nil, occurrence: Int = 1, timeout: TimeInterval = 30) -> Bool {
        waitForEvent(timeout: timeout, occurrence: occurrence) {
            if case .continued(_, let from) = $0 { device.map { $0 == from } ?? true } else { false }
        } != nil
    }

    /// Waits until, for the `occurrence`th time, the process's own activity was continued on
    /// another device (`continuedElsewhere`) and its delegate told.
    public func waitForContinuedElsewhere(occurrence: Int = 1, timeout: TimeInterval = 30) -> Bool {
        waitForEvent(timeout: timeout, occurrence: occurrence) {
            if case .continuedElsewhere = $0 { true } else { false }
        } != nil
    }

    /// Waits until a continuation on the process failed with Handoff error `code`.
    public func waitForContinuationFailure(code: Int, timeout: TimeInterval = 30) -> Bool {
        waitForEvent(timeout: timeout) {
            if case .continuationFailed(_, code) = $0 { true } else { false }
        } != nil
    }

    /// Waits until the process's discovery reached `state` (`DiscoveryStatus.code`), the
    /// `occurrence`th time.
    public func waitForDiscovery(_ state: String, occurrence: Int = 1, timeout: TimeInterval = 30) -> Bool {
        waitFor(.discovery(state: state), occurrence: occurrence, timeout: timeout)
    }

    /// The DNS-SD instance name the process published (`servicePublished`), the
    /// `occurrence`th time; nil if it did not within `timeout`.
    public func publishedServiceName(occurrence: Int = 1, timeout: TimeInterval = 30) -> String? {
        guard case .servicePublished(let name, _)? = waitForEvent(timeout: timeout, occurrence: occurrence, where: {
            if case .servicePublished = $0 { true } else { false }
        }) else { return nil }
        return name
    }

    /// Waits until the process's discovery found a device of the group at `address`
    /// (`host:port`, or a prefix of it such as the host and its colon).
    public func waitForFoundDevice(at address: String, timeout: TimeInterval = 30) -> Bool {
        waitForEvent(timeout: timeout) {
            if case .deviceFound(let found) = $0 { found.hasPrefix(address) } else { false }
        } != nil
    }

    /// Waits until an app (`appID`, and its process, when given) joined the agent that is
    /// this process, the `occurrence`th time.
    public func waitForAppJoined(_ appID: String? = nil, processID: Int32? = nil, occurrence: Int = 1,
                                 timeout: TimeInterval = 30) -> Bool {
        waitForEvent(timeout: timeout, occurrence: occurrence) {
            guard case .appJoined(let id, let pid) = $0 else { return false }
            return (appID.map { $0 == id } ?? true) && (processID.map { $0 == pid } ?? true)
        } != nil
    }

    /// Waits until the app that is this process has joined an agent (the one at `socketPath`,
    /// when given), the `occurrence`th time: its join answered, its advertisement told and
    /// what is nearby taken (`joinedAgent`, published by its `AgentConnection`).
    public func waitForJoinedAgent(at socketPath: String? = nil, occurrence: Int = 1, timeout: TimeInterval = 30) -> Bool {
        waitForEvent(timeout: timeout, occurrence: occurrence) {
            guard case .joinedAgent(let path, _) = $0 else { return false }
            return socketPath.map { $0 == path } ?? true
        } != nil
    }

    /// Waits until the agent that is this process serves apps on its socket at `path`
    /// (`agentServing`).
    public func waitForAgentServing(at path: String, timeout: TimeInterval = 30) -> Bool {
        waitFor(.agentServing(path: path), timeout: timeout)
    }

    /// The port of the pairing window the process opened; nil if none opened within `timeout`.
    public func pairingWindowPort(timeout: TimeInterval = 30) -> UInt16? {
        guard case .pairingWindowOpen(let port)? = waitForEvent(timeout: timeout, where: {
            if case .pairingWindowOpen = $0 { true } else { false }
        }) else { return nil }
        return port
    }

    /// The code of the process's `occurrence`th pairing session shown to its person
    /// (`onWindow`: on the window's side), as the person sees it (`123 456`); nil if none was
    /// shown within `timeout`.
    public func pairingCode(onWindow: Bool, occurrence: Int = 1, timeout: TimeInterval = 30) -> String? {
        guard case .pairingCode(let code, _)? = waitForEvent(timeout: timeout, occurrence: occurrence, where: {
            if case .pairingCode(_, onWindow) = $0 { true } else { false }
        }) else { return nil }
        return code
    }

    /// The `occurrence`th pairing failure the process published (`attemptsLeft`: the window's).
    public func pairingFailure(occurrence: Int = 1, timeout: TimeInterval = 30)
        -> (reason: DiagnosticEvent.PairingFailure, attemptsLeft: Int?)? {
        guard case .pairingFailed(let reason, let left)? = waitForEvent(timeout: timeout, occurrence: occurrence, where: {
            if case .pairingFailed = $0 { true } else { false }
        }) else { return nil }
        return (reason, left)
    }

    /// Every diagnostic event the process has published so far.
    public var diagnosticEvents: [DiagnosticEvent] { events(DiagnosticEvent.self) }
}
