import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// systemd's socket activation, without libsystemd (sd_listen_fds(3)): when `LISTEN_PID` is
/// this process and `LISTEN_FDS` is at least 1, the listening socket is descriptor 3
/// (`SD_LISTEN_FDS_START`), or the one `LISTEN_FDNAMES` calls `agent` when there are several.
///
/// The three variables are removed from the environment whatever they held, so no app the
/// agent launches inherits them; the descriptors are made close-on-exec for the same reason.
/// The socket is checked before it is used: a Unix stream socket that is listening.
public enum SocketActivation {
    /// The first descriptor systemd passes.
    public static let firstDescriptor: Int32 = 3

    /// The listening socket systemd passed, or nil when this process was not socket-activated.
    public static func takeListeningSocket(named name: String = "agent") throws(AgentHostError) -> Int32? {
        let environment = ProcessInfo.processInfo.environment
        defer { for variable in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] { unsetenv(variable) } }
        guard let fd = descriptor(named: name, environment: environment, pid: getpid()) else { return nil }
        for passed in firstDescriptor..<(firstDescriptor + (Int32(environment["LISTEN_FDS"] ?? "") ?? 0)) {
            _ = fcntl(passed, F_SETFD, FD_CLOEXEC)
        }
        try checkListeningUnixStream(fd)
        return fd
    }

    /// Which descriptor the environment passes for `name`: nil unless it is meant for `pid`.
    static func descriptor(named name: String, environment: [String: String], pid: pid_t) -> Int32? {
        guard let listenPID = environment["LISTEN_PID"].flatMap({ pid_t($0) }), listenPID == pid,
              let count = environment["LISTEN_FDS"].flatMap({ Int32($0) }), count >= 1, count <= 64 else { return nil }
        let names = (environment["LISTEN_FDNAMES"] ?? "").split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if count > 1, let index = names.firstIndex(of: name), index < count { return firstDescriptor + Int32(index) }
        return firstDescriptor
    }

    /// As `sd_is_socket_unix(fd, SOCK_STREAM, 1, …)`.
    static func checkListeningUnixStream(_ fd: Int32) throws(AgentHostError) {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        guard let type = option(SO_TYPE) else { throw .notAListeningSocket(fd: fd, problem: String(cString: strerror(errno))) }
        guard type == Int32(SOCK_STREAM.rawValue) else { throw .notAListeningSocket(fd: fd, problem: "not a stream socket") }
        guard option(SO_ACCEPTCONN) == 1 else { throw .notAListeningSocket(fd: fd, problem: "not listening") }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0, address.ss_family == sa_family_t(AF_UNIX) else {
            throw .notAListeningSocket(fd: fd, problem: "not a Unix socket")
        }
    }
}
