@testable import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

/// Issue 29: what `baton relay server-config` writes is accepted by the real servers, on
/// loopback with free ports: coturn starts on its turnserver.conf, gives a TURN allocation to
/// the REST credentials a device makes from the group's secret, refuses expired or foreign
/// ones, and refuses to relay to a private (here loopback) peer; mosquitto starts on its
/// baton.conf and admits over TLS 1.3 a device of the group (CONNACK) but neither a client
/// without a certificate nor a device of another group. The files' folder and the bind address
/// are substituted (and `user root`, since the test runs as root); nothing else is.
final class RelayServerConfigTests: ProcessTestCase {
    private static let turnserver = URL(fileURLWithPath: "/usr/bin/turnserver")
    private static let uclient = URL(fileURLWithPath: "/usr/bin/turnutils_uclient")
    private static let mosquitto = URL(fileURLWithPath: "/usr/sbin/mosquitto")

    /// A loopback port nothing listened on a moment ago, for TCP and UDP.
    private func freePort() throws -> UInt16 {
        for _ in 0..<20 {
            let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(tcp) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(tcp, $0, length) == 0 && getsockname(tcp, $0, &length) == 0 }
            }
            guard bound else { continue }
            let udp = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
            defer { close(udp) }
            let udpFree = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(udp, $0, length) == 0 }
            }
            if udpFree { return UInt16(bigEndian: address.sin_port) }
        }
        throw XCTSkip("no free loopback port")
    }

    private func requireServers() throws {
        for tool in [Self.turnserver, Self.uclient, Self.mosquitto] where !FileManager.default.isExecutableFile(atPath: tool.path) {
            throw XCTSkip("\(tool.path) is not installed (scripts/install-deps.sh installs coturn and mosquitto)")
        }
    }

    /// The group, its device, relay settings on loopback ports, and the files `baton relay
    /// server-config` wrote for them (its real output).
    private func configured() throws -> (GroupAuthority, device: URL, settings: RelaySettings, out: URL, turnPort: UInt16, brokerPort: UInt16) {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let device = config("admin").deviceDirectory
        _ = try authority.issueDevice(named: "laptop", writingTo: device)
        let turnPort = try freePort(), brokerPort = try freePort()
        let settings = try authority.setRelaySettings(
            RelaySettings(turn: [try TURNServer(uri: "turn:127.0.0.1:\(turnPort)")],
                          broker: try BrokerAddress(uri: "mqtts://127.0.0.1:\(brokerPort)"), turnSecret: RelaySettings.generatedSecret()),
            updating: [device])
        let out = root.appendingPathComponent("server")
        let run = try runProduct("baton", ["relay", "server-config", "--out", out.path, "--allow-peer", "198.51.100.7-198.51.100.9",
                                          "--config", config("admin").url.path], timeout: 30)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertFalse(run.stdout.contains(String(decoding: settings.turnSecret!, as: UTF8.self)), "the secret is not printed")
        XCTAssertTrue(run.stdout.contains("scp \(out.path)/turnserver.conf"), run.stdout)
        XCTAssertEqual(mode(out.appendingPathComponent("turnserver.conf")), 0o600)
        let coturn = try String(contentsOf: out.appendingPathComponent("turnserver.conf"), encoding: .utf8)
        XCTAssertTrue(coturn.contains("\nallowed-peer-ip=198.51.100.7-198.51.100.9\n"), coturn)
        let refused = try runProduct("baton", ["relay", "server-config", "--out", root.appendingPathComponent("x").path,
                                               "--allow-peer", "10.0.0.1-::1", "--config", config("admin").url.path], timeout: 30)
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("10.0.0.1-::1"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("x").path), "nothing written")
        XCTAssertEqual(mode(out.appendingPathComponent("baton-broker-key.pem")), 0o600)
        return (authority, device, settings, out, turnPort, brokerPort)
    }

    /// With servers at IPv6 addresses, every `scp` line `baton relay server-config` prints
    /// brackets the address (`scp` reads `root@2001:db8::1:/etc/…` as another host and path).
    func testTheCopyLinesBracketAnIPv6Host() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        _ = try authority.issueDevice(named: "laptop", writingTo: config("admin").deviceDirectory)
        try authority.setRelaySettings(
            RelaySettings(turn: [try TURNServer(uri: "turn:[2001:db8::1]:3478")], broker: try BrokerAddress(uri: "mqtts://[2001:db8::2]:8883"),
                          turnSecret: RelaySettings.generatedSecret()))
        let out = root.appendingPathComponent("server")
        let run = try runProduct("baton", ["relay", "server-config", "--out", out.path, "--config", config("admin").url.path], timeout: 30)
        XCTAssertEqual(run.status, 0, run.stderr)
        let copies = run.stdout.split(separator: "\n").filter { $0.hasPrefix("scp ") }
        XCTAssertEqual(copies.count, 3, run.stdout)
        XCTAssertTrue(copies[0].hasSuffix(" root@[2001:db8::1]:/etc/turnserver.conf"), "\(copies[0])")
        for copy in copies.dropFirst() {
            XCTAssertTrue(copy.contains(" root@[2001:db8::2]:/etc/mosquitto/"), "\(copy)")
        }
    }

    /// turnutils_uclient's output for an allocation at `port` with `credentials`, relaying to a loopback peer.
    private func allocate(port: UInt16, _ credentials: TURNCredentials) throws -> String {
        let run = try runProcess(Self.uclient, ["-u", credentials.username, "-w", credentials.password, "-p", "\(port)",
                                                "-n", "1", "-m", "1", "-e", "127.0.0.1", "127.0.0.1"], timeout: 30)
        return run.stdout + run.stderr
    }

    func testCoturnAcceptsTheConfigAndTheDevicesRESTCredentials() throws {
        try requireServers()
        let (_, device, settings, out, port, _) = try configured()
        let server = try RunningProcess(executable: Self.turnserver, [
            "-c", out.appendingPathComponent("turnserver.conf").path, "-L", "127.0.0.1", "--pidfile", out.appendingPathComponent("turn.pid").path,
            "--userdb", out.appendingPathComponent("turndb").path, "--log-file", "stdout", "-v",
        ])
        processes.append(server)
        XCTAssertNotNil(server.waitForLine(containing: "UDP listener opened on: 127.0.0.1:\(port)", timeout: 60), server.output)

        let identifier = try DeviceIdentity.load(from: device).identifier
        let good = try allocate(port: port, settings.turnCredentials(for: identifier, validFor: .seconds(600), now: Date()))
        XCTAssertFalse(good.contains("Cannot complete Allocation"), "the device's REST credentials get an allocation: \(good)")
        XCTAssertTrue(good.contains("403"), "a loopback peer is refused (denied-peer-ip): \(good)")

        let expired = try allocate(port: port, settings.turnCredentials(for: identifier, validFor: .seconds(-60), now: Date()))
        XCTAssertTrue(expired.contains("Cannot complete Allocation"), "expired credentials: \(expired)")
        var foreign = settings
        foreign.turnSecret = RelaySettings.generatedSecret()
        let stranger = try allocate(port: port, foreign.turnCredentials(for: identifier, validFor: .seconds(600), now: Date()))
        XCTAssertTrue(stranger.contains("Cannot complete Allocation"), "credentials from another secret: \(stranger)")
    }

    /// What the broker answers an MQTT CONNECT then DISCONNECT over TLS 1.3 from `certificate`
    /// (nil: none), as hex bytes (CONNACK accepted: `20 02 00 00`).
    private func connect(port: UInt16, ca: URL, certificate: (cert: URL, key: URL)?) throws -> String {
        var client = "openssl s_client -connect 127.0.0.1:\(port) -tls1_3 -CAfile '\(ca.path)' -verify_return_error -verify_ip 127.0.0.1 -quiet -ign_eof"
        if let certificate { client += " -cert '\(certificate.cert.path)' -key '\(certificate.key.path)'" }
        let script = "printf '\\020\\014\\000\\004MQTT\\004\\002\\000\\074\\000\\000\\340\\000' | \(client) 2>/dev/null | od -An -tx1"
        let run = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script], timeout: 30)
        return run.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    func testMosquittoAcceptsTheConfigAndAdmitsOnlyTheGroupsDevices() throws {
        try requireServers()
        let (_, device, _, out, _, port) = try configured()
        let text = try String(contentsOf: out.appendingPathComponent("baton.conf"), encoding: .utf8)
            .replacingOccurrences(of: RelayServerConfig.mosquittoCertificateFolder, with: out.path)
            .replacingOccurrences(of: "listener \(port)\n", with: "listener \(port) 127.0.0.1\n") + "user root\n"
        let conf = out.appendingPathComponent("test-mosquitto.conf")
        try Data(text.utf8).write(to: conf)
        let broker = try RunningProcess(executable: Self.mosquitto, ["-c", conf.path, "-v"])
        processes.append(broker)
        XCTAssertNotNil(broker.waitForLine(containing: "running", timeout: 60), broker.output)

        let ca = out.appendingPathComponent("baton-group-ca.pem")
        let own = (device.appendingPathComponent("certificate.pem"), device.appendingPathComponent("key.pem"))
        XCTAssertEqual(try connect(port: port, ca: ca, certificate: own), "20 02 00 00", broker.output)
        XCTAssertEqual(try connect(port: port, ca: ca, certificate: nil), "", "no certificate: " + broker.output)
        let other = try GroupAuthority.create(name: "Eve", in: config("eve"))
        let foreign = root.appendingPathComponent("foreign")
        try other.issueDevice(named: "x").write(to: foreign)
        XCTAssertEqual(try connect(port: port, ca: ca, certificate: (foreign.appendingPathComponent("certificate.pem"),
                                                                      foreign.appendingPathComponent("key.pem"))),
                       "", "another group's device: " + broker.output)
    }
}
