import BatonLoop
import CGLib
import Foundation

/// Calling a peer's `org.baton.Device1`, and hearing from it.
extension PeerBus {
    /// Makes `call` of the peer's `org.baton.Device1` (e.g. `.fetchPayload(sequence: 7)`);
    /// returns its reply, of its declared type. Throws `GLibError` when the call fails (a
    /// remote D-Bus error carries its name in `remoteDBusErrorName`; a reply of another type is
    /// `G_IO_ERROR_INVALID_ARGUMENT`, a call past `timeout` `G_IO_ERROR_TIMED_OUT`, a link that
    /// closed `G_IO_ERROR_CLOSED`), or `DBusMessageMismatch` for a reply the declaration does
    /// not take. `HandoffFailure.error(for:)` gives the Handoff code of any of these.
    func call<Reply>(_ call: DBusCall<DeviceMethod, Reply>, timeout: Duration = .seconds(10)) async throws -> Reply {
        try await bus.call(call, timeout: timeout)
    }

    /// Makes `first` and `second` in one flight (both written before either answer is
    /// awaited, `first` ahead) and returns both replies: one round trip instead of two, for
    /// calls whose second does not depend on the first's answer. Fails as `call(_:timeout:)`
    /// does, with the first failure in call order.
    func call<First, Second>(_ first: DBusCall<DeviceMethod, First>, _ second: DBusCall<DeviceMethod, Second>,
                             timeout: Duration = .seconds(10)) async throws -> (First, Second) {
        let slot = ReplySlot()
        try bus.start(DeviceMethod.path, DeviceMethod.interface, first.method.member.rawValue, first.method.arguments,
                      replyType: first.method.member.replyType, timeout: timeout) { slot.fill($0) }
        let secondValues: Result<[Variant], any Error>
        do { secondValues = .success(try await bus.call(second.method, timeout: timeout)) } catch { secondValues = .failure(error) }
        let firstValues = try await slot.values()  // the peer answers in order: most often here already
        guard let firstReply = first.reply(firstValues) else {
            throw DBusMessageMismatch(description: "the \(first.method.member.rawValue) reply is not \(first.method.member.replyType)")
        }
        guard let secondReply = second.reply(try secondValues.get()) else {
            throw DBusMessageMismatch(description: "the \(second.method.member.rawValue) reply is not \(second.method.member.replyType)")
        }
        return (firstReply, secondReply)
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
}

/// The reply of a call started ahead of another (`PeerBus.call(_:_:timeout:)`), for the one
/// awaiting it: filled once, on the loop, with the reply's values or the call's failure.
@MainActor
private final class ReplySlot {
    private var result: Result<[Variant], GLibError>?
    private var waiter: CheckedContinuation<[Variant], any Error>?

    func fill(_ result: Result<[Variant], GLibError>) {
        guard let waiter else { return self.result = result }
        self.waiter = nil
        waiter.resume(with: result.mapError { $0 as any Error })
    }

    func values() async throws -> [Variant] {
        if let result { return try result.get() }
        return try await withCheckedThrowingContinuation { waiter = $0 }
    }
}
