import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import Logging

/// The agent's socket: accepts the apps of this user on an already listening Unix `GSocket`
/// (systemd's, or one bound under the agent's lock), on the loop.
///
/// Each connection's peer is checked from the socket's credentials (`SO_PEERCRED`) before a
/// byte is read: another uid is closed and logged (the first `loggedRefusals` of them). Then
/// the agent waits, without a thread, for the peer's first byte, within `handshakeDeadline`:
/// NUL starts D-Bus peer-to-peer (ANONYMOUS: the uid was checked on the socket), read through
/// the same size caps as a device link (`PeerBus`); `S` and a token is an app's continuation
/// stream connection (`StreamRelay`). At most `maximumClients` connections at once.
@MainActor
public final class AgentServer {
    /// The agent this server admits apps to.
    public let agent: Agent
    private let service: OpaquePointer  // GSocketService *
    private var handler: gulong = 0
    private var connections = 0
    private var refusals = 0
    /// Connections refused past `maximumClients` since the last one accepted (the first logged).
    private var refusedPastCap = 0
    private var nextNumber: UInt64 = 0
    let log = Logger(label: "baton.agent")
    /// Connections (apps, and stream connections being set up) at once; past it one is closed.
    public var maximumClients = 64
    /// From accept to D-Bus set up (or a stream connection's token), and from then to `Join`.
    public var handshakeDeadline: Duration = .seconds(5)
    /// How many refused connections are logged; the rest are counted.
    public var loggedRefusals = 8
    /// How many connections of another uid were refused.
    public private(set) var refusedConnections = 0

    /// Serves `agent` on `socket`, a listening Unix stream `GSocket *` (a reference is taken).
    public init(listeningSocket socket: OpaquePointer, agent: Agent) throws {
        self.agent = agent
        service = OpaquePointer(g_socket_service_new())
        var error: UnsafeMutablePointer<GError>?
        let added = MainLoop.withThreadDefaultContext {
            g_socket_listener_add_socket(UnsafeMutablePointer(service), UnsafeMutablePointer(socket), nil, &error)
        }
        guard added != 0 else {
            let failure = GLibError(consuming: error!)
            g_object_unref(UnsafeMutableRawPointer(service))
            throw failure
        }
        let box = IncomingBox { [weak self] connection in self?.incoming(connection.pointer) }
        handler = MainLoop.withThreadDefaultContext {
            g_signal_connect_data(UnsafeMutableRawPointer(service), "incoming", unsafeBitCast(incomingTrampoline, to: GCallback.self),
                                  box.retainedOpaque(), CallbackBox.closureNotify, GConnectFlags(0))
        }
        MainLoop.withThreadDefaultContext { g_socket_service_start(UnsafeMutablePointer(service)) }
        agent.node.diagnostics.publish(.agentServing(path: Self.path(of: socket)))
    }

    /// The file a listening Unix `GSocket *` is bound to ("" when it has none: unbound, or an
    /// abstract address).
    private static func path(of socket: OpaquePointer) -> String {
        guard g_socket_get_family(UnsafeMutablePointer(socket)) == G_SOCKET_FAMILY_UNIX,
              let address = g_socket_get_local_address(UnsafeMutablePointer(socket), nil) else { return "" }
        defer { g_object_unref(UnsafeMutableRawPointer(address)) }
        let unix = UnsafeMutablePointer<GUnixSocketAddress>(OpaquePointer(address))
        guard g_unix_socket_address_get_address_type(unix) == G_UNIX_SOCKET_ADDRESS_PATH,
              let path = g_unix_socket_address_get_path(unix) else { return "" }
        return String(cString: path)
    }

    /// Stops accepting; connections already made stay until the agent stops.
    public func stop() {
        g_socket_service_stop(UnsafeMutablePointer(service))
        g_socket_listener_close(UnsafeMutablePointer(service))
        if handler != 0 { g_signal_handler_disconnect(UnsafeMutableRawPointer(service), handler) }
        handler = 0
    }

    isolated deinit { g_object_unref(UnsafeMutableRawPointer(service)) }

