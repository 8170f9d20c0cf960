import BatonLoop
import CGLib

/// A connection the listener accepted and that has not yet authenticated: its TLS handshake,
/// and then its D-Bus set-up (a link) or its token (a stream), are still to come.
///
/// It holds the accepted socket and a deadline. When the deadline passes, or the listener
/// drops it to make room, the socket is shut down both ways: whatever is waiting on it (the
/// handshake, GDBus's authentication, the token read) fails at once, and the peer reads the
/// end of the stream. `authenticated()` ends the wait; the connection is then the caller's.
@MainActor
final class PendingConnection {
    /// The peer's IP address, for the cap per source address.
    let host: String
    /// Set by the listener once the whole ClientHello has arrived and the handshake starts
    /// (past a cap, connections still without one are dropped first).
    var sentClientHello = false
    private let socket: SendablePointer<GSocket>
    private let deadline: LoopSource
    private var onEnd: (@MainActor (PendingConnection) -> Void)?

    init(socket: UnsafeMutablePointer<GSocket>, host: String, deadline: Duration,
         onEnd: @escaping @MainActor (PendingConnection) -> Void) {
        self.socket = SendablePointer(g_object_ref(socket).assumingMemoryBound(to: GSocket.self))
        self.host = host
        self.onEnd = onEnd
        let owner = WeakPending()
        self.deadline = MainLoop.after(deadline) { owner.connection?.drop() }
        owner.connection = self
    }

    deinit {
        deadline.cancel()
        g_object_unref(socket.pointer)
    }

    /// Shuts the socket down and stops the deadline, from any thread (for a listener going
    /// away); unlike `drop()` it tells nobody.
    nonisolated func shutDown() {
        deadline.cancel()
        g_socket_shutdown(socket.pointer, 1, 1, nil)
    }

    /// True until it authenticated or was dropped.
    var isWaiting: Bool { onEnd != nil }

    /// The connection proved itself within its deadline: it is no longer counted or timed.
    func authenticated() { end() }

    /// Shuts the socket down both ways (the peer reads its end; a handshake or read waiting
    /// on it fails) and stops counting it.
    func drop() {
        guard isWaiting else { return }
        g_socket_shutdown(socket.pointer, 1, 1, nil)
        end()
    }

    private func end() {
        deadline.cancel()
        let notify = onEnd
        onEnd = nil
        notify?(self)
    }
}

/// The deadline's way back to its connection, which it must not keep alive.
@MainActor
private final class WeakPending {
    weak var connection: PendingConnection?
}

extension PendingConnection {
    /// Makes room in `waiting` (oldest first) for one more connection from `host`: past
    /// `perAddress` from that host, or `total` in all, the oldest still without its ClientHello
    /// is dropped first (else the oldest), so silent connections cannot push out a peer in its
    /// handshake. The one rule of every listener (devices, pairing windows).
    static func makeRoom(in waiting: [PendingConnection], for host: String, perAddress: Int, total: Int) {
        let group = addressGroup(of: host)
        let fromHost = waiting.filter { addressGroup(of: $0.host) == group }
        if fromHost.count >= perAddress { victim(among: fromHost)?.drop() }
        var remaining = waiting.filter { $0.isWaiting }
        while remaining.count >= total, let victim = victim(among: remaining) {
            victim.drop()
            remaining.removeAll { $0 === victim }
        }
    }

    /// What counts as one address for the per-address cap: an IPv4 address as it is; an IPv6
    /// address by its /64 prefix, since one host (one LAN interface, SLAAC and privacy
    /// addresses) can use any number of addresses of its /64 and would otherwise pass the cap.
    nonisolated static func addressGroup(of host: String) -> String {
        guard host.contains(":") else { return host }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, host, &bytes) == 1 else { return host }
        return stride(from: 0, to: 8, by: 2).map { String(format: "%02x%02x", bytes[$0], bytes[$0 + 1]) }.joined(separator: ":") + "::/64"
    }

    /// The oldest of `connections` (oldest first) still waiting for its ClientHello, else the oldest.
    private static func victim(among connections: [PendingConnection]) -> PendingConnection? {
        connections.first { !$0.sentClientHello } ?? connections.first
    }
}
