import Baton
import BatonContinuity
import BatonLoop
import Foundation

/// Why a continuation the agent was asked for (`Agent.continueNearby`) did not happen: the
/// `org.baton.Agent1.Error` name it is answered with over D-Bus, and words.
public struct AgentContinuationFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The D-Bus error name, `org.baton.Agent1.Error.…` (docs/PROTOCOL.md §5).
    public let name: String
    /// What happened, in words (sanitised; never a remote string as is).
    public let message: String
    /// A failure named `name`, saying `message`.
    public init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }
    public var description: String { message }
}

/// A continuation waiting for the app launched to take it.
struct WaitingContinuation {
    let activity: NearbyActivity
    let finish: @MainActor (Result<String, AgentContinuationFailure>) -> Void
    let expiry: LoopSource
    let id: UInt64
    /// Its record in `Agent.continuationHistory`.
    let record: UInt64
}

/// Continuing a nearby activity on this device, for `baton continue` (`Agent1.ContinueNearby`)
/// and the agent's own notifications — what Apple's system does when the person picks an
/// activity offered from another device (about-handoff: the app that declares the type, of the
/// same team, is launched if it is not running and is handed the activity).
extension Agent {
    /// How many continuations may wait for launched apps at once; past it the oldest fails.
    static let maximumWaitingForLaunch = 8

    /// Hands `activity` to the joined app of its team that declares its type (the one active
    /// last); else launches the installed app that continues it (`launcher`) and hands it over
    /// when that app joins, within `launchJoinTimeout`; else, when no app here continues it and
    /// it has a web page, opens the page in the web browser and tells the originating device
    /// it was continued. `finish` gets the app's ID (`"browser"` for the browser), or why not.
    /// A launched app that fails (a non-zero status, a signal) before it joins fails the continuation at once
    /// (`launchedAppEnded`), when the launcher can tell (an Exec launch by
    /// `DesktopAppLauncher`; not D-Bus activation, where `launchJoinTimeout` stays the bound).
    ///
    /// While a launched app starts, the activity's payload is fetched from the originating
    /// device beside the launch (`PayloadPrefetch`), and the app's own fetch takes it.
    public func continueNearby(_ activity: NearbyActivity, activationToken: String?,
                               finish done: @escaping @MainActor (Result<String, AgentContinuationFailure>) -> Void) {
        let history = continuationHistory
        let record = history.begin(activityType: activity.activityType, title: activity.title, device: activity.device, sequence: activity.sequence)
        let finish: @MainActor (Result<String, AgentContinuationFailure>) -> Void = { [weak history] outcome in
            if case .failure(let failure) = outcome {
                history?.record(.failed(code: HandoffFailure.code(forErrorName: failure.name).rawValue, reason: failure.message), in: record)
            }
            done(outcome)
        }
        let (offer, joined) = route(for: activity)
        let appID: String
        switch offer {
        case .app(let id, _):
            if let joined { return hand(activity, to: joined, record: record, finish: finish) }
            appID = id
        case .browser(let url, _):
            return openInBrowser(activity, url, record: record, finish: finish)
        case .differentTeam, .noAppDeclaresType:
            return finish(.failure(AgentContinuationFailure(AgentInterface.ErrorName.unsupported,
                                                            offer.sentence(activityType: activity.activityType, team: activity.teamIdentifier))))
        }
        guard let launcher else {  // route(for:) names an app to launch only when there is a launcher
            return finish(.failure(AgentContinuationFailure(AgentInterface.ErrorName.unsupported, "no launcher for \(appID)")))
        }
        waitingCount &+= 1
        let id = waitingCount
        do {
            try launcher.launch(appID: appID, activityType: activity.activityType, activationToken: activationToken) { [weak self] exit in
                self?.launchedAppEnded(exit, continuation: id)
            }
        } catch {
            return finish(.failure(AgentContinuationFailure(AgentInterface.ErrorName.handoffFailed, "cannot launch \(appID): \(error)")))
        }
        history.record(.appLaunched(appID: appID), in: record)
        if waitingForLaunch.count >= Self.maximumWaitingForLaunch {
            let oldest = waitingForLaunch.removeFirst()
            oldest.expiry.cancel()
            dropPrefetch(of: oldest.id)
            oldest.finish(.failure(AgentContinuationFailure(AgentInterface.ErrorName.refused, "too many continuations waiting for apps to start")))
        }
        let bound = launchJoinTimeout
        let expiry = MainLoop.after(bound) { [weak self] in
            guard let self, let index = self.waitingForLaunch.firstIndex(where: { $0.id == id }) else { return }
            let waiting = self.waitingForLaunch.remove(at: index)
            self.dropPrefetch(of: id)
            waiting.finish(.failure(AgentContinuationFailure(AgentInterface.ErrorName.timedOut,
                                                             "\(appID) did not join the agent within \(bound) of its launch")))
        }
        waitingForLaunch.append(WaitingContinuation(activity: activity, finish: finish, expiry: expiry, id: id, record: record))
        if prefetches.count >= 2 * Self.maximumWaitingForLaunch { prefetches.removeFirst().drop() }
        prefetches.append(PayloadPrefetch(activity: activity, continuation: id, node: node))
    }

