import BatonLoop
import CGLib
import Foundation
import Logging

/// D-Bus peer-to-peer over a `SecureChannel`: GLib's message framing, method calls, replies
/// and GVariant marshalling between two devices, with no bus daemon.
///
/// D-Bus authentication is ANONYMOUS — the only mechanism the serving side allows — because
/// the peer has already proved who it is in the mutual TLS handshake underneath.
///
/// An incoming message whose body is larger than `maximumMessageBody` is dropped and the link
/// closed, far below GDBus's own limit of 128 MiB.
public final class PeerBus: @unchecked Sendable {
    /// The largest message body taken from a peer: a payload at its limit (64 KiB) with room to
    /// spare for the rest of the protocol.
    public static let maximumMessageBody = 256 * 1024

    let connection: OpaquePointer  // GDBusConnection *
    /// The channel, kept alive as long as the bus runs on it.
    public let channel: SecureChannel
    /// Signal subscriptions, ended (and their boxes released) with the bus.
    var subscriptions: [guint] = []

    private init(connection: OpaquePointer, channel: SecureChannel) {
        self.connection = connection
        self.channel = channel
    }

    deinit {
        for id in subscriptions { g_dbus_connection_signal_unsubscribe(connection, id) }
        g_dbus_connection_close_sync(connection, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    /// Lets incoming messages through (they wait from `open` until this is called).
    public func startMessageProcessing() { g_dbus_connection_start_message_processing(connection) }

    /// Closes the link after sending what is queued; the peer sees it closed.
    @MainActor
    public func close() {
        g_dbus_connection_flush_sync(connection, nil, nil)
        // Even with no callback, GIO completes the close from an idle source on the
        // thread-default context, holding the connection until then: the app's loop.
        MainLoop.withThreadDefaultContext { g_dbus_connection_close(connection, nil, nil, nil) }
    }

    /// Starts D-Bus on `channel`; the side that accepted the TLS connection serves the
    /// authentication. Both sides must call it. Incoming messages wait until
    /// `startMessageProcessing()`, so a device exports its object before any call reaches it.
    /// The connection is made on the app's loop, so its `closed` signal comes through it.
    @MainActor
    public static func open(over channel: SecureChannel) async throws(TransportError) -> PeerBus {
        channel.handToBus()
        let stream = SendablePointer(channel.stream)
        let isServer = channel.isServer
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
            return PeerBus(connection: connection.pointer, channel: channel)
        } catch {
            throw .handshakeFailed(GLibError(error))
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
