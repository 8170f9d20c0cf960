import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import Logging

/// D-Bus peer-to-peer between an app and its agent on a connected Unix socket: Baton's one
/// D-Bus engine (`DBusConnection`, read and written on the app's loop thread, with the caps of
/// a device link) over the socket connection.
package typealias LocalBus = DBusConnection

extension LocalBus {
    /// A connection over `connection` (a connected `GSocketConnection *`; it takes a
    /// reference), not yet authenticated.
    private static func overSocket(_ connection: OpaquePointer) -> LocalBus {
        let stream = UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GIOStream.self)
        return LocalBus(stream: stream, socket: g_socket_connection_get_socket(UnsafeMutablePointer(connection)),
                        log: Logger(label: "baton.agent"), kind: "connection",
                        fallbackErrorName: AgentInterface.ErrorName.handoffFailed)
    }

    /// Authenticates the client on `connection` (a connected `GSocketConnection *` whose
    /// peer's uid was checked), as the agent does, and returns the bus with message
    /// processing not yet started. Bytes the client sent after `BEGIN` stay for the bus.
    static func serve(over connection: OpaquePointer) async throws -> LocalBus {
        let bus = overSocket(connection)
        do {
            try await bus.authenticateClient()
        } catch {
            bus.close()
            throw error
        }
        return bus
    }

    /// Authenticates to the agent on `connection` as an app does (`ANONYMOUS`), within
    /// `timeout`, and returns the bus with message processing not yet started.
    package static func connect(over connection: OpaquePointer, timeout: Duration) async throws -> LocalBus {
        let bus = overSocket(connection)
        do {
            try await bus.authenticateToServer(timeout: timeout)
        } catch {
            bus.close()
            throw error
        }
        return bus
    }
}
