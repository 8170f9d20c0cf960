import BatonTestSupport
import Foundation
import XCTest

extension ProcessTestCase {
    /// A real coturn (Debian's `coturn`) on loopback, taking only TURN REST credentials made with
    /// `secret` (`use-auth-secret`), its relayed ports in a range of 100 picked from its own port;
    /// ended with the test. `allowLoopbackPeers` lets it relay to loopback addresses (two
    /// sessions of the test itself). Returns its port.
    func startCoturn(secret: String, allowLoopbackPeers: Bool = true) throws -> UInt16 {
        let port = try Self.freeUDPPort()
        let relayBase = UInt16(40_000 + Int(port % 200) * 100)
        let folder = root.appendingPathComponent("coturn")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let coturn = try RunningProcess(executable: URL(fileURLWithPath: "/usr/bin/turnserver"), [
            "-n", "--listening-ip", "127.0.0.1", "--listening-port", "\(port)", "--relay-ip", "127.0.0.1",
            "--min-port", "\(relayBase)", "--max-port", "\(relayBase + 99)",
            "--use-auth-secret", "--static-auth-secret", secret, "--realm", "baton",
            "--no-tls", "--no-dtls", "--no-cli", "--no-software-attribute",
            "--log-file", "stdout", "--userdb", folder.appendingPathComponent("turndb").path,
            "--pidfile", folder.appendingPathComponent("turnserver.pid").path,
        ] + (allowLoopbackPeers ? ["--allow-loopback-peers"] : []))
        processes.append(coturn)
        // Its UDP listeners are made before this line (a STUN request before it is retransmitted anyway).
        XCTAssertNotNil(coturn.waitForLine(containing: "Total General servers", timeout: 30), coturn.output)
        return port
    }

    /// A loopback UDP port nothing uses now.
    static func freeUDPPort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
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