    private func incoming(_ connection: OpaquePointer) {
        let socket = g_socket_connection_get_socket(UnsafeMutablePointer(connection))
        var error: UnsafeMutablePointer<GError>?
        var uid: uid_t = .max
        var pid: Int32 = -1
        if let credentials = g_socket_get_credentials(socket, &error) {
            uid = g_credentials_get_unix_user(credentials, nil)
            pid = g_credentials_get_unix_pid(credentials, nil)
            g_object_unref(UnsafeMutableRawPointer(credentials))
        } else if let error {
            g_error_free(error)
        }
        guard uid == getuid() else {
            refusedConnections += 1
            agent.node.diagnostics.publish(.appRefused(userID: uid == .max ? nil : UInt32(uid), reason: .otherUser))
            if refusedConnections <= loggedRefusals {
                log.warning("refused a connection from uid \(uid == .max ? "unknown" : "\(uid)") (pid \(pid)): only uid \(getuid()) may use this agent")
            }
            g_socket_close(socket, nil)
            return
        }
        guard connections < maximumClients else {
            refusedPastCap += 1
            agent.node.diagnostics.publish(.appRefused(userID: UInt32(uid), reason: .tooManyConnections))
            if refusedPastCap == 1 {
                log.notice("refused a connection from pid \(pid): \(maximumClients) connections already (more are counted, not logged)")
            }
            g_socket_close(socket, nil)
            return
        }
        if refusedPastCap > 1 { log.notice("refused \(refusedPastCap) connections past the cap of \(maximumClients) in all") }
        refusedPastCap = 0
        connections += 1
        let held = LocalStream(connection)  // holds the connection while it is set up
        let fd = g_socket_get_fd(socket)
        var timedOut = false
        let deadline = MainLoop.after(handshakeDeadline) {
            timedOut = true
            g_socket_shutdown(socket, 1, 1, nil)
        }
        Task { @MainActor [weak self] in
            defer { deadline.cancel() }
            guard let self else { return held.close() }
            var first: UInt8 = 0
            // An app writes its first bytes as it connects: usually here already, read without
            // a wait (a one-off watch of the fd costs the loop two wake-up writes and a turn).
            if recv(fd, &first, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) != 1 { await Readiness.readable(fd) }
            guard !timedOut, recv(fd, &first, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 1 else {
                self.connections -= 1
                return held.close()
            }
            if first == StreamRelay.marker || first == StreamRelay.pipelinedMarker {
                await self.streamConnection(held, fd: fd, timedOut: { timedOut })
                self.connections -= 1
                return
            }
            let bus: LocalBus
            do {
                bus = try await LocalBus.serve(over: connection)
            } catch {
                self.connections -= 1
                self.log.notice("D-Bus with pid \(pid) failed: \(error)")
                return held.close()
            }
            guard !timedOut else {
                self.connections -= 1
                bus.close()
                return
            }
            let app = JoinedApp(number: self.nextNumber, bus: bus, pid: pid)
            self.nextNumber += 1
            bus.onClosed { [weak self] in self?.connections -= 1 }
            self.agent.adopt(app, joinDeadline: self.handshakeDeadline)
        }
    }

    /// An app's stream connection: `S` (or `P`) and the token, within the deadline.
    private func streamConnection(_ local: LocalStream, fd: Int32, timedOut: () -> Bool) async {
        var token = Data()
        let size = 1 + StreamRelay.tokenSize
        while token.count < size, !timedOut() {
            var buffer = [UInt8](repeating: 0, count: size - token.count)
            let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if n > 0 {
                token.append(contentsOf: buffer[0..<n])
            } else if n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
                return local.close()
            } else {
                await Readiness.readable(fd)
            }
        }
        guard !timedOut(), token.count == size else { return local.close() }
        agent.relay.connect(local, marker: token[token.startIndex], token: token.dropFirst())
    }
}

/// The `incoming` handler's closure.
private final class IncomingBox: CallbackBox, @unchecked Sendable {
    let body: @MainActor (SendableHandle) -> Void
    init(_ body: @escaping @MainActor (SendableHandle) -> Void) { self.body = body }
}

/// `gboolean incoming(GSocketService *, GSocketConnection *, GObject *source, gpointer)`.
private let incomingTrampoline: @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> gboolean = {
    _, connection, _, userData in
    guard let connection, let userData else { return 0 }
    MainThreadRules.requireLoopThread("an agent connection")
    let box = IncomingBox.borrow(userData)
    let handle = SendableHandle(connection)
    MainActor.assumeIsolated { box.body(handle) }
    return 1
}
