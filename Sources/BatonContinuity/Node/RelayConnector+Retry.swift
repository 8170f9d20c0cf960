import BatonLoop
import Foundation

/// When a `RelayConnector` offers to a device again: at once after a link drops (it lived at
/// least `minimumLinkLifetime`), after a back-off that doubles from `firstRetryDelay` up to
/// `maximumRetryDelay` after a failed attempt or a link that dropped sooner than that.
extension RelayConnector {
    /// The link with `device` dropped: it is tried again now (no waiting out its delay) —
    /// unless it dropped because the group revoked the device, which is then never tried
    /// again (the roster keeps a revoked device's name), or it was a link this connector made
    /// that dropped sooner than `minimumLinkLifetime` after it came up: then this device (if
    /// it offers) waits out the back-off of a failed attempt first (`droppedSoon`).
    func linkDropped(_ device: String, revoked: Bool = false) {
        let since = linkedSince.removeValue(forKey: device)
        if revoked {
            self.revoked.insert(device)
            attempts.removeValue(forKey: device)?.cancel()
        }
        guard running else { return }
        retries.removeValue(forKey: device)?.cancel()
        if !revoked, let since, ContinuousClock.now - since < minimumLinkLifetime {
            let current = identity()
            guard offersTo(device, me: current.identifier) else { return }
            let retry = scheduleRetry(device)
            let name = current.deviceName(of: device)
            log.info("the link with \(name) beyond the LAN dropped soon after it came up: tried again in \(retry)")
            diagnostics.publish(.relayAttemptFailed(peer: name, reason: .droppedSoon, retryAfterMilliseconds: retry.milliseconds))
            return
        }
        backoff[device] = nil
        tryDevice(device)
    }

    /// The devices the list held names revoked (`RevocationList.revokedDevices`) are never
    /// tried again: an attempt with one is cancelled and its next offer dropped at once (not
    /// after the back-off, up to `maximumRetryDelay`), said typed (`revoked`) for each device
    /// that had one. Its offers are refused by signalling already (its certificate is revoked).
    func stopOffering(toRevokedIn current: DeviceIdentity) {
        for device in current.revocations.revokedDevices.sorted() where revoked.insert(device).inserted {
            let attempt = attempts.removeValue(forKey: device)
            let retry = retries.removeValue(forKey: device)
            backoff[device] = nil
            guard attempt != nil || retry != nil else { continue }
            attempt?.cancel()
            retry?.cancel()
            let name = current.deviceName(of: device)
            log.info("\(name) has been revoked: no longer tried beyond the LAN")
            diagnostics.publish(.relayAttemptFailed(peer: name, reason: .revoked, retryAfterMilliseconds: nil))
        }
    }

    /// Schedules the next offer to `device`; returns its delay (which doubles for the one after).
    func scheduleRetry(_ device: String) -> Duration {
        let delay = backoff[device] ?? firstRetryDelay
        backoff[device] = min(maximumRetryDelay, delay * 2)
        retries.removeValue(forKey: device)?.cancel()
        retries[device] = MainLoop.after(delay) { [weak self] in
            self?.retries[device] = nil
            self?.tryDevice(device)
        }
        return delay
    }
}
