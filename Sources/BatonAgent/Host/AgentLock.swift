import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The one agent per user: an exclusive `flock(2)` on `agent.lock` in the runtime directory,
/// held for the agent's lifetime.
///
/// The lock belongs to the open file, so the kernel releases it when the agent exits however
/// it exits (SIGKILL included): there is never a stale lock to clean up. The descriptor is
/// close-on-exec, so an app the agent launches cannot keep it alive. The holder writes its pid
/// into the file, only so that a second agent can say which one runs.
public final class AgentLock: @unchecked Sendable {
    /// The lock file (`agent.socket.lock` beside the socket).
    public let path: String
    private var fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit { release() }

    /// Takes the lock without waiting: `alreadyRunning` when another process holds it.
    public static func acquire(in directory: AgentRuntimeDirectory) throws(AgentHostError) -> AgentLock {
        try acquire(path: directory.lockPath)
    }

    static func acquire(path: String) throws(AgentHostError) -> AgentLock {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .system(path, "open", errno: errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            defer { close(fd) }
            guard code == EWOULDBLOCK else { throw .system(path, "flock", errno: code) }
            throw .alreadyRunning(lock: path, pid: readPID(fd))
        }
        let lock = AgentLock(path: path, fd: fd)
        let line = Array("\(getpid())\n".utf8)
        if ftruncate(fd, 0) == 0 { _ = line.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } }
        _ = fchmod(fd, 0o600 | S_ISVTX)  // sticky: kept by runtime-directory clean-up
        return lock
    }

    /// Releases the lock (also done when the lock is freed, and by the kernel at exit).
    public func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    private static func readPID(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
