import BatonTestSupport
import Foundation

extension ProcessTestCase {
    /// A real coturn on loopback (`LoopbackCoturn`) taking only TURN REST credentials made
    /// with `secret`, its folder in the test's root; ended with the test. `allowLoopbackPeers`
    /// lets it relay to loopback addresses (two sessions of the test itself). Returns its port.
    func startCoturn(secret: String, allowLoopbackPeers: Bool = true) throws -> UInt16 {
        let coturn = try LoopbackCoturn(secret: secret, folder: root.appendingPathComponent("coturn-\(UUID().uuidString.prefix(8))"),
                                        allowLoopbackPeers: allowLoopbackPeers)
        processes.append(coturn.process)
        return coturn.port
    }

    /// A loopback UDP port nothing uses now (`FreePort.udp()`).
    static func freeUDPPort() throws -> UInt16 { try FreePort.udp() }
}
