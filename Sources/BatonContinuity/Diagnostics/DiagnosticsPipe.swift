import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The descriptor named by `BATON_DIAGNOSTICS_FD`, written as JSON lines (one
/// `DiagnosticEvent` a line, `JSONEncoder`'s form of the enum).
///
/// The descriptor is the process's, handed to it by whoever started it (as systemd hands a
/// listening socket), so there is one for the process. It is taken only if it is a pipe or a
/// socket and, when `BATON_DIAGNOSTICS_INODE` is set, only if it is that very pipe: a program
/// this one starts inherits the variables but its descriptor of that number may be another
/// file, which must never be written to. It is taken once: made close-on-exec and
/// non-blocking, and the variables removed, so the programs this one starts do not write to
/// it. A line the reader does not take at once (the pipe is full) is dropped and counted: a
/// slow reader never holds the loop. Lines are at most `maximumLine` bytes (a longer event is
/// dropped), so each write is atomic on a pipe.
final class DiagnosticsPipe: @unchecked Sendable {
    static let variable = "BATON_DIAGNOSTICS_FD"
    /// The inode of the pipe meant (`fstat`'s `st_ino`), set by whoever made it.
    static let inodeVariable = "BATON_DIAGNOSTICS_INODE"
    /// The longest line written: `PIPE_BUF`, so no write is ever split between readers.
    static let maximumLine = 4096

    /// The process's pipe, or nil when it was started without one (or with a value that is
    /// not an open descriptor above 2).
    static let process: DiagnosticsPipe? = {
        defer { unsetenv(variable); unsetenv(inodeVariable) }
        guard let value = getenv(variable), let fd = Int32(String(cString: value)), fd > 2 else { return nil }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return nil }
        let type = status.st_mode & S_IFMT
        guard type == S_IFIFO || type == S_IFSOCK else { return nil }
        if let inode = getenv(inodeVariable), UInt64(String(cString: inode)) != UInt64(status.st_ino) { return nil }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return DiagnosticsPipe(fd: fd)
    }()

    private let fd: Int32
    private let lock = NSLock()
    private var droppedLines = 0
    private let encoder = JSONEncoder()

    private init(fd: Int32) {
        self.fd = fd
        encoder.outputFormatting = .sortedKeys
    }

    /// Lines dropped so far: the reader was behind, or the event too long.
    var dropped: Int { lock.withLock { droppedLines } }

    func write(_ event: DiagnosticEvent) {
        guard var line = try? encoder.encode(event), line.count < Self.maximumLine else {
            return lock.withLock { droppedLines += 1 }
        }
        line.append(0x0A)
        let written = line.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if written != line.count { lock.withLock { droppedLines += 1 } }
    }
}
