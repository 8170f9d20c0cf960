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

    /// A port on 127.0.0.1 free for TCP and for UDP both (for a TURN server, which listens on
    /// both): a TCP port the system gave that UDP could bind too (20 tries).
    public static func tcpAndUDP() throws -> UInt16 {
        for _ in 0..<20 {
            let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard tcp >= 0 else { throw POSIXError(.EMFILE) }
            defer { close(tcp) }
            guard let port = bindLoopback(tcp) else { continue }
            let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            guard udp >= 0 else { throw POSIXError(.EMFILE) }
            defer { close(udp) }
            if bindLoopback(udp, port: port) != nil { return port }
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// Binds `fd` to 127.0.0.1:`port` (0: one the system picks); the port it is bound to, or
    /// nil if it could not be bound.
    static func bindLoopback(_ fd: Int32, port: UInt16 = 0) -> UInt16? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        return bound ? UInt16(bigEndian: address.sin_port) : nil
    }

    private static func port(_ type: Int32) throws -> UInt16 {
        let fd = socket(AF_INET, type, 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(fd) }
        guard let port = bindLoopback(fd) else { throw POSIXError(.EADDRINUSE) }
        return port
    }
}
