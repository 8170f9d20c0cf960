import BatonLoop
import CGLib
import Foundation
@testable import BatonAgent

/// A client of the agent made by hand in the test, with GDBus's synchronous calls (no loop):
/// to misbehave where a real app would not. Its `org.baton.App1` object is registered on the
/// test thread's default context, which nothing iterates: the agent's calls to it are never
/// answered.
final class RawAgentClient: @unchecked Sendable {
    let connection: OpaquePointer  // GDBusConnection *

    init(socket path: String) throws {
        var error: UnsafeMutablePointer<GError>?
        let escaped = g_dbus_address_escape_value(path)!
        defer { g_free(escaped) }
        guard let connection = g_dbus_connection_new_for_address_sync("unix:path=" + String(cString: escaped),
                                                                      G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT, nil, nil, &error) else {
            throw GLibError(consuming: error!)
        }
        self.connection = connection
    }

    deinit {
        g_dbus_connection_close_sync(connection, nil, nil)
        g_object_unref(UnsafeMutableRawPointer(connection))
    }

    /// Registers an `org.baton.App1` that never answers.
    func exportSilentApp() throws {
        var vtable = GDBusInterfaceVTable()
        vtable.method_call = { _, _, _, _, _, _, _, _ in }  // the call is never dispatched anyway
        var error: UnsafeMutablePointer<GError>?
        guard g_dbus_connection_register_object(connection, AgentInterface.appPath, AgentInterface.appInfo, &vtable, nil, nil, &error) != 0 else {
            throw GLibError(consuming: error!)
        }
    }

    /// Joins as the app `appID` of team `TEAM`, declaring no activity type.
    func join(as appID: String) throws {
        _ = try call("Join", [.string(appID), .string("TEAM"), .array(elementType: "s", [])], replyType: "(u)")
    }

    /// Joins as an app that is active, offers an activity of `type` and never answers the
    /// agent's calls (so a peer's `FetchPayload` waits on it).
    func joinAsSilentActiveApp(_ appID: String, offering type: String) throws {
        try exportSilentApp()
        try join(as: appID)
        _ = try call("SetAdvertisement", [.dictionary(["id": .uint64(1), "type": .string(type)]), .bool(true)], replyType: "()")
    }

    /// Calls `method` of `org.baton.Agent1` and waits at most `timeout` seconds.
    func call(_ method: String, _ arguments: [Variant], replyType: String, timeout: Int32 = 10_000) throws -> [Variant] {
        var error: UnsafeMutablePointer<GError>?
        let reply = replyType.withCString { type in
            g_dbus_connection_call_sync(connection, nil, AgentInterface.agentPath, AgentInterface.agentName, method,
                                        try? Variant.tuple(arguments).makeGVariant(), baton_variant_type(type),
                                        G_DBUS_CALL_FLAGS_NONE, timeout, nil, &error)
        }
        guard let reply else { throw GLibError(consuming: error!) }
        defer { g_variant_unref(reply) }
        guard case .tuple(let items) = try Variant(reading: reply) else { return [] }
        return items
    }
}

/// A Unix stream socket connected to `path` (a descriptor the caller closes).
func connectedSocket(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        path.utf8CString.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0.prefix(buffer.count - 1))) }
    }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard result == 0 else {
        close(fd)
        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
    return fd
}

/// Waits (bounded by `timeout` seconds) until the agent closes `fd`: true if it did (EOF or a
/// reset), false if the socket stayed open that long.
func closedByPeer(_ fd: Int32, timeout: Int32) -> Bool {
    var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    let deadline = Date(timeIntervalSinceNow: TimeInterval(timeout))
    while Date() < deadline {
        guard poll(&entry, 1, 1000) >= 0 else { return false }
        guard entry.revents != 0 else { continue }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &buffer, buffer.count)
        if n <= 0 { return true }
    }
    return false
}
