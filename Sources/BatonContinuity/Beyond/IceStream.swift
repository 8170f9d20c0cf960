import CGLib

/// The connected stream of an `IceSession`: libnice's reliable (pseudo-TCP) `GIOStream` over
/// the selected candidate pair, which a device link runs over as over a TCP connection
/// (`SecureChannel.open(over:role:identity:credential:)`, whose TLS connection then holds it).
///
/// It holds the agent that made it: the stream holds its agent only weakly (and the agent holds
/// the stream), and the agent's end closes the stream. libnice handles the component's packets
/// only while the stream is read, so a link over it keeps a read pending (GDBus does).
public final class IceStream: @unchecked Sendable {
    /// The path of the pair the stream runs on when it was handed over.
    public let path: IcePath
    /// The `GIOStream *`, one reference owned.
    let stream: UnsafeMutablePointer<GIOStream>
    /// The `NiceAgent *`, one reference owned.
    private let agent: OpaquePointer

    init(stream: UnsafeMutablePointer<GIOStream>, agent: OpaquePointer, path: IcePath) {
        self.stream = g_object_ref(stream).assumingMemoryBound(to: GIOStream.self)
        self.agent = OpaquePointer(g_object_ref(UnsafeMutableRawPointer(agent)))
        self.path = path
    }

    deinit {
        g_object_unref(stream)
        g_object_unref(UnsafeMutableRawPointer(agent))
    }

    /// Makes `object` (the TLS connection over this stream) hold this stream and so its agent,
    /// until it is finalised.
    func keepAlive(with object: UnsafeMutableRawPointer) {
        g_object_set_data_full(gCast(object.assumingMemoryBound(to: GObject.self)), "baton-ice-stream",
                               Unmanaged.passRetained(self).toOpaque(), releaseIceStream)
    }
}

/// The `GDestroyNotify` of `IceStream.keepAlive(with:)`.
private let releaseIceStream: GDestroyNotify = { pointer in
    if let pointer { Unmanaged<IceStream>.fromOpaque(pointer).release() }
}
