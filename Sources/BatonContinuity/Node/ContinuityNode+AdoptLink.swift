/// A link made outside the node's own dialer and listener, for the benchmarks (not part of the API).
extension ContinuityNode {
    /// Makes a link of `channel` (accepted or dialed elsewhere, e.g. by
    /// `SecureChannel.open(over:role:identity:credential:)` over an ICE stream) over `path`,
    /// exactly as the relay connector does: D-Bus over it, the device's object served, the
    /// peer's list and activity asked for. Returns once the first answers are in (or the link
    /// failed); false if D-Bus could not be set up over the channel.
    @_spi(Testing)
    @discardableResult
    public func adoptLink(_ channel: SecureChannel, path: LinkPath) async -> Bool {
        await links.adopt(channel, dialed: nil, path: path)
    }
}
