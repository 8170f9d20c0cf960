import BatonLoop
import Foundation

/// Gets the discovery key the revocation list held names from the linked devices, until it is
/// held. A device that adopted a new list may ask before any peer has the key (the list
/// travels device to device at once; the key is copied in by hand on one of them), so asking
/// once is not enough: until the key is held, this asks again
/// - at once when a reason comes: a new link (`linkCameUp`), or a linked device sending the
///   list held (`peerSentCurrentList`: a device sends it when it got the key, or a newer list);
/// - otherwise after a delay that doubles from `firstRetry` up to `longestRetry` while any
///   device is linked (a timer, not a poll; no device linked, no timer: the next link asks).
///
/// Each round asks every linked device, one after another, and takes the first key that
/// matches the list's commitment (`TrustSync.adopt(discoveryKey:from:)`): a peer cannot hand
/// over another. Rounds never overlap; a reason that comes during one starts the next, and
/// rounds start at most once a second, however often linked devices send the list.
@MainActor
final class DiscoveryKeyFetch {
    static let firstRetry: Duration = .seconds(1)
    static let longestRetry: Duration = .seconds(30)
    private let trust: TrustSync
    private let links: LinkTable
    private let log: PeerLogger
    private let diagnostics: Diagnostics
    private var asking = false
    /// A reason to ask came while a round was out.
    private var askAgain = false
    private var retry: LoopSource?
    /// When `retry` fires, and when the last round started.
    private var retryAt: ContinuousClock.Instant?
    private var lastRound: ContinuousClock.Instant?
    private var nextDelay = DiscoveryKeyFetch.firstRetry

    init(trust: TrustSync, links: LinkTable, log: PeerLogger, diagnostics: Diagnostics) {
        self.trust = trust
        self.links = links
        self.log = log
        self.diagnostics = diagnostics
    }

    /// Whether the key the list held names is missing.
    private var isMissing: Bool { !trust.identity.discoveryKeyIsCurrent }

    /// A newer list is held and its key is not: start over, from the shortest delay.
    func listNeedsKey() {
        nextDelay = Self.firstRetry
        askNow()
    }

    /// A new link came up: it may have the key.
    func linkCameUp() { askNow() }

    /// A linked device sent the list this device holds: it sends it when it got the key.
    func peerSentCurrentList() { askNow() }

    /// The key is held (or the node stops): no more asking.
    func stop() {
        retry?.cancel()
        retry = nil
        retryAt = nil
        askAgain = false
        nextDelay = Self.firstRetry
    }

    /// Starts a round now — or, if the last one started less than `firstRetry` ago, then: a
    /// linked device sending the list again and again gets at most a round a second.
    private func askNow() {
        guard isMissing else { return stop() }
        guard !asking else {
            askAgain = true
            return
        }
        let now = ContinuousClock.now
        if let lastRound, now - lastRound < Self.firstRetry { return scheduleRound(after: Self.firstRetry - (now - lastRound)) }
        retry?.cancel()
        retry = nil
        retryAt = nil
        asking = true
        lastRound = now
        Task { @MainActor [weak self] in
            await self?.askEachLinkedDevice()
            self?.roundEnded()
        }
    }

    /// Asks again after `delay`, unless a round is due sooner.
    private func scheduleRound(after delay: Duration) {
        let at = ContinuousClock.now + delay
        if let retryAt, retryAt <= at { return }
        retry?.cancel()
        retryAt = at
        retry = MainLoop.after(delay) { [weak self] in
            self?.retry = nil
            self?.retryAt = nil
            self?.askNow()
        }
    }

    /// One round: asks the linked devices in turn until one hands over the key.
    private func askEachLinkedDevice() async {
        for link in links.all where isMissing {
            guard links[link.id] === link else { continue }
            let name = links.name(of: link)
            do {
                try trust.adopt(discoveryKey: try await link.bus.call(.getDiscoveryKey), from: name)
            } catch {
                log.info("\(name) has no discovery key for revocation list \(trust.identity.revocations.sequence): \(error)")
                diagnostics.publish(.discoveryKeyMissing(sequence: trust.identity.revocations.sequence, at: name))
            }
        }
    }

    private func roundEnded() {
        asking = false
        guard isMissing else { return stop() }
        if askAgain {
            askAgain = false
            return askNow()
        }
        guard !links.isEmpty else { return }  // the next link asks
        let delay = nextDelay
        nextDelay = min(nextDelay * 2, Self.longestRetry)
        log.info("asking the linked devices again for the discovery key of revocation list \(trust.identity.revocations.sequence) in \(delay)")
        diagnostics.publish(.discoveryKeyRetry(sequence: trust.identity.revocations.sequence, afterSeconds: Int(delay.components.seconds)))
        scheduleRound(after: delay)
    }
}
