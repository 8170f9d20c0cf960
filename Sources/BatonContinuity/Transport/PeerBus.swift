import BatonLoop
import CBatonStreams
import CGLib
import Foundation
import Logging

/// D-Bus peer-to-peer over a `SecureChannel`: method calls, replies, signals and GVariant
/// marshalling between two devices, with no bus daemon. It runs on Baton's D-Bus engine
/// (`DBusConnection`), which reads and writes the TLS stream on the app's loop thread: no
/// GDBus connection, so no worker thread and no hop to it and back for each message.
///
/// D-Bus authentication is ANONYMOUS — the only mechanism either side offers or takes —
/// because the peer has already proved who it is in the mutual TLS handshake underneath. The
/// dialing side pipelines it (D-Bus specification, "Authentication Protocol"): `AUTH` and
/// `BEGIN` go out in one flight and its first calls right behind them, so setting up D-Bus
/// costs no round trip of its own; the accepting side's `OK` is still checked before any of
/// its messages is read, and anything else closes the link.
///
/// An incoming message whose fixed header announces a body larger than `maximumMessageBody`
/// (or header fields larger than `maximumHeaderFields`) closes the link as soon as those 16
/// bytes have been read, before the rest of it is read or buffered (`DBusFraming`); so does a
/// malformed message. Each is logged once, in one short line.
@MainActor
public final class PeerBus {
    /// The largest message body taken from a peer: a payload at its limit (64 KiB) with room to
    /// spare for the rest of the protocol.
    nonisolated public static let maximumMessageBody = DBusConnection.maximumMessageBody
    /// The largest header-fields array taken from a peer (path, interface, member, signature…).
    nonisolated public static let maximumHeaderFields = DBusConnection.maximumHeaderFields
    /// How long the dialing side waits for the peer to accept its D-Bus authentication (the
    /// accepting side is bounded by its listener's deadline).
    static let authenticationDeadline: Duration = .seconds(10)

    /// The channel, kept alive (and closed when it goes) as long as the bus runs on it.
    public let channel: SecureChannel
    /// The D-Bus connection on the channel's stream.
    let bus: DBusConnection

    private init(bus: DBusConnection, channel: SecureChannel) {
        self.bus = bus
        self.channel = channel
    }

    isolated deinit { bus.close() }

    /// Lets incoming messages through (they wait from `open` until this is called).
    public func startMessageProcessing() { bus.startMessageProcessing() }

    /// Closes the link; the peer sees it closed at once (the TCP connection is shut down, or
    /// the ICE stream closed: its pseudo-TCP FIN goes after what is queued). It
    /// returns at once and never waits on the peer, so a peer that stopped reading cannot
    /// freeze the app. Messages still queued for the peer may be lost, as they would be if it
    /// had vanished.
    public func close() { bus.close() }
    /// Whether the connection has closed (either side, or a refusal).
    var isClosed: Bool { bus.isClosed }

    /// Stops reading from the peer until `resumeReading()` (messages already read are still
    /// handled): what it sends backs up in the kernel, and TCP slows it down.
    func pauseReading() { bus.pauseReading() }

    /// Reads from the peer again after `pauseReading()`.
    func resumeReading() { bus.resumeReading() }

    /// Told why, when this side closes the link for what the peer sent or did not read.
    var onRefused: (@MainActor (DiagnosticEvent.RefusalReason) -> Void)? {
        get { bus.onRefused }
        set { bus.onRefused = newValue }
    }

    /// Starts D-Bus on `channel`; the side that accepted the TLS connection serves the
    /// authentication. Both sides must call it. Incoming messages wait until
    /// `startMessageProcessing()`, so a device exports its object before any call reaches it.
    ///
    /// Over TCP the bus ends the link by shutting the socket down; over an ICE stream
    /// (`SecureChannel.open(over:role:identity:credential:)`) by closing that stream.
    public static func open(over channel: SecureChannel) async throws(TransportError) -> PeerBus {
        let base: TransportBase
        if let socket = baton_tls_base_socket(channel.stream) {
            base = .socket(socket.assumingMemoryBound(to: GSocket.self))
        } else if let ice = channel.ice {
            base = .stream(ice.stream, ended: ice.ended)
        } else {
            throw .handshakeFailed(GLibError(domain: "baton", code: 0, message: "no socket or ICE stream under the TLS connection"))
        }
        let bus = DBusConnection(stream: channel.stream, base: base,
                                 log: Logger(label: "baton.transport"), kind: "link", fallbackErrorName: DeviceInterface.ErrorName.failed)
        // An accepting side with no listener (over an ICE stream) has no listener's deadline:
        // this one ends its wait for the peer's authentication the same way.
        let unlistened = channel.isServer && channel.pending == nil
            ? MainLoop.after(authenticationDeadline) { [weak bus] in bus?.abortTransport() } : nil
        defer { unlistened?.cancel() }
        do {
            // The accepting side is bounded by the listener's deadline, which shuts the socket
            // down: the authentication's read then fails at once.
            if channel.isServer {
                try await bus.authenticateClient()
            } else {
                try await bus.authenticateToServer(timeout: authenticationDeadline, pipelined: true)
            }
        } catch {
            bus.close()
            throw .handshakeFailed(GLibError(error))
        }
        // The listener's deadline and this both run on the loop, one after the other: if the
        // deadline came first, the socket is already shut down and the link is refused here;
        // otherwise `authenticated()` ends the deadline for good. Never both.
        guard channel.isWithinDeadline else {
            bus.close()
            throw .handshakeFailed(GLibError(domain: "baton", code: 0, message: "D-Bus set up only after the deadline"))
        }
        channel.authenticated()
        return PeerBus(bus: bus, channel: channel)
    }

    /// `org.freedesktop.DBus.Peer.Ping`, which every D-Bus peer answers: one round trip over
    /// the authenticated link.
    public func ping(timeout: Duration = .seconds(10)) async throws(TransportError) {
        do {
            _ = try await bus.call("/", "org.freedesktop.DBus.Peer", "Ping", [], replyType: "()", timeout: timeout)
        } catch {
            throw .connectionFailed(GLibError(error))
        }
    }
}
