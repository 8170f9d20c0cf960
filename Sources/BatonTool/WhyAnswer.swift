import BatonAgent
import Foundation

/// The answer of `baton why SUBJECT`: one sentence, the reason as a code for scripts, and the
/// facts behind it — all read from the agent's inspection, whose offers come from the code that
/// decides them (`Agent.offer(for:)`, `Application.advertisedUserActivity`'s rule).
struct WhyAnswer: Codable, Equatable {
    /// What was asked about: an activity type or a device name.
    var subject: String
    /// Why, as a code (see `Reason`).
    var reason: Reason
    /// The answer in one sentence (remote strings escaped).
    var sentence: String
    /// The facts behind it, one per line (remote strings escaped).
    var facts: [String]

    /// The reasons `baton why` gives (docs/INSPECT.md).
    enum Reason: String, Codable {
        /// A linked device advertises it and an app here takes it.
        case offeredToApp
        /// A linked device advertises it, no app here takes it, its web page opens in the browser.
        case offeredToBrowser
        /// Apps here declare the type for another team only.
        case differentTeam
        /// No app here declares the type, and it has no web page.
        case noAppDeclaresType
        /// An app on this device holds it, and this device advertises it.
        case advertisedHere
        /// An app on this device holds it but it is not current.
        case notCurrentHere
        /// An app on this device holds it as current, but the app is not active.
        case appInactiveHere
        /// An app on this device holds it with `isEligibleForHandoff` false.
        case notEligibleHere
        /// An app on this device holds it, past its expiration date.
        case expiredHere
        /// An app on this device held it, and it was invalidated.
        case invalidatedHere
        /// No linked device advertises it and no app here holds it.
        case notAdvertised
        /// The device is linked.
        case deviceLinked
        /// The group's list revokes the device: this device cut its link, or refused it.
        case deviceRevoked
        /// The device is in the group's list but not linked now.
        case deviceNotLinked
        /// No device of that name in the group's list this device holds (unknown, or revoked and
        /// named no more).
        case deviceUnknown
    }

    /// The answer about `subject` in `inspection`: a device's name first, then an activity type
    /// advertised by a linked device, then one an app here holds.
    static func answer(for subject: String, in inspection: AgentInspection) -> WhyAnswer {
        let name = shown(subject)
        let links = inspection.device.links
        let linkFacts = links.isEmpty ? ["no device is linked"] : links.map { "linked: \(shown($0.device)) at \(shown($0.address))" }
        if let link = links.first(where: { $0.device == subject }) {
            let offers = inspection.nearby.filter { $0.activity.device == subject }
            let advertises = offers.isEmpty ? "advertises nothing now" : "advertises " + offers.map { shown($0.activity.activityType) }.joined(separator: ", ")
            return WhyAnswer(subject: subject, reason: .deviceLinked,
                             sentence: "\(name) is linked (at \(shown(link.address)) since \(InspectionText.timestamp(link.since))) and \(advertises).",
                             facts: offers.map(\.explanation))
        }
        if inspection.revokedDevices.contains(subject) {
            return WhyAnswer(subject: subject, reason: .deviceRevoked,
                             sentence: "\(name) has been revoked: the group's signed list revokes it, and this device refuses it (and cut its link, if it had one).",
                             facts: ["revoked here: \(inspection.revokedDevices.map(shown).joined(separator: ", "))"] + linkFacts)
        }
        if inspection.groupDevices.contains(subject) {
            let failures = inspection.device.recentFailures.filter { $0.text.contains(subject) }.map { "failure: \(shown($0.text))" }
            return WhyAnswer(subject: subject, reason: .deviceNotLinked,
                             sentence: "\(name) is in the group but not linked now: nothing it advertises reaches this device.",
                             facts: ["discovery: \(shown(inspection.device.discovery.explanation))"] + failures + linkFacts)
        }
        let offers = inspection.nearby.filter { $0.activity.activityType == subject }
        if let offer = offers.first {
            let reason: Reason = switch offer.offer {
            case .app: .offeredToApp
            case .browser: .offeredToBrowser
            case .differentTeam: .differentTeam
            case .noAppDeclaresType: .noAppDeclaresType
            }
            return WhyAnswer(subject: subject, reason: reason, sentence: offer.explanation,
                             facts: offers.map { "advertised by \(shown($0.activity.device)) from \(shown($0.activity.appID)), team \(shown($0.activity.teamIdentifier))" })
        }
        for app in inspection.apps {
            guard let inspected = app.inspection else { continue }
            let held = [inspected.currentActivity].compactMap { $0 } + inspected.otherActivities
            guard let activity = held.first(where: { $0.activityType == subject }) else { continue }
            let reason: Reason = switch activity.advertising {
            case .advertised: .advertisedHere
            case .notCurrent: .notCurrentHere
            case .appInactive: .appInactiveHere
            case .notEligibleForHandoff: .notEligibleHere
            case .expired: .expiredHere
            case .invalidated: .invalidatedHere
            }
            let device = shown(inspection.device.device)
            let sentence = activity.advertising == .advertised
                ? "\(name) is held by \(shown(app.appID)) on this device (\(device)) and advertised to the other devices."
                : "\(name) is held by \(shown(app.appID)) on this device (\(device)) but not advertised: \(activity.advertising.explanation)."
            return WhyAnswer(subject: subject, reason: reason, sentence: sentence,
                             facts: ["held by: \(activity.holders.map(shown).joined(separator: ", "))"] + linkFacts)
        }
        // Activity types are reverse-DNS names; a name without a dot is taken as a device's.
        guard subject.contains(".") else {
            return WhyAnswer(subject: subject, reason: .deviceUnknown,
                             sentence: "No device called \(name) is in the group's list this device holds (unknown here, or revoked).",
                             facts: linkFacts + inspection.groupDevices.map { "in the group: \(shown($0))" })
        }
        let silent = inspection.apps.filter(\.didNotAnswer).map { "\(shown($0.appID)) did not answer" }
        return WhyAnswer(subject: subject, reason: .notAdvertised,
                         sentence: "No linked device advertises \(name) now, and no app here holds it.",
                         facts: linkFacts + inspection.nearby.map { "\(shown($0.activity.device)) advertises \(shown($0.activity.activityType))" } + silent)
    }
}
