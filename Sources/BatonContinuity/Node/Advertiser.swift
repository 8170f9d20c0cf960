import Baton
import Foundation

/// What this device advertises to its peers: the provider's activity, metadata only, with a
/// sequence number, sent to every linked device when it changes (`CurrentChanged`).
@MainActor
final class Advertiser {
    /// The activity advertised now, as sent to the peers.
    private(set) var advertised: NearbyActivity?
    /// The activity advertised now, as the provider gave it.
    private(set) var provided: ProvidedActivity?
    private var sequence: UInt64 = 0
    /// The generation of the activity advertised last (`ProvidedActivity.generation`).
    private var generation: UInt64?
    private let provider: any ActivityProvider
    private let trust: TrustSync
    private let links: LinkTable

    init(provider: any ActivityProvider, trust: TrustSync, links: LinkTable) {
        self.provider = provider
        self.trust = trust
        self.links = links
    }

    /// The provider's activity, if it is the one advertised with `sequence`.
    func provided(sequence: UInt64) -> ProvidedActivity? {
        advertised?.sequence == sequence ? provided : nil
    }

    /// Offers the provider's activity (metadata only) to every peer, if it changed. A new
    /// activity object (a new generation) gets a new sequence number; a save that changes its
    /// title keeps it.
    func readvertise() {
        var now: NearbyActivity?
        let offered = provider.advertisement()
        if let activity = offered {
            if activity.generation != generation {
                sequence += 1
                generation = activity.generation
            }
            now = NearbyActivity(device: trust.identity.name, sequence: sequence, activityType: activity.activityType,
                                 title: activity.title.map(DeviceInterface.clipped), appID: activity.appID,
                                 teamIdentifier: activity.teamIdentifier,
                                 webpageURL: activity.webpageURL)
        }
        provided = offered
        guard now != advertised else { return }
        advertised = now
        let metadata = DeviceInterface.metadata(now)
        for link in links.all { link.bus.emitCurrentChanged(metadata) }
    }
}
