import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import Logging

/// How the peers' activities reach the joined apps: as state, not as a stream of steps.
///
/// What a peer offers is state — an app needs the latest list, never every step between — so:
/// - **Coalesced in time.** The first change after a quiet `interval` goes out at once; the
///   changes within the interval are folded into one, sent when it ends (the list as it is
///   then). A device of the group that floods updates reaches the apps (and the agent's
///   notifications) at most once per interval, whatever its rate; the rest costs the agent a
///   comparison of lists.
/// - **Sent only to an app that has taken what it was sent.** While an app's socket holds
///   unsent bytes of the agent's, it is sent nothing more; once they are taken it gets the
///   latest list, however many changes came meanwhile. The agent holds at most one list per
///   app that is behind, so an app that is slow or does not read costs it no memory per change.
/// - **Stalled apps are closed, alone.** An app that has not taken what the agent wrote for
///   `maximumStall` while a newer list waits for it is closed (logged once per app); apps that
///   read are untouched.
/// - **Memory goes back.** When a burst of more than `trimAfterBurst` changes ends (an interval
///   passes with none), or an app with a lot unread is closed, the heap's free pages are given
///   back to the system (`malloc_trim`): glibc otherwise keeps what a flood made it take.
@MainActor
final class NearbyDelivery {
    /// The shortest time between two lists sent to the apps.
    var interval: Duration = .milliseconds(50)
    /// How long an app may leave what the agent wrote untaken while a newer list waits for it.
    var maximumStall: Duration = .seconds(10)
    /// Changes in one burst past which its end gives memory back.
    var trimAfterBurst = 64
    /// Unsent bytes of a closed app past which its close gives memory back.
    static let trimAfterUnread = 1024 * 1024
    /// The joined apps now.
    var apps: @MainActor () -> [JoinedApp] = { [] }
    /// Closes an app that stalled (the agent drops it).
    var close: @MainActor (JoinedApp) -> Void = { _ in }
    /// Told the list each time one is sent (the agent's notifications).
    var sent: (@MainActor ([NearbyActivity]) -> Void)?
    private let log = Logger(label: "baton.agent")

    private var latest: [NearbyActivity] = []
    /// `latest` encoded, once per list sent.
    private var encoded: Variant?
    /// Counts the lists sent; an app is up to date when it was sent this one.
    private var version: UInt64 = 0
    /// Sent list versions, by app number (absent: none yet).
    private var versionSent: [UInt64: UInt64] = [:]
    /// Open while changes are folded; its end sends what came meanwhile.
    private var window: LoopSource?
    private var folded = false
    /// Changes since the last quiet interval.
    private var burst = 0
    /// Apps that are behind: waiting for their sockets to take what was written.
    private var behind: [UInt64: Behind] = [:]

    private struct Behind {
        /// Stops waiting for the app's connection to drain.
        let stopWaiting: @MainActor () -> Void
        let stall: LoopSource
    }

    /// The peers' activities changed to `activities`.
    func changed(_ activities: [NearbyActivity]) {
        latest = activities
        burst += 1
        guard window == nil else {
            folded = true
            return
        }
        send()
    }

    /// Forgets `app` (it left): nothing more is sent or waited for.
    func forget(_ app: JoinedApp) {
        versionSent[app.number] = nil
        if let waiting = behind.removeValue(forKey: app.number) {
            waiting.stopWaiting()
            waiting.stall.cancel()
        }
    }

    /// Cancels every wait (the agent stops).
    func stop() {
        window?.cancel()
        window = nil
        for waiting in behind.values {
            waiting.stopWaiting()
            waiting.stall.cancel()
        }
        behind = [:]
    }

    /// Gives the heap's free pages back to the system: after a flood, the agent's private
    /// memory returns near its idle figure.
    static func giveBackMemory() { malloc_trim(0) }

    // MARK: Sending

    private func send() {
        version += 1
        encoded = AgentInterface.encode(latest)
        sent?(latest)
        for app in apps() { offer(app) }
        window = MainLoop.after(interval) { [weak self] in self?.windowEnded() }
    }

    private func windowEnded() {
        window = nil
        if folded {
            folded = false
            return send()
        }
        if burst > trimAfterBurst { Self.giveBackMemory() }
        burst = 0
    }

    /// Sends the latest list to `app` if it has taken all it was sent, or waits until it has.
    private func offer(_ app: JoinedApp) {
        guard app.isJoined, !app.bus.isClosed, let encoded, versionSent[app.number] ?? 0 < version, behind[app.number] == nil else { return }
        guard app.bus.unsentOutputBytes > 0 else {
            versionSent[app.number] = version
            return app.bus.emit(AgentSignal.nearbyChanged(activities: encoded))
        }
        let number = app.number
        // The bus's write watch sends what waits as the socket takes it, and says when all went.
        app.bus.onOutputDrained = { [weak self, weak app] in
            guard let self, let app, !app.bus.isClosed else { return }
            app.bus.onOutputDrained = nil
            self.caughtUp(app)
        }
        let stall = MainLoop.after(maximumStall) { [weak self, weak app] in
            guard let self, let app else { return }
            self.stalled(app)
        }
        behind[number] = Behind(stopWaiting: { [weak app] in app?.bus.onOutputDrained = nil }, stall: stall)
    }

    private func caughtUp(_ app: JoinedApp) {
        behind.removeValue(forKey: app.number)?.stall.cancel()
        offer(app)
    }

    private func stalled(_ app: JoinedApp) {
        behind.removeValue(forKey: app.number)?.stopWaiting()
        guard !app.bus.isClosed else { return }
        let unread = app.bus.unsentOutputBytes
        log.warning("\(app.name) did not take what the agent sent it within \(maximumStall) (\(unread) bytes waiting): closed")
        close(app)
        if unread > Self.trimAfterUnread { Self.giveBackMemory() }
    }
}
