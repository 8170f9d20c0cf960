import BatonLoop
import CGLib
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The agent's listening socket: the one systemd passed (socket activation), or one this
/// agent binds at `agent.socket` in the runtime directory while it holds the agent lock.
///
/// Binding replaces a socket file left by an agent that was killed — only the lock holder
/// does, so it never takes the path from a running agent — and gives it mode 0600 with the
/// sticky bit (the directory is 0700 already). A socket systemd passed is never unlinked or
/// rebound: systemd keeps a copy and queues connections while the agent restarts.
public enum AgentListeningSocket {
    /// How the socket was obtained.
    public enum Origin: Sendable, Equatable {
        /// Passed by systemd socket activation (`LISTEN_FDS`).
        case systemd
        /// Bound by the agent itself, under its lock.
        case bound
    }

    /// Listening `GSocket` (a new reference, `OpaquePointer` to `GSocket`), and where it came from.
    /// Call with the lock held.
    public static func obtain(in directory: AgentRuntimeDirectory, lock: AgentLock) throws(AgentHostError) -> (socket: OpaquePointer, origin: Origin) {
        _ = lock  // the caller proves it holds the lock
        if let fd = try SocketActivation.takeListeningSocket() {
            return (try adopt(fd), .systemd)
        }
        return (try bind(directory.socketPath), .bound)
    }

    static func adopt(_ fd: Int32) throws(AgentHostError) -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        guard let socket = g_socket_new_from_fd(fd, &error) else {
            throw .notAListeningSocket(fd: fd, problem: GLibError(consuming: error!).description)
        }
        return OpaquePointer(socket)
    }

    /// Binds and listens at `path` (a new `GSocket *` reference), replacing a socket file left
    /// there (never another kind of file). For an agent whose folder and lock its host already
    /// holds (an in-process agent in a test or a benchmark); `obtain` is the agent's way.
    public static func bind(_ path: String) throws(AgentHostError) -> OpaquePointer {
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw .unsafeDirectory(path: path, problem: "it exists and is not a socket; remove it by hand if it is not needed")
            }
            guard unlink(path) == 0 else { throw .system(path, "unlink", errno: errno) }
        }
        var error: UnsafeMutablePointer<GError>?
        guard let socket = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error) else {
            throw .system(path: path, call: "socket", reason: GLibError(consuming: error!).description)
        }
        let address = g_unix_socket_address_new(path)
        defer { g_object_unref(address) }
        guard g_socket_bind(socket, address, 0, &error) != 0 else {
            g_object_unref(socket)
            throw .system(path: path, call: "bind", reason: GLibError(consuming: error!).description)
        }
        _ = chmod(path, 0o600 | S_ISVTX)
        g_socket_set_listen_backlog(socket, 64)
        guard g_socket_listen(socket, &error) != 0 else {
            g_object_unref(socket)
            throw .system(path: path, call: "listen", reason: GLibError(consuming: error!).description)
        }
        return OpaquePointer(socket)
    }
}
