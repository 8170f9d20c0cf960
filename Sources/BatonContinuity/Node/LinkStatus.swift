import Foundation

/// One linked device as `ContinuityNode.linkStatus` reports it (and `baton status` shows it).
public struct LinkStatus: Sendable, Equatable, Codable {
    /// The device's name in the group's signed list held (or a short form of its identifier).
    public var device: String
    /// The IP address the link runs over.
    public var address: String
    /// When the link came up.
    public var since: Date
    /// True when this device dialed the other; false when the other dialed in.
    public var dialedByThisDevice: Bool
    /// The round-trip time of one `Ping` over the link, in milliseconds, when it was measured
    /// (`baton inspect` measures it, `ContinuityNode.roundTrips()`); nil otherwise.
    public var roundTripMilliseconds: Double?

    /// A link's status with these values.
    public init(device: String, address: String, since: Date, dialedByThisDevice: Bool, roundTripMilliseconds: Double? = nil) {
        self.device = device
        self.address = address
        self.since = since
        self.dialedByThisDevice = dialedByThisDevice
        self.roundTripMilliseconds = roundTripMilliseconds
    }
}

/// The latest failures of a node (a device it could not reach, a connection it refused, a link
/// lost), newest last, at most `capacity`: older ones are forgotten, so a flood costs nothing.
public struct RecentFailures: Sendable, Equatable {
    /// How many are kept.
    public static let capacity = 10
    /// One failure: when, and what in words (remote text escaped).
    public struct Failure: Sendable, Equatable, Codable {
        /// When it happened.
        public var time: Date
        /// What happened.
        public var text: String
    }
    /// The failures kept, oldest first.
    public private(set) var failures: [Failure] = []

    /// None yet.
    public init() {}

    mutating func add(_ text: String) {
        if failures.count == Self.capacity { failures.removeFirst() }
        failures.append(Failure(time: Date(), text: PrintableText.escaped(text)))
    }
}
