import BatonLoop
import CGLib
import Foundation

/// Calling a peer's `org.baton.Device1`, and hearing from it.
extension PeerBus {
    /// Calls `method` of the peer's `org.baton.Device1`; returns the reply's values, which are
    /// of the types `method` declares (a reply of another type fails the call). Throws
    /// `GLibError` when the call fails (a remote D-Bus error carries its name in
    /// `remoteDBusErrorName`; a reply of another type is `G_IO_ERROR_INVALID_ARGUMENT`, a call
    /// past `timeout` `G_IO_ERROR_TIMED_OUT`, a link that closed `G_IO_ERROR_CLOSED`).
    /// `HandoffFailure.error(for:)` gives the Handoff code of any of these.
    func call(_ method: DeviceMethod, timeout: Duration = .seconds(10)) async throws -> [Variant] {
        try await bus.call(method, timeout: timeout)
    }

    /// `GetCurrent`: the metadata (`a{sv}`) of the activity the peer advertises, empty for none.
    func getCurrent() async throws -> Variant {
        let reply = try await call(.getCurrent)
        guard reply.count == 1, case .dictionary = reply[0] else { throw Self.malformed(.getCurrent) }
        return reply[0]
    }

    /// `FetchPayload`: the payload of the activity the peer advertises with `sequence`.
    func fetchPayload(sequence: UInt64) async throws -> Data {
        try Self.bytes(try await call(.fetchPayload(sequence: sequence)), of: .fetchPayload)
    }

    /// `Continued`: tells the peer its activity advertised with `sequence` was continued.
    func continued(sequence: UInt64) async throws {
        _ = try await call(.continued(sequence: sequence))
    }

    /// `GetRevocations`: the signed revocation list the peer holds.
    func getRevocations() async throws -> Data {
        try Self.bytes(try await call(.getRevocations), of: .getRevocations)
    }

    /// `GetDiscoveryKey`: the group's discovery key for the revocation list the peer holds.
    func getDiscoveryKey() async throws -> Data {
        try Self.bytes(try await call(.getDiscoveryKey), of: .getDiscoveryKey)
    }

    /// `OpenStreams`: a one-time token and the port to open a stream connection to the
    /// activity advertised with `sequence` with (the port as sent; the caller checks it).
    func openStreams(sequence: UInt64) async throws -> (token: Data, port: UInt32) {
        let reply = try await call(.openStreams(sequence: sequence))
        guard reply.count == 2, case .bytes(let token) = reply[0], case .uint32(let port) = reply[1] else {
            throw Self.malformed(.openStreams)
        }
        return (token, port)
    }

    /// Calls `method` without asking for a reply (`G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED`:
    /// the peer runs it and sends nothing back). The message is written (or queued) now, so it
    /// reaches the peer before any call made after this returns.
    func send(_ method: DeviceMethod) throws {
        try bus.send(method)
    }

    /// Emits `signal` to the peer.
    func emit(_ signal: DeviceSignal) {
        bus.emit(signal)
    }

    /// Emits `CurrentChanged(metadata)` to the peer.
    func emitCurrentChanged(_ metadata: Variant) {
        emit(.currentChanged(metadata))
    }

    /// Emits `RevocationsChanged(list)` to the peer: a newer signed revocation list, passed on.
    func emitRevocationsChanged(_ list: Data) {
        emit(.revocationsChanged(list))
    }

    /// Calls `body` with each `member` signal the peer emits, decoded, until the bus goes; a
    /// signal of the wrong type calls `malformed` instead.
    func on(_ member: DeviceSignal.Member, _ body: @escaping @MainActor (DeviceSignal) -> Void,
            malformed: @escaping @MainActor () -> Void) {
        bus.subscribe(member, body, malformed: malformed)
    }

    /// Calls `body` with the metadata of each `CurrentChanged` the peer emits, until the bus
    /// goes; a signal of the wrong type calls `malformed` instead.
    func onCurrentChanged(_ body: @escaping @MainActor (Variant) -> Void, malformed: @escaping @MainActor () -> Void) {
        on(.currentChanged, { signal in if case .currentChanged(let metadata) = signal { body(metadata) } }, malformed: malformed)
    }

    /// Calls `body` with the list of each `RevocationsChanged` the peer emits (the receiver
    /// checks its signature); a signal of the wrong type calls `malformed` instead.
    func onRevocationsChanged(_ body: @escaping @MainActor (Data) -> Void, malformed: @escaping @MainActor () -> Void) {
        on(.revocationsChanged, { signal in if case .revocationsChanged(let list) = signal { body(list) } }, malformed: malformed)
    }

    /// Calls `body` once when the link closes (the peer hung up, the network failed, a refusal,
    /// or `close`), from the app's loop.
    public func onClosed(_ body: @escaping @MainActor () -> Void) {
        bus.onClosed(body)
    }

    private static func bytes(_ reply: [Variant], of member: DeviceMethod.Member) throws(PeerProtocolError) -> Data {
        guard reply.count == 1, case .bytes(let data) = reply[0] else { throw malformed(member) }
        return data
    }

    private static func malformed(_ member: DeviceMethod.Member) -> PeerProtocolError {
        .malformed("the \(member.rawValue) reply is not \(member.replyType)")
    }
}
