import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the agent's socket and lock live: `$XDG_RUNTIME_DIR/baton`.
///
///     agent.socket        the agent's Unix socket, mode 0600 (D-Bus peer-to-peer; see PROTOCOL.md)
///     agent.socket.lock   held (flock) by the one running agent, with its pid
///     agent.socket.log    the standard error of an agent an app started (autostart)
///
/// The runtime directory is the user's own: created by the login manager, mode 0700, removed
/// at logout (XDG Base Directory Specification, `$XDG_RUNTIME_DIR`). `baton/` inside it is
/// created 0700 and checked every time — a directory owned by someone else, a symlink or a
/// mode that lets others in is refused, never used — so no other user can reach the socket
/// or put one of their own in its place. The socket and lock carry the sticky bit, which the
/// specification names as the way to keep files from periodic clean-up.
public struct AgentRuntimeDirectory: Sendable, Equatable {
    /// The directory (`$XDG_RUNTIME_DIR/baton` by default).
    public let url: URL
    /// The agent's socket: `agent.socket` in the directory, or the path given.
    public let socketPath: String
    /// The lock the one running agent holds, beside the socket: `agent.socket.lock`.
    public var lockPath: String { socketPath + ".lock" }
    /// Where an autostarted agent's standard error goes, beside the socket: `agent.socket.log`.
    public var logPath: String { socketPath + ".log" }

    /// `directory` as given (a test's own, or `--runtime-dir`), with the socket `agent.socket`;
    /// `prepare()` creates and checks it.
    public init(url: URL) {
        self.url = url
        socketPath = url.appendingPathComponent("agent.socket").path
    }

    /// The agent at an explicit socket path (`--socket`): its folder must be private as the
    /// runtime directory is; its lock and log sit beside it, so agents with different sockets
    /// in one folder do not exclude each other, and one socket never has two agents.
    public init(socketPath: String) {
        url = URL(fileURLWithPath: socketPath).deletingLastPathComponent()
        self.socketPath = socketPath
    }

    /// The user's agent, the one place its location is decided: the socket `$BATON_AGENT_SOCKET`
    /// if set, else `agent.socket` in `$XDG_RUNTIME_DIR/baton`, else in `/run/user/UID/baton`
    /// (where the login manager makes the runtime directory); never a shared folder such as
    /// /tmp. `prepare()` refuses the folder unless it is the user's and private.
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> AgentRuntimeDirectory {
        if let path = environment["BATON_AGENT_SOCKET"], !path.isEmpty { return AgentRuntimeDirectory(socketPath: path) }
        let base = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/run/user/\(getuid())"
        return AgentRuntimeDirectory(url: URL(fileURLWithPath: base).appendingPathComponent("baton"))
    }

    /// Creates the directory (mode 0700) if it is missing, then checks that it is a directory,
    /// not a symlink, owned by this user, and closed to everyone else.
    public func prepare() throws(AgentHostError) {
        let path = url.path
        if mkdir(path, 0o700) != 0, errno != EEXIST { throw .system(path, "mkdir", errno: errno) }
        try Self.checkPrivate(path)
    }

    /// Refuses `path` unless it is a real directory of this user's with no access for group or others.
    static func checkPrivate(_ path: String) throws(AgentHostError) {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .system(path, "lstat", errno: errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .unsafeDirectory(path: path, problem: info.st_mode & S_IFMT == S_IFLNK ? "it is a symbolic link" : "it is not a directory")
        }
        guard info.st_uid == getuid() else {
            throw .unsafeDirectory(path: path, problem: "it belongs to uid \(info.st_uid), not to this user (uid \(getuid()))")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw .unsafeDirectory(path: path, problem: "mode \(String(info.st_mode & 0o777, radix: 8)) lets other users in; it must be 700")
        }
    }
}
