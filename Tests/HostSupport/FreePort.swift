import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback port nothing uses now: one the system gave a socket of that kind, closed since
/// (another process may take it meanwhile; the servers tests start on it fail then, typed).
public enum FreePort {
    /// A free UDP port on 127.0.0.1 (for coturn's listener).
    public static func udp() throws -> UInt16 { try port(Int32(SOCK_DGRAM.rawValue)) }

    /// A free TCP port on 127.0.0.1 (for a broker's listener).
    public static func tcp() throws -> UInt16 { try port(Int32(SOCK_STREAM.rawValue)) }

    private static func port(_ type: Int32) throws -> UInt16 {
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        return UInt16(bigEndian: address.sin_port)
    }
}
