import Baton
import BatonLoop
import CGLib
import Foundation

/// What a device does when a peer calls it; the continuity node implements it. `peer` is the
/// calling device: its identifier and its certificate's serial number (hex).
@MainActor
protocol DeviceServiceHandler: AnyObject {
    /// Why `peer` may not be answered at all (its certificate is revoked by the list this
    /// device holds now), or nil. Asked before every call is answered.
    func refusal(of peer: DevicePeer) -> String?
    /// The activity advertised now, if any.
    func currentActivity() -> NearbyActivity?
    /// The payload of the activity advertised with `sequence`, saved first, for `peer`.
    /// It may await the app (the agent asks it); the provider bounds that wait.
    func payload(sequence: UInt64, for peer: DevicePeer) async throws(DeviceServiceError) -> Data
    /// The peer continued the activity advertised with `sequence`; refused unless that peer
    /// fetched it.
    func continued(sequence: UInt64, by peer: DevicePeer) async throws(DeviceServiceError)
    /// The signed revocation list this device holds.
    func revocationList() -> Data
    /// The group's discovery key for the revocation list this device holds.
    func discoveryKey() throws(DeviceServiceError) -> Data
    /// A one-time token for a continuation stream connection from `peer` (its identifier) to the activity
    /// advertised with `sequence`, and the port to make it to.
    func streamGrant(sequence: UInt64, for peer: String) throws(DeviceServiceError) -> (token: Data, port: UInt16)
}

/// The device at the other end of a link, as its certificate proved it.
struct DevicePeer: Sendable, Hashable {
    /// The identifier its certificate carries (`DeviceIdentity.verifyPeer`).
    var id: String
    var serial: String
}

enum DeviceServiceError: Error {
    case notCurrent
    case tooLarge(String)
    case failed(String)
    case noStreams(String)
    case refused(String)
}

/// `org.baton.Device1` served on one peer bus. Registered when the link opens, unregistered
/// (and its box released by GDBus) when the bus closes.
final class DeviceService: CallbackBox, @unchecked Sendable {
    weak var handler: (any DeviceServiceHandler)?
    let peer: DevicePeer

    init(handler: any DeviceServiceHandler, peer: DevicePeer) {
        self.handler = handler
        self.peer = peer
    }

    /// Exports the object on `bus`. GDBus delivers its method calls through the thread-default
    /// context at registration: the app's loop.
    @MainActor
    func register(on bus: PeerBus) throws(TransportError) {
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = deviceMethodCall
        var error: UnsafeMutablePointer<GError>?
        let id = MainLoop.withThreadDefaultContext {
            g_dbus_connection_register_object(bus.connection, DeviceInterface.path, DeviceInterface.info, &vtable,
                                              retainedOpaque(), CallbackBox.destroyNotify, &error)
        }
        guard id != 0 else { throw .handshakeFailed(GLibError(consuming: error!)) }
    }

    @MainActor
    func answer(_ method: String, _ parameters: Variant, _ invocation: OpaquePointer) {
        guard let handler else { return fail(invocation, DeviceInterface.ErrorName.failed, "the device is shutting down") }
        // The list held now decides, not the one held when the link was made.
        if let refusal = handler.refusal(of: peer) { return fail(invocation, DeviceInterface.ErrorName.refused, refusal) }
        switch (method, parameters) {
        case ("GetCurrent", _):
            reply(invocation, .tuple([DeviceInterface.metadata(handler.currentActivity())]))
        case ("FetchPayload", .tuple(let args)):
            guard case .uint64(let sequence)? = args.first else { return fail(invocation, DeviceInterface.ErrorName.failed, "bad arguments") }
            // Answered after the handler's await (GDBus's invocation stays ours until then).
            let call = SendableOpaque(invocation), peer = peer
            Task { @MainActor in
                do throws(DeviceServiceError) {
                    self.reply(call.pointer, .tuple([.bytes(try await handler.payload(sequence: sequence, for: peer))]))
                } catch {
                    self.fail(call.pointer, error)
                }
            }
        case ("OpenStreams", .tuple(let args)):
            guard case .uint64(let sequence)? = args.first else { return fail(invocation, DeviceInterface.ErrorName.failed, "bad arguments") }
            do {
                let grant = try handler.streamGrant(sequence: sequence, for: peer.id)
                reply(invocation, .tuple([.bytes(grant.token), .uint32(UInt32(grant.port))]))
            } catch {
                fail(invocation, error)
            }
        case ("GetRevocations", _):
            reply(invocation, .tuple([.bytes(handler.revocationList())]))
        case ("GetDiscoveryKey", _):
            do { reply(invocation, .tuple([.bytes(try handler.discoveryKey())])) } catch { fail(invocation, error) }
        case ("Continued", .tuple(let args)):
            guard case .uint64(let sequence)? = args.first else { return fail(invocation, DeviceInterface.ErrorName.failed, "bad arguments") }
            let call = SendableOpaque(invocation), peer = peer
            Task { @MainActor in
                do throws(DeviceServiceError) {
                    try await handler.continued(sequence: sequence, by: peer)
                    self.reply(call.pointer, .tuple([]))
                } catch {
                    self.fail(call.pointer, error)
                }
            }
        default:
            fail(invocation, "org.freedesktop.DBus.Error.UnknownMethod", "no method \(method)")
        }
    }

    private func reply(_ invocation: OpaquePointer, _ value: Variant) {
        guard let made = try? value.makeGVariant() else {
            return fail(invocation, DeviceInterface.ErrorName.failed, "the reply could not be encoded")
        }
        g_dbus_method_invocation_return_value(invocation, made)
    }

    private func fail(_ invocation: OpaquePointer, _ error: DeviceServiceError) {
        switch error {
        case .notCurrent: fail(invocation, DeviceInterface.ErrorName.notCurrent, "that activity is no longer current")
        case .tooLarge(let reason): fail(invocation, DeviceInterface.ErrorName.tooLarge, reason)
        case .failed(let reason): fail(invocation, DeviceInterface.ErrorName.failed, reason)
        case .noStreams(let reason): fail(invocation, DeviceInterface.ErrorName.noStreams, reason)
        case .refused(let reason): fail(invocation, DeviceInterface.ErrorName.refused, reason)
        }
    }

    private func fail(_ invocation: OpaquePointer, _ name: String, _ message: String) {
        g_dbus_method_invocation_return_dbus_error(invocation, name, message)
    }
}

/// GDBus's `method_call` for org.baton.Device1: arguments were checked against the interface.
private let deviceMethodCall: GDBusInterfaceMethodCallFunc = { _, _, _, _, method, parameters, invocation, userData in
    guard let method, let parameters, let invocation, let userData else { return }
    MainThreadRules.requireLoopThread("a D-Bus method call")
    let service = DeviceService.borrow(userData)
    let name = String(cString: method)
    let call = SendableOpaque(invocation)
    guard let arguments = try? Variant(reading: parameters) else {
        // GDBus checked the type, so this is a value Variant cannot hold: say so, typed.
        return g_dbus_method_invocation_return_dbus_error(call.pointer, DeviceInterface.ErrorName.failed, "the arguments cannot be read")
    }
    MainActor.assumeIsolated { service.answer(name, arguments, call.pointer) }
}
