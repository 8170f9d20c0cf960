import Baton
import BatonContinuity
import BatonLoop
import CGLib
import Foundation

/// `Inspect` (`baton inspect`, `baton why`): the device and each joined app, asked over the
/// connection each app already has, each within `appInspectionDeadline`.
extension Agent {
    /// How long the agent waits for each app's own inspection; an app that is busy or stuck
    /// is reported as not answering, so `Inspect` is bounded whatever the apps do.
    public static let appInspectionDeadline: Duration = .seconds(5)
    /// The largest inspection taken from one app; a larger answer is reported, not kept.
    static let maximumAppInspection = 1024 * 1024

    /// Answers `caller`'s `Inspect`. Counted among the caller's calls waiting
    /// (`maximumPendingCallsPerApp`), so a tool cannot pile up inspections.
    func answerInspection(_ call: DBusAnswer<AgentMethod>, from caller: JoinedApp, app filter: String, actions: [String]) {
        guard actions.count <= AgentConnection.maximumInspectedActions,
              actions.allSatisfy({ $0.utf8.count <= AgentConnection.maximumActionName }), filter.utf8.count <= AgentInterface.maximumText else {
            return call.fail(.refused, "at most \(AgentConnection.maximumInspectedActions) action names of at most \(AgentConnection.maximumActionName) bytes")
        }
        answerWaiting(call, from: caller) { [weak caller] agent, call in
            let inspection = await agent.inspection(app: filter.isEmpty ? nil : filter, actions: actions, excluding: caller)
            do {
                let json = try InspectionJSON.encoder().encode(inspection)
                call.reply(.inspect(app: filter, actions: actions), String(decoding: json, as: UTF8.self))
            } catch {
                call.fail(.refused, "the inspection did not encode: \(error)")
            }
        }
    }

    /// The device and its joined apps now (all, or only the app `app`; never `excluding`, the
    /// one asking), each app asked for where each of `actions` would go. The apps are asked at
    /// once and each answer waited for at most `appInspectionDeadline`; meanwhile each link's
    /// round trip is measured (`ContinuityNode.roundTrips()`).
    func inspection(app filter: String?, actions: [String], excluding: JoinedApp?) async -> AgentInspection {
        let measured = Task { @MainActor [self] in await statusWithRoundTrips() }
        let advertised = apps.frontmost
        let targets = apps.apps.values.filter { $0.isJoined && $0 !== excluding && (filter == nil || $0.appID == filter) }
            .sorted { $0.number < $1.number }
        let asked = targets.map { app in
            (app, Task { @MainActor in
                try await app.bus.call(.inspect(actions: actions), timeout: Self.appInspectionDeadline)
            })
        }
        var reports: [AgentInspection.AppReport] = []
        for (app, answer) in asked {
            var report = AgentInspection.AppReport(appID: app.appID ?? "", processID: app.pid, isAdvertised: app === advertised,
                                                   advertisedActivityType: app.advertisement?.activityType, inspection: nil,
                                                   didNotAnswer: false, problem: nil)
            switch await answer.result {
            case .success(let text) where text.utf8.count > Self.maximumAppInspection:
                report.problem = "its inspection is larger than \(Self.maximumAppInspection) bytes"
            case .success(let text):
                do { report.inspection = try InspectionJSON.decoder().decode(ApplicationInspection.self, from: Data(text.utf8)) } catch {
                    report.problem = "its inspection did not decode: \(error)"
                }
            case .failure(let error as GLibError) where error.isIOError(G_IO_ERROR_TIMED_OUT):
                report.didNotAnswer = true
                report.problem = "did not answer within \(Self.appInspectionDeadline)"
            case .failure(let error):
                report.problem = "\(error)"
            }
            reports.append(report)
        }
        var device = await measured.value
        if let excluding { device.apps.removeAll { $0.processID == excluding.pid && $0.appID == excluding.appID } }
        let own = node.identity.identifier
        let group = node.identity.revocations.deviceNames.filter { $0.key != own }.map(\.value).sorted()
        let nearby = apps.nearby.map { AgentInspection.NearbyInspection($0, offer: offer(for: $0)) }
        return AgentInspection(device: device, groupDevices: group, nearby: nearby, apps: reports, continuations: continuationHistory.records,
                               revokedDevices: revokedDevices)
    }
}

extension Agent {
    /// The most apps that may watch at once.
    static let maximumWatchers = 8
    /// Unsent bytes to a watching app past which its events are left out (and counted) until
    /// it takes what it was sent: a watcher that does not read costs the agent no memory per event.
    public static let maximumUnreadWatch = 256 * 1024

