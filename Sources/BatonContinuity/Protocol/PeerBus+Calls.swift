import BatonLoop
import CGLib
import Foundation

/// Calling a peer's `org.baton.Device1`, and hearing from it.
extension PeerBus {
    /// Calls `method` with `parameters` (a tuple); the reply must be of `replyType`. Throws
    /// `GLibError` when the call fails (a remote D-Bus error carries its name in
    /// `remoteDBusErrorName`; a reply of another type is `G_IO_ERROR_INVALID_ARGUMENT`, a call
    /// past `timeout` `G_IO_ERROR_TIMED_OUT`, a link that closed `G_IO_ERROR_CLOSED`).
    func call(_ method: String, _ parameters: Variant, replyType: String,
              timeout: Duration = .seconds(10)) async throws -> Variant {
        let reply = try await bus.call(DeviceInterface.path, DeviceInterface.name, method, Self.arguments(parameters),
                                       replyType: replyType, timeout: timeout)
        return .tuple(reply)
    }

    /// Calls `method` with `parameters` without asking for a reply
    /// (`G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED`: the peer runs it and sends nothing back). The
    /// message is written (or queued) now, so it reaches the peer before any call made after
    /// this returns.
    func callWithoutReply(_ method: String, _ parameters: Variant) throws {
        try bus.send(DeviceInterface.path, DeviceInterface.name, method, Self.arguments(parameters))
    }

    /// Emits `CurrentChanged(metadata)` to the peer.
    func emitCurrentChanged(_ metadata: Variant) {
        bus.emit(DeviceInterface.path, DeviceInterface.name, "CurrentChanged", [metadata])
    }

    /// Calls `body` with the metadata of each `CurrentChanged` the peer emits, until the bus
    /// goes; a signal of the wrong type calls `malformed` instead.
    func onCurrentChanged(_ body: @escaping @MainActor (Variant) -> Void, malformed: @escaping @MainActor () -> Void) {
        bus.subscribe(DeviceInterface.path, DeviceInterface.name, "CurrentChanged") { items in
            guard items.count == 1, case .dictionary = items[0] else { return malformed() }
            body(items[0])
        }
    }

    /// Emits `RevocationsChanged(list)` to the peer: a newer signed revocation list, passed on.
    func emitRevocationsChanged(_ list: Data) {
        bus.emit(DeviceInterface.path, DeviceInterface.name, "RevocationsChanged", [.bytes(list)])
    }

    /// Calls `body` with the list of each `RevocationsChanged` the peer emits (the receiver
    /// checks its signature); a signal of the wrong type calls `malformed` instead.
    func onRevocationsChanged(_ body: @escaping @MainActor (Data) -> Void, malformed: @escaping @MainActor () -> Void) {
        bus.subscribe(DeviceInterface.path, DeviceInterface.name, "RevocationsChanged") { items in
            guard items.count == 1, case .bytes(let list) = items[0] else { return malformed() }
            body(list)
        }
    }

    /// Calls `body` once when the link closes (the peer hung up, the network failed, a refusal,
    /// or `close`), from the app's loop.
    public func onClosed(_ body: @escaping @MainActor () -> Void) {
        bus.onClosed(body)
    }

    /// The values of a call's `parameters`: the items of a tuple, or the one value.
    private static func arguments(_ parameters: Variant) -> [Variant] {
        if case .tuple(let items) = parameters { return items }
        return [parameters]
    }
}
