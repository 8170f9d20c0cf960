@testable import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

extension ProcessTestCase {
    /// coturn's client that asks for an allocation (Debian's `coturn`).
    static let turnClient = URL(fileURLWithPath: "/usr/bin/turnutils_uclient")

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

    /// Skips the test unless coturn, its client and mosquitto are installed.
    func requireRelayServers() throws {
        for tool in [URL(fileURLWithPath: LoopbackCoturn.executable), Self.turnClient, Self.mosquittoServer]
        where !FileManager.default.isExecutableFile(atPath: tool.path) {
            throw XCTSkip("\(tool.path) is not installed (scripts/install-deps.sh installs coturn and mosquitto)")
        }
    }

    /// A real coturn on the `turnserver.conf` that `baton relay server-config` wrote in
    /// `folder`, as written but bound to 127.0.0.1 (its database and pid file beside it);
    /// ended with the test. Returns once its UDP listener is open on `port`, the one the
    /// configuration names.
    func startCoturn(configuredIn folder: URL, port: UInt16) throws {
        let server = try RunningProcess(executable: URL(fileURLWithPath: LoopbackCoturn.executable), [
            "-c", folder.appendingPathComponent("turnserver.conf").path, "-L", "127.0.0.1",
            "--pidfile", folder.appendingPathComponent("turn.pid").path,
            "--userdb", folder.appendingPathComponent("turndb").path, "--log-file", "stdout", "-v",
        ])
        processes.append(server)
        guard server.waitForLine(containing: "UDP listener opened on: 127.0.0.1:\(port)", timeout: 60) != nil else {
            throw TestHost.HostError.failed("coturn did not open 127.0.0.1:\(port):\n\(server.output)")
        }
    }

    /// turnutils_uclient's output for an allocation at 127.0.0.1:`port` with `credentials`,
    /// relaying to a loopback peer.
    func allocateTURN(port: UInt16, _ credentials: TURNCredentials) throws -> String {
        let run = try runProcess(Self.turnClient, ["-u", credentials.username, "-w", credentials.password, "-p", "\(port)",
                                                   "-n", "1", "-m", "1", "-e", "127.0.0.1", "127.0.0.1"], timeout: 30)
        return run.stdout + run.stderr
    }
}
