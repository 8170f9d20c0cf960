import Foundation

/// One linked device as `ContinuityNode.linkStatus` reports it (and `baton status` and
/// `baton inspect` show it). Its JSON has the property names as keys; one written before a
/// property existed reads as that property's default.
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
    /// (`baton status` and `baton inspect` measure it, `ContinuityNode.roundTrips()`); nil when
    /// it was not, or the device did not answer within `ContinuityNode.roundTripDeadline`.
    public var roundTripMilliseconds: Double?
    /// How the link reaches the device: the local network (the default), directly across
    /// NATs, or through a relay.
    public var path: LinkPath
    /// Bytes the device sent on continuation streams already closed or refused, dropped
    /// unread (`LinkStreams.droppedBytes`; past their allowance the link is closed).
    public var droppedStreamBytes: Int

    /// A link's status with these values.
    public init(device: String, address: String, since: Date, dialedByThisDevice: Bool, roundTripMilliseconds: Double? = nil,
                path: LinkPath = .lan, droppedStreamBytes: Int = 0) {
        self.device = device
        self.address = address
        self.since = since
        self.dialedByThisDevice = dialedByThisDevice
        self.roundTripMilliseconds = roundTripMilliseconds
        self.path = path
        self.droppedStreamBytes = droppedStreamBytes
    }

    private enum CodingKeys: String, CodingKey { case device, address, since, dialedByThisDevice, roundTripMilliseconds, path, droppedStreamBytes }

    /// Reads a link's status; one without `path` or `droppedStreamBytes` (from an agent of
    /// interface 6 or older) reads as `.lan` and 0.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        device = try c.decode(String.self, forKey: .device)
        address = try c.decode(String.self, forKey: .address)
        since = try c.decode(Date.self, forKey: .since)
        dialedByThisDevice = try c.decode(Bool.self, forKey: .dialedByThisDevice)
        roundTripMilliseconds = try c.decodeIfPresent(Double.self, forKey: .roundTripMilliseconds)
        path = try c.decodeIfPresent(LinkPath.self, forKey: .path) ?? .lan
        droppedStreamBytes = try c.decodeIfPresent(Int.self, forKey: .droppedStreamBytes) ?? 0
    }

    /// The round-trip time in words: "0.42 ms", or "—" when it was not measured or the device
    /// did not answer in time.
    public var roundTripWords: String {
        roundTripMilliseconds.map { String(format: "%.2f ms", $0) } ?? "—"
    }
}
