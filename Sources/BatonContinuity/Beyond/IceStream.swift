import BatonLoop
import CBatonStreams
import CGLib
import CNice
import Foundation

/// The connected stream of an `IceSession`: libnice's reliable (pseudo-TCP) `GIOStream` over
/// the selected candidate pair, which a device link runs over as over a TCP connection
/// (`SecureChannel.open(over:role:identity:credential:)`, whose TLS connection then holds it).
///
/// It holds the agent that made it: the stream holds its agent only weakly (and the agent holds
/// the stream), and the agent's end closes the stream. libnice handles the component's packets
/// only while the stream is read: until its first read (or its first source) the stream reads
/// itself, keeping what comes (at most 64 KiB) for its reader, and a link over it keeps a read
/// pending: the D-Bus engine
/// (`DBusConnection`) watches the TLS stream's pollable input, whose source polls the
/// component's sockets, and each wake-up's nonblocking read lets libnice handle what came (its
/// checks, pseudo-TCP's acknowledgements) even when it carries no byte of the link. A link whose
/// reading is paused goes on reading it, holding what comes untaken up to
/// `DBusConnection.maximumPausedInput`, so it still sends and its peer's sends still complete.
///
/// Closing the stream (`shutDown()`) shuts pseudo-TCP down both ways: its FIN tells the peer,
/// whose reads reach their end, as a TCP connection's shutdown does. A peer that vanishes sends
/// no FIN: the agent's keepalives are binding requests, and one left unanswered (while nothing
/// else came) fails the component, which shuts the stream down here too — so a link over it
/// ends in bounded time (libnice's keepalive interval and its STUN timer's retransmissions).
public final class IceStream: @unchecked Sendable {
    /// The path of the pair the stream runs on when it was handed over.
    public let path: IcePath
    /// The address of the remote candidate of the selected pair (a relay's on a relayed path),
    /// if known.
    public let remoteHost: String?
    /// The `GIOStream *` a link runs over, one reference owned: libnice's output, and its input
    /// through the pump that reads it until the first reader comes.
    let stream: UnsafeMutablePointer<GIOStream>
    /// libnice's own `GIOStream *` under `stream`, one reference owned: libnice closes it when
    /// the agent's stream is removed.
    private let niceStream: UnsafeMutablePointer<GIOStream>
    /// The `NiceAgent *`, one reference owned.
    private let agent: OpaquePointer
    /// The agent's stream the component belongs to.
    private let streamID: guint
    /// Cancelled when the stream ends (`shutDown()`, or its path failed): what waits on it (the
    /// link's reads, through `DBusConnection`) ends then. One reference owned.
    let ended: UnsafeMutablePointer<GCancellable> = g_cancellable_new()
    /// The agent's `component-state-changed` handler (its box released when it is disconnected),
    /// 0 once disconnected; under `handlerLock` (the channel over the stream may go on any thread).
    private var stateHandler: gulong = 0
    private let handlerLock = NSLock()

    init(stream: UnsafeMutablePointer<GIOStream>, niceStream: UnsafeMutablePointer<GIOStream>, agent: OpaquePointer, streamID: guint,
         path: IcePath, remoteHost: String?) {
        self.stream = g_object_ref(stream).assumingMemoryBound(to: GIOStream.self)
        self.niceStream = g_object_ref(niceStream).assumingMemoryBound(to: GIOStream.self)
        self.agent = OpaquePointer(g_object_ref(UnsafeMutableRawPointer(agent)))
        self.streamID = streamID
        self.path = path
        self.remoteHost = remoteHost
        let watch = IceStreamWatch()
        watch.stream = self
        stateHandler = g_signal_connect_data(UnsafeMutableRawPointer(agent), "component-state-changed",
                                             unsafeBitCast(streamStateChanged, to: GCallback.self), watch.retainedOpaque(),
                                             CallbackBox.closureNotify, GConnectFlags(0))
    }

    /// How many of the peer's bytes the stream read by itself and keeps for its first reader.
    var earlyBytesHeld: Int { baton_pumped_input_stream_held(g_io_stream_get_input_stream(stream)) }

    /// Whether the stream still reads itself (no reader came yet).
    var readsItself: Bool { baton_pumped_input_stream_is_pumping(g_io_stream_get_input_stream(stream)) != 0 }

    /// Whether the stream has ended: closed (here, or because its agent's stream was removed),
    /// or its path failed (libnice's component state).
    var hasEnded: Bool {
        g_io_stream_is_closed(stream) != 0 || g_io_stream_is_closed(niceStream) != 0
            || g_input_stream_is_closed(g_io_stream_get_input_stream(niceStream)) != 0
            || nice_agent_get_component_state(agent, streamID, 1) == NICE_COMPONENT_STATE_FAILED
    }

    /// Closes the stream, at once and without waiting on the peer: pseudo-TCP is shut down both
    /// ways (its FIN goes after what is queued) and every read and write on it ends. More than
    /// once is harmless.
    func shutDown() {
        if g_io_stream_is_closed(stream) == 0 { g_io_stream_close(stream, nil, nil) }
        if g_io_stream_is_closed(niceStream) == 0 { g_io_stream_close(niceStream, nil, nil) }
        g_cancellable_cancel(ended)
    }

    /// Stops following the path's state (its handler disconnected, its box released now): the
    /// channel over the stream is gone, so nothing reads it any more. More than once is harmless.
    func stopWatching() {
        handlerLock.lock()
        let handler = stateHandler
        stateHandler = 0
        handlerLock.unlock()
        if handler != 0 { g_signal_handler_disconnect(UnsafeMutableRawPointer(agent), handler) }
    }

    /// The agent says a component's state changed: this one's path failed, so the stream ends.
    fileprivate func stateChanged(stream id: guint, component: guint, state: guint) {
        guard id == streamID, component == 1, state == NICE_COMPONENT_STATE_FAILED.rawValue else { return }
        shutDown()
    }

    deinit {
        stopWatching()
        g_object_unref(ended)
        g_object_unref(stream)
        g_object_unref(niceStream)
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

/// The box of an `IceStream`'s state handler: the stream, weakly.
private final class IceStreamWatch: CallbackBox, @unchecked Sendable {
    weak var stream: IceStream?
}

/// `void component-state-changed(NiceAgent *, guint stream_id, guint component_id, guint state, gpointer)`.
private let streamStateChanged: @convention(c) (OpaquePointer?, guint, guint, guint, UnsafeMutableRawPointer?) -> Void = {
    _, stream, component, state, data in
    guard let data else { return }
    IceStreamWatch.borrow(data).stream?.stateChanged(stream: stream, component: component, state: state)
}
