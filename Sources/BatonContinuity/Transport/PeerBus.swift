import BatonLoop
import CBatonStreams
import CGLib
import Foundation
import Logging

/// D-Bus peer-to-peer over a `SecureChannel`: GLib's message framing, method calls, replies
/// and GVariant marshalling between two devices, with no bus daemon.
///
/// D-Bus authentication is ANONYMOUS — the only mechanism the serving side allows — because
/// the peer has already proved who it is in the mutual TLS handshake underneath.
///
/// An incoming message whose header announces a body larger than `maximumMessageBody` (or
/// header fields larger than `maximumHeaderFields`) closes the link as soon as its 16-byte
/// fixed header has arrived, before any of the body is read or buffered: GDBus reads through a
/// stream filter that follows the message framing (`baton_dbus_capped_stream_new`). GDBus's own
/// limit is 128 MiB.
public final class PeerBus: @unchecked Sendable {
    /// The largest message body taken from a peer: a payload at its limit (64 KiB) with room to
    /// spare for the rest of the protocol.
    public static let maximumMessageBody = 256 * 1024
    /// The largest header-fields array taken from a peer (path, interface, member, signature…).
    public static let maximumHeaderFields = 64 * 1024

    /// The `GDBusConnection *`, for code that exports or calls its own interfaces on the bus.
    public let connection: OpaquePointer
    /// The channel, kept alive as long as the bus runs on it (nil for a bus opened over a
    /// local stream: `open(over:serving:)`).
    public let channel: SecureChannel?
    /// Signal subscriptions, ended (and their boxes released) with the bus.
    var subscriptions: [guint] = []

    /// The socket under a bus opened over a local socket connection, shut down by `close()`
    /// so the other side sees the end at once (a reference held until `deinit`).
    private var localSocket: OpaquePointer?

    private init(connection: OpaquePointer, channel: SecureChannel?) {
        self.connection = connection
        self.channel = channel
    }

    deinit {
        for id in subscriptions { g_dbus_connection_signal_unsubscribe(connection, id) }
        if let localSocket { g_object_unref(UnsafeMutableRawPointer(localSocket)) }
        // Asynchronous: the connection lives on (GDBus holds it) until its stream is closed,
        // completed from the thread-default context — on the main thread, the app's loop
        // (`MainLoop.embed(in:)` makes the host's context the main thread's default).
        g_dbus_connection_close(connection, nil, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    /// Lets incoming messages through (they wait from `open` until this is called).
    public func startMessageProcessing() { g_dbus_connection_start_message_processing(connection) }

    /// Closes the link; the peer sees it closed. It returns at once and never waits on the
    /// peer: GDBus closes the stream on its worker thread (`g_dbus_connection_close`, no
    /// flush), so a peer that stopped reading cannot freeze the app. Messages still queued for
    /// the peer may be lost, as they would be if it had vanished.
    @MainActor
    public func close() {
        if let refusal = baton_dbus_capped_stream_refusal(g_dbus_connection_get_stream(connection)), !refusalLogged {
            refusalLogged = true
            Logger(label: "baton.transport").warning("\(String(cString: refusal)) (limit \(Self.maximumMessageBody)): closing the link")
        }
        // Even with no callback, GIO completes the close from an idle source on the
        // thread-default context, holding the connection until then: the app's loop.
        MainLoop.withThreadDefaultContext { g_dbus_connection_close(connection, nil, nil, nil) }
        if let localSocket { g_socket_shutdown(UnsafeMutablePointer(localSocket), 1, 1, nil) }
    }

    private var refusalLogged = false

    /// Starts D-Bus on `channel`; the side that accepted the TLS connection serves the
    /// authentication. Both sides must call it. Incoming messages wait until
    /// `startMessageProcessing()`, so a device exports its object before any call reaches it.
    /// The connection is made on the app's loop, so its `closed` signal comes through it.
    @MainActor
    public static func open(over channel: SecureChannel) async throws(TransportError) -> PeerBus {
        // The serving side waits for the peer's first authentication bytes on the loop, so a
        // peer that never starts D-Bus holds no GDBus worker thread (see `Readiness`).
        if channel.isServer { await Readiness.stream(g_io_stream_get_input_stream(channel.stream)) }
        channel.handToBus()
        do {
            let connection = try await connect(over: channel.stream, isServer: channel.isServer)
            let bus = PeerBus(connection: connection, channel: channel)
            // The listener's deadline and this completion both run on the loop, one after the
            // other: if the deadline came first (D-Bus finished in the worker just as it
            // passed), the socket is already shut down and the link is refused here; otherwise
            // `authenticated()` ends the deadline for good. Never both.
            guard channel.isWithinDeadline else {
                bus.close()
                throw TransportError.handshakeFailed(GLibError(domain: "baton", code: 0, message: "D-Bus set up only after the deadline"))
            }
            channel.authenticated()
            return bus
        } catch let error as TransportError {
            throw error
        } catch {
            throw .handshakeFailed(GLibError(error))
        }
    }

    /// Starts D-Bus peer-to-peer over `connection`, a connected `GSocketConnection *` (such as
    /// a Unix socket connection whose peer the caller has already checked), with the same
    /// message caps and ANONYMOUS authentication as a link: the side that `serving` runs the
    /// authentication. Incoming messages wait until `startMessageProcessing()`. The caller
    /// bounds the time this takes (shut the socket down to end it).
    ///
    /// GDBus writes through the socket itself when the output stream is a socket's, which it
    /// can only do for a stream that is a socket connection (not the capped stream around it):
    /// so the bus writes through a `GUnixOutputStream` on a duplicate of the socket's
    /// descriptor, and reads through the socket's input stream and the caps.
    @MainActor
    public static func open(overSocketConnection connection: OpaquePointer, serving: Bool) async throws(TransportError) -> PeerBus {
        let socket = g_socket_connection_get_socket(UnsafeMutablePointer(connection))
        let fd = dup(g_socket_get_fd(socket))
        guard fd >= 0 else {
            throw .handshakeFailed(GLibError(domain: "baton", code: errno, message: "cannot duplicate the socket: \(String(cString: strerror(errno)))"))
        }
        let base = UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GIOStream.self)
        let output = g_unix_output_stream_new(fd, 1)!
        defer { g_object_unref(output) }
        let stream = g_simple_io_stream_new(g_io_stream_get_input_stream(base), output)!
        defer { g_object_unref(stream) }
        // The connection lives as long as the stream (its dispose would close the socket).
        g_object_set_data_full(UnsafeMutablePointer(OpaquePointer(stream)), "baton-socket-connection",
                               g_object_ref(UnsafeMutableRawPointer(connection)), g_object_unref)
        do {
            let bus = PeerBus(connection: try await connect(over: stream, isServer: serving), channel: nil)
            bus.localSocket = OpaquePointer(socket)
            g_object_ref(socket)
            return bus
        } catch let error as TransportError {
            throw error
        } catch {
            throw .handshakeFailed(GLibError(error))
        }
    }

    /// A D-Bus connection over `raw`, read through the size-capping filter, with the message
    /// filter installed; message processing waits.
    @MainActor
    private static func connect(over raw: UnsafeMutablePointer<GIOStream>, isServer: Bool) async throws -> OpaquePointer {
        let capped = baton_dbus_capped_stream_new(raw, maximumMessageBody, maximumHeaderFields)!
            .assumingMemoryBound(to: GIOStream.self)
        let stream = SendablePointer(capped)
        defer { g_object_unref(capped) }  // GDBus takes its own reference
        do {
            let connection = try await GIOAsync.call { cancellable, callback, userData in
                if isServer {
                    let guid = g_dbus_generate_guid()
                    defer { g_free(guid) }
                    let observer = g_dbus_auth_observer_new()
                    defer { g_object_unref(UnsafeMutableRawPointer(observer)) }
                    g_signal_connect_data(UnsafeMutableRawPointer(observer), "allow-mechanism", unsafeBitCast(allowOnlyAnonymous, to: GCallback.self),
                                          nil, nil, GConnectFlags(0))
                    let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_SERVER.rawValue
                        | G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_ALLOW_ANONYMOUS.rawValue
                        | G_DBUS_CONNECTION_FLAGS_DELAY_MESSAGE_PROCESSING.rawValue)
                    g_dbus_connection_new(stream.pointer, guid, flags, observer, cancellable, callback, userData)
                } else {
                    let flags = GDBusConnectionFlags(rawValue: G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT.rawValue
                        | G_DBUS_CONNECTION_FLAGS_DELAY_MESSAGE_PROCESSING.rawValue)
                    g_dbus_connection_new(stream.pointer, nil, flags, nil, cancellable, callback, userData)
                }
            } finish: { result, error in
                g_dbus_connection_new_finish(result, error).map(SendableOpaque.init)
            }
            // Before message processing starts, so the filter sees every incoming message.
            g_dbus_connection_add_filter(connection.pointer, capIncomingMessages, nil, nil)
            return connection.pointer
        }
    }