    /// Answers `WatchInspection`: from `on`, each of the device's events (`DiagnosticEvent`)
    /// and each continuation the agent routes (`ContinuationRecord`, after its newest steps,
    /// once per turn of the loop) is sent to `app` as an `InspectionEvent` signal, until it asks
    /// to stop or leaves. The agent observes them only while some app watches.
    func answerWatch(_ call: DBusAnswer<AgentMethod>, from app: JoinedApp, on: Bool) {
        let number = app.number
        guard on else {
            inspectionWatchers[number] = nil
            return call.reply(.watchInspection(on: on), ())
        }
        inspectionWatchers = inspectionWatchers.filter { entry in apps.apps[entry.key]?.bus.isClosed == false }
        guard inspectionWatchers[number] == nil else { return call.reply(.watchInspection(on: on), ()) }
        guard inspectionWatchers.count < Self.maximumWatchers else {
            return call.fail(.refused, "at most \(Self.maximumWatchers) apps may watch at once")
        }
        var dropped = 0
        let encoder = InspectionJSON.encoder()
        let send: @MainActor (InspectionEvent) -> Void = { [weak self, weak app] event in
            guard let app, app.isJoined, !app.bus.isClosed else {
                self?.inspectionWatchers[number] = nil
                return
            }
            guard app.bus.unsentOutputBytes <= Self.maximumUnreadWatch else {
                dropped += 1
                return
            }
            var event = event
            event.dropped = dropped
            guard let json = try? encoder.encode(event) else { return }
            dropped = 0
            app.bus.emit(AgentSignal.inspectionEvent(event: String(decoding: json, as: UTF8.self)))
        }
        var waiting: [ContinuationRecord] = []
        var flush: LoopSource?
        inspectionWatchers[number] = InspectionWatch(
            send: send,
            events: node.diagnostics.observe { event in send(InspectionEvent(time: Date(), event: event)) },
            continuations: continuationHistory.observe { record in
                // Sent from an idle source, each record once per turn with its newest steps: the
                // continuation's own I/O goes first.
                if let index = waiting.firstIndex(where: { $0.id == record.id }) { waiting[index] = record } else { waiting.append(record) }
                guard flush == nil else { return }
                flush = MainLoop.idle {
                    flush = nil
                    let records = waiting
                    waiting = []
                    for record in records { send(InspectionEvent(time: record.steps.last?.time ?? Date(), continuation: record)) }
                }
            })
        call.reply(.watchInspection(on: on), ())
    }

    /// Answers `InspectionChanged`: `app`'s summary goes to each watcher as an event. An app
    /// sends it only while the agent asked it to (`tellAppsToWatch`).
    func answerInspectionChanged(_ call: DBusAnswer<AgentMethod>, from app: JoinedApp, summary text: String) {
        guard text.utf8.count <= AgentInterface.maximumSummary,
              let summary = try? InspectionJSON.decoder().decode(InspectionSummary.self, from: Data(text.utf8)) else {
            return call.fail(.refused, "a summary is JSON of at most \(AgentInterface.maximumSummary) bytes")
        }
        call.reply(.inspectionChanged(summary: text), ())
        let change = InspectionEvent.AppChange(appID: app.appID ?? "", processID: app.pid, summary: summary)
        for watch in inspectionWatchers.values { watch.send(InspectionEvent(time: Date(), app: change)) }
    }

    /// Tells `targets` (by default every joined app) to start or stop sending their
    /// summaries (`App1.WatchInspection`): on while some app watches, off when none does, so
    /// an app nobody watches sends nothing. Each call is bounded by `appCallTimeout`; an app
    /// older than interface 6 refuses it, and is then only seen through `Inspect`.
    func tellAppsToWatch(_ on: Bool, apps targets: [JoinedApp]? = nil) {
        for app in targets ?? apps.apps.values.filter(\.isJoined) {
            let timeout = appCallTimeout
            let log = log
            Task { @MainActor in
                do { try await app.bus.call(.sendSummaries(on: on), timeout: timeout) } catch {
                    log.debug("\(app.name) did not take WatchInspection: \(error)")
                }
            }
        }
    }
}

/// What one watching app is sent from (`Agent.answerWatch`): the device's events and the
/// steps of the continuations the agent routes; both end when it is released.
struct InspectionWatch {
    /// Sends one event to the watching app (or counts it as left out).
    let send: @MainActor (InspectionEvent) -> Void
    let events: DiagnosticsObservation
    let continuations: InspectionObservation
}
