import BatonLoop
import CGLib
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the agent's process sets up before it serves, in this order: the runtime directory
/// (created 0700 and checked), the agent lock (a second agent stops here with
/// `alreadyRunning`), then the listening socket — systemd's, or bound under the lock.
public final class AgentHost {
    /// The runtime directory, checked.
    public let directory: AgentRuntimeDirectory
    /// The lock this agent holds while it runs.
    public let lock: AgentLock
    /// The listening `GSocket *` (this object holds a reference until it is freed).
    public let socket: OpaquePointer
    /// Whether systemd passed the socket or the agent bound it.
    public let origin: AgentListeningSocket.Origin

    /// Sets up the agent at `directory` (`AgentRuntimeDirectory.standard()` by default).
    public init(directory: AgentRuntimeDirectory) throws(AgentHostError) {
        self.directory = directory
        try directory.prepare()
        lock = try AgentLock.acquire(in: directory)
        (socket, origin) = try AgentListeningSocket.obtain(in: directory, lock: lock)
    }

    /// Removes the socket file this agent bound (never systemd's, which systemd keeps), then
    /// releases the lock.
    public func stop() {
        if origin == .bound { unlink(directory.socketPath) }
        lock.release()
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(socket)) }

    /// Tells the process that started this agent (`AgentAutostart`, `--ready-fd`) that it
    /// listens: one byte on `fd`, which is then closed.
    public static func signalReady(on fd: Int32) {
        var byte = AgentAutostart.readyByte
        _ = write(fd, &byte, 1)
        close(fd)
    }
}