    /// Where `activity` goes if the person continues it here now, or why it goes nowhere: the
    /// decision `continueNearby` follows (see `ActivityOffer`). In order: the joined app of
    /// the activity's team that declares its type (the one active last); else the installed
    /// app the launcher would start; else, with a web page, the browser; else no app — and
    /// then whether apps of another team declare the type.
    public func offer(for activity: NearbyActivity) -> ActivityOffer { route(for: activity, naming: true).offer }

    /// `offer(for:)` without naming the apps of other teams (which reads the installed apps'
    /// files): where `activity` goes, for what is asked often, such as the desktop
    /// notifications' "Continue … in Mail".
    public func destination(for activity: NearbyActivity) -> ActivityOffer { route(for: activity).offer }

    /// `offer(for:)`, with the joined app it names. Without `naming`, a browser offer leaves its
    /// `otherTeamApps` empty: continuing does not need them, and finding them reads the
    /// installed apps' files.
    func route(for activity: NearbyActivity, naming: Bool = false) -> (offer: ActivityOffer, joined: JoinedApp?) {
        let joined = apps.apps.values.filter { Self.joinedApp($0, continues: activity) }.max { $0.activeSince < $1.activeSince }
        let launcher = launcher
        let offer = ActivityOffer.decide(activity, runningApp: joined?.appID, installedApp: { launcher?.appID(continuing: activity) },
                                         otherTeamApps: { self.appsOfOtherTeams(declaring: activity) }, naming: naming)
        if case .app(_, true) = offer { return (offer, joined) }
        return (offer, nil)
    }

    /// Whether the joined `app` takes `activity`: it is of the activity's team and declares its type.
    static func joinedApp(_ app: JoinedApp, continues activity: NearbyActivity) -> Bool {
        app.isJoined && app.teamIdentifier == activity.teamIdentifier && app.activityTypes.contains(activity.activityType)
    }

    /// The joined and installed apps that declare `activity`'s type for a team other than its
    /// own (they cannot take it: the reason shown), each once, joined first.
    private func appsOfOtherTeams(declaring activity: NearbyActivity) -> [String] {
        let type = activity.activityType, team = activity.teamIdentifier
        var found: [String] = []
        for app in apps.apps.values where app.isJoined && app.teamIdentifier != team && app.activityTypes.contains(type) {
            if let id = app.appID, !found.contains(id) { found.append(id) }
        }
        for id in ActivityOffer.installedAppsOfOtherTeams(declaring: activity) where !found.contains(id) { found.append(id) }
        return found
    }

