import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking TCP connection to 127.0.0.1:`port` from the loopback address `source`
/// (127.0.0.x: a different peer address each, as different machines would be), under way
/// (`EINPROGRESS`) or made. The caller owns the descriptor.
func loopbackConnection(from source: String, to port: UInt16) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE) }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    var local = sockaddr_in(), remote = sockaddr_in()
    local.sin_family = sa_family_t(AF_INET)
    inet_pton(AF_INET, source, &local.sin_addr)
    remote.sin_family = sa_family_t(AF_INET)
    remote.sin_port = port.bigEndian
    inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
    let size = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
    let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) } }
    guard bound == 0, connected == 0 || errno == EINPROGRESS else {
        let code = POSIXErrorCode(rawValue: errno) ?? .EIO
        close(fd)
        throw POSIXError(code)
    }
    return fd
}
