import Baton

/// Publishes what comes and goes among the linked devices' activities
/// (`DiagnosticEvent.nearbyOffered`, `.nearbyWithdrawn`): each time the node hands the
/// provider its nearby list, the list is compared with the one handed before, by device and
/// activity type (an update of the same activity — its title, its payload — is no change).
@MainActor
final class NearbyChanges {
    private struct Shown: Hashable {
        let device: String
        let activityType: String
    }

    private let diagnostics: Diagnostics
    /// What the last list held.
    private var shown: [Shown] = []

    init(diagnostics: Diagnostics) { self.diagnostics = diagnostics }

    /// Publishes the activities `nearby` no longer holds, then those it holds newly.
    func update(_ nearby: [NearbyActivity]) {
        let now = nearby.map { Shown(device: $0.device, activityType: $0.activityType) }
        let current = Set(now), before = Set(shown)
        for gone in shown where !current.contains(gone) {
            diagnostics.publish(.nearbyWithdrawn(activityType: gone.activityType, device: gone.device))
        }
        for new in now where !before.contains(new) {
            diagnostics.publish(.nearbyOffered(activityType: new.activityType, device: new.device))
        }
        shown = now
    }
}
