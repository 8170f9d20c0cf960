import Baton
import Foundation
import Logging

/// What the app tells the agent of itself: its advertised activity and whether it is active
/// (`SetAdvertisement`), and, with an agent of version 3 or later, the payload of that activity
/// as it saves it (`HoldPayload`) and when it changed (`PayloadChanged`).
extension AgentConnection {
    /// Tells the agent this app's advertised activity and whether it is active, if that changed.
    func sendAdvertisement() {
        guard advertising, isJoined, let bus else { return }
        let activity = activities.advertisement()
        let active = Application.shared.isActive
        if let lastSent, lastSent.0 == activity, lastSent.1 == active { return }
        lastSent = (activity, active)
        if let activity {
            sent.removeAll { $0.generation == activity.generation }
            sent.append(activity)
            if sent.count > 8 { sent.removeFirst() }
        }
        let advertisement = activity.map {
            AppAdvertisement(id: $0.generation, activityType: $0.activityType, title: $0.title, webpageURL: $0.webpageURL,
                             supportsContinuationStreams: $0.supportsContinuationStreams)
        }
        // Queued now, in order: the agent sees each change in the order the app made it, and
        // before the calls that follow (a refused one shows in the agent's log).
        do {
            try bus.send(AgentMethod.setAdvertisement(activity: AppAdvertisement.encode(advertisement), active: active))
        } catch {
            log.notice("could not send this app's advertisement to the agent: \(error)")
        }
    }

    // MARK: Held payloads (agent version 3)

    /// `activity` was saved: if it is the advertised one the agent knows, its payload is handed
    /// to the agent to hold (not for a save made to answer the agent's own fetch: that payload
    /// is held once sent).
    func saved(_ activity: UserActivity) {
        guard !answeringFetch, let id = advertisedID(of: activity) else { return }
        guard let payload = try? activity.encodedPayload() else { return }  // the agent asks, and hears why
        hold(payload, id: id, of: activity)
    }

    /// The advertisement id the agent knows for `activity`, if it is the advertised one and
    /// the agent holds payloads.
    func advertisedID(of activity: UserActivity) -> UInt64? {
        guard advertising, isJoined, (agentVersion ?? 0) >= Self.holdingVersion, activity === Application.shared.advertisedUserActivity,
              let id = lastSent?.0?.generation, activities.advertisement()?.generation == id else { return nil }
        return id
    }

    /// Sends `payload`, just encoded from `activity` with nothing changed since, for the agent to hold.
    func hold(_ payload: Data, id: UInt64, of activity: UserActivity) {
        guard let bus else { return }
        do {
            try bus.send(AgentMethod.holdPayload(id: id, payload: payload))
            activity.payloadWasHeld()
            held = (id, ObjectIdentifier(activity))
        } catch {
            held = nil
            log.notice("could not hand the agent this app's payload: \(error)")
        }
    }

    /// Something `activity`'s payload carries changed, or it needs a save: the agent stops
    /// answering from the payload it holds. Sent before any later message, so every fetch that
    /// reaches the agent after it asks the app.
    func changed(_ activity: UserActivity) {
        guard let held, held.activity == ObjectIdentifier(activity) else { return }
        self.held = nil
        do {
            try bus?.send(AgentMethod.payloadChanged(id: held.id))
        } catch {
            log.notice("could not tell the agent this app's payload changed: \(error)")
        }
    }
}
