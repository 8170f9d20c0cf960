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

    /// Every diagnostic event the process has published so far.
    public var diagnosticEvents: [DiagnosticEvent] { events(DiagnosticEvent.self) }
}
