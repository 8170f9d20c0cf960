import Foundation

/// An activity provider that offers nothing and takes nothing: a node with it only links,
/// answers its peers that it has no activity, and shows nothing of theirs. For the tests and
/// the benchmarks, where a node is a peer of the device measured (not part of the API).
@_spi(Testing)
@MainActor
public final class SilentActivityProvider: ActivityProvider {
    /// Never called: the advertisement never changes.
    public var advertisementDidChange: (@MainActor () -> Void)?

    /// A provider offering nothing.
    public init() {}

    /// Nothing is advertised.
    public func advertisement() -> ProvidedActivity? { nil }
    /// No payload: nothing is current.
    public func payload(of activity: ProvidedActivity) async throws(ProvidedActivityError) -> Data { throw .notCurrent }
    /// Nothing to do: nothing was offered.
    public func continued(_ activity: ProvidedActivity) async {}
    /// No streams are offered.
    public func canOpenStreams(for activity: ProvidedActivity) -> Bool { false }
    /// Never called (no streams are offered).
    public func acceptStreams(_ channel: any ContinuationStreamChannel, for activity: ProvidedActivity) {}
    /// The peers' activities are not shown.
    public func nearbyActivitiesDidChange(_ activities: [NearbyActivity]) {}
    /// Nothing to set up.
    public func nodeDidStart(_ node: ContinuityNode) {}
    /// Nothing to take down.
    public func nodeDidStop(_ node: ContinuityNode) {}
}
