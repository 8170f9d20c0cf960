import CBatonStreams
import CGLib
import Foundation

/// The IP addresses this machine's interfaces hold now, and the local address a link's TCP
/// connection was made from: a link whose local address has gone (a resumed laptop before its
/// network is back, a new DHCP lease) can carry nothing more — what it sends waits in the
/// kernel for a route and a retransmission (200 ms at the least) — so the node drops it at
/// once rather than ask it (`Dialer.networkChanged`).
///
/// Addresses are compared as their raw bytes (4 for IPv4, 16 for IPv6); an IPv4 address mapped
/// into IPv6 (a dual-stack socket's) is taken as the IPv4 address it is.
struct LocalAddresses: Sendable {
    /// The raw bytes of each address assigned to an interface (`getifaddrs`).
    let addresses: Set<[UInt8]>

    /// The addresses assigned now; nil if the system does not say (`getifaddrs` failed).
    static func current() -> LocalAddresses? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var addresses: Set<[UInt8]> = []
        var entry = list
        while let current = entry {
            if let address = current.pointee.ifa_addr, let bytes = Self.bytes(of: address) { addresses.insert(bytes) }
            entry = current.pointee.ifa_next
        }
        return LocalAddresses(addresses: addresses)
    }

    /// Whether `address` (raw bytes, as `local(of:)` gives) is assigned to an interface.
    func holds(_ address: [UInt8]) -> Bool { addresses.contains(address) }

    /// The local address of the TCP connection under `channel`, as raw bytes; nil over an ICE
    /// stream, or when the socket does not say.
    @MainActor
    static func local(of channel: SecureChannel) -> [UInt8]? {
        guard let socket = baton_tls_base_socket(channel.stream) else { return nil }
        let fd = g_socket_get_fd(socket.assumingMemoryBound(to: GSocket.self))
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { return nil }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bytes(of: $0) }
        }
    }

    /// The raw address of an `AF_INET` or `AF_INET6` socket address (an IPv4-mapped IPv6
    /// address as its IPv4 bytes); nil for any other family.
    static func bytes(of address: UnsafePointer<sockaddr>) -> [UInt8]? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                withUnsafeBytes(of: inet.pointee.sin_addr) { Array($0) }
            }
        case AF_INET6:
            let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                withUnsafeBytes(of: inet6.pointee.sin6_addr) { Array($0) }
            }
            let mappedPrefix: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff]
            return Array(bytes.prefix(12)) == mappedPrefix ? Array(bytes.suffix(4)) : bytes
        default:
            return nil
        }
    }
}
