import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket listening on 127.0.0.1 that never accepts and never answers: a client's
/// connection completes (in the kernel's backlog) and then hears nothing, as from a server
/// that hangs. Closed by `close()` or when released.
public final class SilentListener: @unchecked Sendable {
    /// The port it listens on.
    public let port: UInt16
    private let lock = NSLock()
    private var fd: Int32

    /// Listens on a port the system picks.
    public init() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        guard let port = FreePort.bindLoopback(fd), listen(fd, 8) == 0 else {
            Glibc.close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        self.port = port
    }

    /// Stops listening: the connections waiting are reset.
    public func close() {
        lock.lock()
        defer { lock.unlock() }
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    deinit { close() }
}
