import BatonLoop
import CGLib

/// A connection the listener accepted and that has not yet authenticated: its TLS handshake,
/// and then its D-Bus set-up (a link), its token (a stream) or its hello (pairing), are still
/// to come.
///
/// It holds the accepted socket and a deadline. When the deadline passes, or the listener
/// drops it to make room, the socket is shut down both ways: whatever is waiting on it (the
/// handshake, GDBus's authentication, the token read) fails at once, and the peer reads the
/// end of the stream. `authenticated()` ends the wait; the connection is then the caller's.
@MainActor
final class PendingConnection {
    /// The peer's IP address.
    let host: String
    /// What counts as its address for the cap per source address (`addressGroup(of:)`).
    let group: String
    /// When it was accepted.
    let accepted = ContinuousClock.now
    /// Set by the listener once the peer proved itself: it passed the admission gate, or
    /// (with no gate) sent a whole ClientHello offering TLS 1.3. A proven connection is never
    /// dropped to make room.
    var proven = false
    private let socket: SendablePointer<GSocket>
    private let deadline: LoopSource
    /// The shorter deadline of a connection on probation (`onProbation(for:)`).
    private var probation: LoopSource?
    private var onEnd: (@MainActor (PendingConnection) -> Void)?

    init(socket: UnsafeMutablePointer<GSocket>, host: String, deadline: Duration,
         onEnd: @escaping @MainActor (PendingConnection) -> Void) {
        self.socket = SendablePointer(g_object_ref(socket).assumingMemoryBound(to: GSocket.self))
        self.host = host
        group = Self.addressGroup(of: host)
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

    /// The accepted socket's descriptor.
    var fd: Int32 { g_socket_get_fd(socket.pointer) }

    /// True until it authenticated or was dropped.
    var isWaiting: Bool { onEnd != nil }

    /// The connection proved itself within its deadline: it is no longer counted or timed.
    func authenticated() { end() }

    /// Puts it on probation: it is dropped unless it proves itself within `time`
    /// (`endProbation()`), whatever its deadline.
    func onProbation(for time: Duration) {
        let owner = WeakPending()
        owner.connection = self
        probation = MainLoop.after(time) { owner.connection?.drop() }
    }

    /// True while on probation.
    var isOnProbation: Bool { probation != nil }

    /// It proved itself in time: only its deadline holds now.
    func endProbation() {
        probation?.cancel()
        probation = nil
    }

    /// Its owner closed it: it is no longer counted or timed (nothing is shut down: the close
    /// is under way).
    func released() { end() }

    /// Shuts the socket down both ways (the peer reads its end; a handshake or read waiting
    /// on it fails) and stops counting it.
    func drop() {
        guard isWaiting else { return }
        g_socket_shutdown(socket.pointer, 1, 1, nil)
        end()
    }

    private func end() {
        deadline.cancel()
        endProbation()
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
    /// Makes room in `waiting` (oldest first) for one more connection from `host`, within
    /// `perAddress` from its address group and `total` in all; false if there is none to make:
    /// the new one is then to be closed at once. The one rule of every listener (devices,
    /// streams, pairing windows):
    /// - a connection that proved itself (`proven`) is never dropped to make room;
    /// - an unproven connection younger than `grace` is not dropped for an unproven newcomer:
    ///   it has that long to prove itself, whatever the rate of the connections after it;
    ///   a newcomer that has already proved itself (`arrivalProven`: its whole ClientHello was
    ///   there when it was accepted) may take its place;
    /// - past the per-address cap, the oldest of that address goes;
    /// - past the total cap, one of the address holding the most connections goes, if that
    ///   address holds more than the new one's will, so one address cannot crowd the others
    ///   out (the oldest past its grace, else the oldest); else the oldest past its grace.
    static func makeRoom(in waiting: [PendingConnection], for host: String, arrivalProven: Bool = false, perAddress: Int,
                         total: Int, grace: Duration, now: ContinuousClock.Instant = .now) -> Bool {
        let group = addressGroup(of: host)
        let droppable = { (connection: PendingConnection) in
            !connection.proven && (arrivalProven || now - connection.accepted >= grace)
        }
        let stale = { (connection: PendingConnection) in !connection.proven && now - connection.accepted >= grace }
        if waiting.count(where: { $0.group == group }) >= perAddress {
            let ofAddress = waiting.filter { $0.group == group }
            guard let victim = ofAddress.first(where: stale) ?? ofAddress.first(where: droppable) else { return false }
            victim.drop()
        }
        let remaining = waiting.filter { $0.isWaiting }
        guard remaining.count >= total else { return true }
        var counts: [String: Int] = [:]
        for connection in remaining { counts[connection.group, default: 0] += 1 }
        let own = counts[group] ?? 0
        let crowding = remaining.filter { !$0.proven && counts[$0.group]! > own + 1 }
        let heaviest = crowding.map { counts[$0.group]! }.max()
        let ofHeaviest = crowding.filter { counts[$0.group]! == heaviest }
        guard let victim = ofHeaviest.first(where: stale) ?? ofHeaviest.first ?? remaining.first(where: stale)
                ?? remaining.first(where: droppable) else { return false }
        victim.drop()
        return true
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
}