    /// `org.freedesktop.DBus.Peer.Ping`, which GDBus answers on every peer connection: one
    /// round trip over the authenticated link.
    @MainActor
    public func ping(timeout: Duration = .seconds(10)) async throws(TransportError) {
        let connection = SendableOpaque(self.connection)
        do {
            _ = try await GIOAsync.call { cancellable, callback, userData in
                g_dbus_connection_call(connection.pointer, nil, "/", "org.freedesktop.DBus.Peer", "Ping", nil, nil,
                                       G_DBUS_CALL_FLAGS_NONE, gint(timeout.components.seconds * 1000), cancellable,
                                       callback, userData)
            } finish: { result, error in
                g_dbus_connection_call_finish(connection.pointer, result, error).map { reply in
                    g_variant_unref(reply)
                    return true
                }
            }
        } catch {
            throw .connectionFailed(GLibError(error))
        }
    }
}

/// An opaque GLib pointer that may cross into a `@Sendable` closure.
struct SendableOpaque: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

/// A `GDBusMessageFilterFunction`, run on GDBus's worker thread for each message: an incoming
/// one with an oversized body is dropped and the connection closed.
private let capIncomingMessages: @convention(c) (OpaquePointer?, OpaquePointer?, gboolean, UnsafeMutableRawPointer?) -> OpaquePointer? = {
    connection, message, incoming, _ in
    guard incoming != 0, let message, let body = g_dbus_message_get_body(message) else { return message }
    let size = Int(g_variant_get_size(body))
    guard size > PeerBus.maximumMessageBody else { return message }
    Logger(label: "baton.transport").warning("a peer sent a D-Bus message of \(size) bytes (limit \(PeerBus.maximumMessageBody)): closing the link")
    g_object_unref(UnsafeMutableRawPointer(message))
    g_dbus_connection_close(connection, nil, nil, nil)
    return nil
}

/// `gboolean allow-mechanism(GDBusAuthObserver *, const gchar *mechanism, gpointer)`.
private let allowOnlyAnonymous: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> gboolean = {
    _, mechanism, _ in
    guard let mechanism else { return 0 }
    return strcmp(mechanism, "ANONYMOUS") == 0 ? 1 : 0
}