    /// A process the launcher started for the waiting continuation `id` ended: if the
    /// continuation still waits (the app never joined and took it), it fails now with
    /// `HandoffFailed` — the app could not continue it, which is what
    /// `CocoaError.userActivityHandoffFailed` says; nothing timed out and no connection was
    /// missing — saying how the app ended and its last lines (escaped by the launcher). Other
    /// continuations waiting for the same app have launches of their own, reported apart.
    ///
    /// A process that exited with status 0 may have handed the launch on (a GApplication's
    /// second instance passes it to the first and exits 0; a wrapper starts the app and exits):
    /// the continuation then goes on waiting for a join, within `launchJoinTimeout`.
    func launchedAppEnded(_ exit: LaunchedAppExit, continuation id: UInt64) {
        let exitStatus: Int32? = if case .exited(let code) = exit.status { code } else { nil }
        node.diagnostics.publish(.launchedAppExited(appID: exit.appID, processID: exit.processID, exitStatus: exitStatus))
        guard let index = waitingForLaunch.firstIndex(where: { $0.id == id }) else { return }
        if exit.status == .exited(0) {
            return log.info("\(PrintableText.escaped(exit.appID)) (pid \(exit.processID)) exited with status 0 before joining: waiting for the app it handed the launch to")
        }
        let waiting = waitingForLaunch.remove(at: index)
        waiting.expiry.cancel()
        dropPrefetch(of: id)
        let message = "\(PrintableText.escaped(exit.appID)) \(exit.statusDescription) before joining"
            + (exit.lastLines.isEmpty ? "" : ": " + exit.lastLines.joined(separator: " / "))
        log.notice("\(message)")
        waiting.finish(.failure(AgentContinuationFailure(AgentInterface.ErrorName.handoffFailed, message)))
    }

    /// A newly joined app takes the continuations that wait for its team's activity types.
    func handWaitingContinuations(to app: JoinedApp) {
        let mine = waitingForLaunch.filter { Self.joinedApp(app, continues: $0.activity) }
        waitingForLaunch.removeAll { waiting in mine.contains { $0.id == waiting.id } }
        for waiting in mine {
            waiting.expiry.cancel()
            let id = waiting.id
            if let prefetch = prefetches.first(where: { $0.continuation == id }) {
                prefetch.app = app.number
                prefetch.expiry = MainLoop.after(appCallTimeout) { [weak self] in self?.dropPrefetch(of: id) }
            }
            hand(waiting.activity, to: app, record: waiting.record, finish: waiting.finish)
        }
    }

    /// The prefetch of `activity`'s payload for `app`'s fetch, if there is one (see
    /// `PayloadPrefetch` for the rule); taken, it is no longer held.
    func takePrefetch(of activity: NearbyActivity, for app: JoinedApp) -> PayloadPrefetch? {
        guard let index = prefetches.firstIndex(where: { $0.isFor(activity, from: app) }) else { return nil }
        let prefetch = prefetches.remove(at: index)
        prefetch.expiry?.cancel()
        prefetch.expiry = nil
        prefetchesTaken += 1
        log.debug("\(app.name) takes the payload fetched while it started")
        return prefetch
    }

    /// Drops the prefetch of the waiting continuation `id`, unused.
    func dropPrefetch(of id: UInt64) {
        guard let index = prefetches.firstIndex(where: { $0.continuation == id }) else { return }
        prefetches.remove(at: index).drop()
    }

    private func hand(_ activity: NearbyActivity, to app: JoinedApp, record: UInt64,
                      finish: @escaping @MainActor (Result<String, AgentContinuationFailure>) -> Void) {
        continuationHistory.record(.appJoined(appID: app.appID ?? ""), in: record)
        Task { @MainActor [weak self] in
            guard let self else { return }
            do {
                try await app.bus.call(.continueNearby(activity: AgentInterface.encode(activity)), timeout: self.appCallTimeout)
                finish(.success(app.appID ?? ""))
            } catch {
                finish(.failure(AgentContinuationFailure(AgentInterface.ErrorName.handoffFailed, "\(app.name) did not take the continuation: \(error)")))
            }
        }
    }

    /// Native app-to-web browser handoff (handoff-programming-guide): the page opens in the
    /// default browser, and the originating device is told (bounded by its call deadline).
    private func openInBrowser(_ activity: NearbyActivity, _ url: URL, record: UInt64,
                               finish: @escaping @MainActor (Result<String, AgentContinuationFailure>) -> Void) {
        do { try WebBrowser.open(url) } catch {
            return finish(.failure(AgentContinuationFailure(AgentInterface.ErrorName.handoffFailed, "cannot open \(url.absoluteString): \(error)")))
        }
        continuationHistory.record(.openedInBrowser(url: url.absoluteString), in: record)
        let node = node
        let history = continuationHistory
        Task { @MainActor in
            if (try? await node.confirmContinued(activity)) != nil { history.record(.wasContinuedSent, in: record) }
            finish(.success("browser"))
        }
    }
}
