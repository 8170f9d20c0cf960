import Baton
import Foundation

/// What this device and its apps look like inside, as the agent answers `Inspect`
/// (`baton inspect`, `baton why`; its JSON is documented in docs/INSPECT.md).
///
/// Strings that came from other devices or from apps are kept as they came: escape them
/// (`PrintableText.escaped`) before printing them to a terminal.
public struct AgentInspection: Codable, Sendable, Equatable {
    /// The device: where it listens, discovery, links (name, address, since, path, round trip,
    /// stream bytes dropped), joined apps and the latest failures (`AgentStatus`, as
    /// `baton status` shows it).
    public var device: AgentStatus
    /// The names of the other devices in the group's signed list this device holds (linked or
    /// not), sorted.
    public var groupDevices: [String]
    /// What each linked device advertises, and where it would go here.
    public var nearby: [NearbyInspection]
    /// The joined apps, each with its inspection or why there is none.
    public var apps: [AppReport]
    /// The continuations the agent routed, live and the last `ContinuationHistory.capacity`,
    /// oldest first (`Agent.continuationHistory`); each app's own are in its inspection.
    public var continuations: [ContinuationRecord]
    /// The devices this device knows the group's signed list revokes: it cut their links
    /// (`unlinked` with reason `revoked`) or refused their connections (`refused` with reason
    /// `revoked`, named from the list) since the agent started — so one revoked before it ever
    /// linked here reads as revoked, not as not linked. At most 32, newest last.
    public var revokedDevices: [String]

    /// An inspection with these parts.
    public init(device: AgentStatus, groupDevices: [String], nearby: [NearbyInspection], apps: [AppReport],
                continuations: [ContinuationRecord] = [], revokedDevices: [String] = []) {
        self.device = device
        self.groupDevices = groupDevices
        self.nearby = nearby
        self.apps = apps
        self.continuations = continuations
        self.revokedDevices = revokedDevices
    }

    private enum CodingKeys: String, CodingKey { case device, groupDevices, nearby, apps, continuations, revokedDevices }

    /// Reads an inspection; one without `continuations` or `revokedDevices` (an agent of
    /// interface 5) has none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        device = try c.decode(AgentStatus.self, forKey: .device)
        groupDevices = try c.decode([String].self, forKey: .groupDevices)
        nearby = try c.decode([NearbyInspection].self, forKey: .nearby)
        apps = try c.decode([AppReport].self, forKey: .apps)
        continuations = try c.decodeIfPresent([ContinuationRecord].self, forKey: .continuations) ?? []
        revokedDevices = try c.decodeIfPresent([String].self, forKey: .revokedDevices) ?? []
    }

    /// An activity a linked device advertises, and what continuing it here would do. Its JSON
    /// has the activity's fields (`NearbyActivity`'s) beside `offer` and `explanation`.
    public struct NearbyInspection: Codable, Sendable, Equatable {
        /// The activity, as the linked device advertises it.
        public var activity: NearbyActivity
        /// Where it goes if continued here, or why nowhere (`Agent.offer(for:)`).
        public var offer: ActivityOffer
        /// `offer` in one sentence (escaped).
        public var explanation: String

        /// `activity` with the offer decided for it.
        public init(_ activity: NearbyActivity, offer: ActivityOffer) {
            self.activity = activity
            self.offer = offer
            explanation = offer.sentence(activityType: activity.activityType, team: activity.teamIdentifier)
        }

        private enum CodingKeys: String, CodingKey { case offer, explanation }

        /// Reads the activity's fields and the offer beside them.
        public init(from decoder: any Decoder) throws {
            activity = try NearbyActivity(from: decoder)
            let container = try decoder.container(keyedBy: CodingKeys.self)
            offer = try container.decode(ActivityOffer.self, forKey: .offer)
            explanation = try container.decode(String.self, forKey: .explanation)
        }

        /// Writes the activity's fields and the offer beside them, in one object.
        public func encode(to encoder: any Encoder) throws {
            try activity.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(offer, forKey: .offer)
            try container.encode(explanation, forKey: .explanation)
        }
    }

    /// One joined app: what the agent knows of it, and what it said of itself.
    public struct AppReport: Codable, Sendable, Equatable {
        /// Its id, as it joined.
        public var appID: String
        /// Its process id.
        public var processID: Int32
        /// Whether the device advertises this app's activity now (the joined app active last).
        public var isAdvertised: Bool
        /// The type of the activity it advertises to the agent, if any.
        public var advertisedActivityType: String?
        /// The app's own inspection, when it answered.
        public var inspection: ApplicationInspection?
        /// True when the app did not answer within the agent's deadline (busy or stuck).
        public var didNotAnswer: Bool
        /// Why there is no inspection, in words, when there is none.
        public var problem: String?

        /// A report with these facts.
        public init(appID: String, processID: Int32, isAdvertised: Bool, advertisedActivityType: String?,
                    inspection: ApplicationInspection?, didNotAnswer: Bool, problem: String?) {
            self.appID = appID
            self.processID = processID
            self.isAdvertised = isAdvertised
            self.advertisedActivityType = advertisedActivityType
            self.inspection = inspection
            self.didNotAnswer = didNotAnswer
            self.problem = problem
        }
    }
}
