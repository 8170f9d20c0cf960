import Baton
import BatonContinuity
import BatonLoop
import Foundation
import Logging

/// The agent's `ActivityProvider`: the device offers the advertised activity of the joined app
/// that became active most recently (nothing when no joined app is active, or when that app
/// advertises nothing), and the peers' activities go to every joined app, as state
/// (`NearbyDelivery`: the latest list, coalesced, only to an app that has taken the last).
@MainActor
final class JoinedApps: ActivityProvider {
    var advertisementDidChange: (@MainActor () -> Void)?
    private(set) var apps: [UInt64: JoinedApp] = [:]
    /// The peers' activities now, as the node gave them.
    private(set) var nearby: [NearbyActivity] = []
    /// How long the agent waits for an app to answer a call (its payload, `Continued`).
    var appCallTimeout: Duration = .seconds(5)
    private var events: UInt64 = 0
    /// Generations handed to the node, by (app connection, the app's advertisement id), and
    /// back; at most `rememberedGenerations`.
    private var generations: [(key: GenerationKey, generation: UInt64)] = []
    private var nextGeneration: UInt64 = 0
    private static let rememberedGenerations = 16
    let log = Logger(label: "baton.agent")
    /// Continuation streams accepted from a peer for an app (the relay; see `Agent`).
    var streamsArrived: (@MainActor (JoinedApp, UInt64, any ContinuationStreamChannel) -> Void)?
    /// Sends the peers' activities to the apps, coalesced (`NearbyDelivery`).
    let delivery = NearbyDelivery()
    /// The agent's history (`Agent.continuationHistory`): the node records the originating
    /// side of each continuation of a joined app's activity there.
    weak var continuationHistory: ContinuationHistory?

    private struct GenerationKey: Equatable {
        var app: UInt64
        var advertisement: UInt64
    }

    init() {
        delivery.apps = { [unowned self] in Array(apps.values) }
    }

    func add(_ app: JoinedApp) { apps[app.number] = app }

    /// Where an app that joined and left is said (`DiagnosticEvent.appLeft`).
    var diagnostics: Diagnostics?

    /// Drops `app` (its connection closed: by itself when `reason` is nil, else by the agent
    /// for that reason): its activity is withdrawn at once.
    func remove(_ app: JoinedApp, reason: DiagnosticEvent.AppDropReason? = nil) {
        guard apps.removeValue(forKey: app.number) != nil else { return }
        delivery.forget(app)
        app.joinDeadline?.cancel()
        app.joinDeadline = nil
        if app.isJoined {
            log.info("\(app.name) left")
            diagnostics?.publish(.appLeft(appID: app.appID ?? "", reason: reason))
        }
        advertisementDidChange?()
    }

    /// `app` says what it advertises and whether it is active.
    func update(_ app: JoinedApp, advertisement: AppAdvertisement?, active: Bool) {
        if active && !app.isActive {
            events += 1
            app.activeSince = events
        }
        app.isActive = active
        app.advertisement = advertisement
        if app.heldPayload?.id != advertisement?.id { app.heldPayload = nil }
        advertisementDidChange?()
    }

    /// `app` saved its advertised activity `id` as `payload` (`HoldPayload`): held while it is
    /// that app's advertisement and the app says no change. Ignored for another id or past
    /// `UserActivity.payloadLimit` (the app is then asked, and says why).
    func hold(_ payload: Data, id: UInt64, from app: JoinedApp) {
        guard app.advertisement?.id == id, payload.count <= UserActivity.payloadLimit else {
            app.heldPayload = nil
            return
        }
        app.heldPayload = (id, payload)
    }

    /// The joined app whose activity the device advertises: the active one that became active last.
    var frontmost: JoinedApp? {
        apps.values.filter { $0.isJoined && $0.isActive }.max { $0.activeSince < $1.activeSince }
    }

    func advertisement() -> ProvidedActivity? {
        guard let app = frontmost, let ad = app.advertisement, let appID = app.appID, let team = app.teamIdentifier else { return nil }
        let key = GenerationKey(app: app.number, advertisement: ad.id)
        let generation: UInt64
        if let known = generations.last(where: { $0.key == key }) {
            generation = known.generation
        } else {
            nextGeneration += 1
            generation = nextGeneration
            generations.append((key, generation))
            if generations.count > Self.rememberedGenerations { generations.removeFirst() }
        }
        return ProvidedActivity(generation: generation, activityType: ad.activityType, title: ad.title, appID: appID,
                                teamIdentifier: team, webpageURL: ad.webpageURL,
                                supportsContinuationStreams: ad.supportsContinuationStreams)
    }

    /// The app (still connected) and its advertisement id behind `activity`.
    private func origin(of activity: ProvidedActivity) -> (JoinedApp, UInt64)? {
        guard let key = generations.last(where: { $0.generation == activity.generation })?.key, let app = apps[key.app] else { return nil }
        return (app, key.advertisement)
    }

    func payload(of activity: ProvidedActivity) async throws(ProvidedActivityError) -> Data {
        guard let (app, id) = origin(of: activity) else { throw .notCurrent }
        if let held = app.heldPayload, held.id == id { return held.data }
        do {
            return try await app.bus.call(.fetchPayload(id: id), timeout: appCallTimeout)
        } catch let error as GLibError {
            switch error.remoteDBusErrorName.flatMap(HandoffFailure.AppErrorName.init(rawValue:)) {
            case .notCurrent?: throw .notCurrent
            case .tooLarge?: throw .tooLarge(error.message)
            default:
                log.notice("\(app.name) did not give its payload: \(error)")
                throw .failed("the app did not give its payload: \(error.message)")
            }
        } catch {
            throw .failed("\(error)")
        }
    }

    /// Tells the app without asking for a reply (`App1.Continued` answers nothing the agent
    /// needs): the peer is answered at once, and the app's delegate is told in order with the
    /// agent's other messages to it.
    func continued(_ activity: ProvidedActivity) async {
        guard let (app, id) = origin(of: activity) else { return }
        do {
            try app.bus.send(AppMethod.continued(id: id))
        } catch {
            log.notice("could not tell \(app.name) its activity was continued: \(error)")
        }
    }

    func canOpenStreams(for activity: ProvidedActivity) -> Bool {
        origin(of: activity) != nil && activity.supportsContinuationStreams
    }

    func acceptStreams(_ channel: any ContinuationStreamChannel, for activity: ProvidedActivity) {
        guard let (app, id) = origin(of: activity), let streamsArrived else { return channel.close() }
        streamsArrived(app, id, channel)
    }

    func nearbyActivitiesDidChange(_ activities: [NearbyActivity]) {
        guard activities != nearby else { return }
        nearby = activities  // answered at once (`GetNearby`, `ContinueNearby`)
        delivery.changed(activities)
    }

    func nodeDidStart(_ node: ContinuityNode) {}
    func nodeDidStop(_ node: ContinuityNode) {}
}
