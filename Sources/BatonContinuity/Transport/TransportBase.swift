import CGLib

/// What lies under the stream of a `DBusConnection`, and so what its `close()` and
/// `abortTransport()` end so that the peer sees the end at once and a wait on the stream ends
/// now: the TCP socket under a TLS connection (shut down both ways), or a connected stream
/// that is no socket (an ICE stream, `IceStream`: closed, which shuts libnice's pseudo-TCP
/// down both ways, its FIN telling the peer).
package enum TransportBase {
    /// A `GSocket *` (the connection takes a reference).
    case socket(UnsafeMutablePointer<GSocket>)
    /// A `GIOStream *` that is no socket connection, and the `GCancellable *` cancelled when it
    /// ends, here or by its own failure (the connection takes a reference to each and cancels
    /// it when it ends the stream).
    case stream(UnsafeMutablePointer<GIOStream>, ended: UnsafeMutablePointer<GCancellable>)

    /// What a wait on the stream watches to end when the transport does: the stream's own
    /// (a reference the caller owns), or a new one.
    func endedCancellable() -> UnsafeMutablePointer<GCancellable> {
        if case .stream(_, let ended) = self { return g_object_ref(ended).assumingMemoryBound(to: GCancellable.self) }
        return g_cancellable_new()
    }

    /// Whether it is a socket (whose stream's readability may be asked outright: libnice's
    /// stream, asked so, passes its relayed socket's missing `GSocket` to
    /// `g_socket_condition_check`, which logs a critical).
    var isSocket: Bool {
        if case .socket = self { return true }
        return false
    }

    /// Whether the peer's packets are handled only while the stream is read: an ICE stream,
    /// whose libnice agent takes the path's packets off its sockets (pseudo-TCP's
    /// acknowledgements of what this side sends among them) only for a reader. A connection
    /// whose reading is paused over it keeps reading, into a bounded buffer it does not take
    /// messages from (`DBusConnection.maximumPausedInput`), so the link still moves both ways.
    var isHandledOnlyWhileRead: Bool { !isSocket }

    /// Takes a reference to the object.
    func retained() -> TransportBase {
        switch self {
        case .socket(let socket): g_object_ref(socket)
        case .stream(let stream, let ended):
            g_object_ref(stream)
            g_object_ref(ended)
        }
        return self
    }

    /// Gives back the reference `retained()` took.
    func release() {
        switch self {
        case .socket(let socket): g_object_unref(socket)
        case .stream(let stream, let ended):
            g_object_unref(stream)
            g_object_unref(ended)
        }
    }

    /// Ends the transport: the socket shut down both ways, or the stream closed (a stream's
    /// close here never waits on the peer: libnice's pseudo-TCP close only queues its FIN).
    func end() {
        switch self {
        case .socket(let socket): g_socket_shutdown(socket, 1, 1, nil)
        case .stream(let stream, _): if g_io_stream_is_closed(stream) == 0 { g_io_stream_close(stream, nil, nil) }
        }
    }
}
