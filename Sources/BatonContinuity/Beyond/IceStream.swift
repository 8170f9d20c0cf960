import CGLib

/// The connected stream of an `IceSession`: libnice's reliable (pseudo-TCP) `GIOStream` over
/// the selected candidate pair, which a device link runs over as over a TCP connection
/// (`SecureChannel.open(over:role:identity:credential:)`). It holds the agent that made it.
public final class IceStream: @unchecked Sendable {
    /// The path of the pair the stream runs on.
    public let path: IcePath
    /// The `GIOStream *`, one reference owned.
    let stream: UnsafeMutablePointer<GIOStream>

    init(stream: UnsafeMutablePointer<GIOStream>, path: IcePath) {
        self.stream = stream
        self.path = path
    }

    deinit { g_object_unref(stream) }
}
