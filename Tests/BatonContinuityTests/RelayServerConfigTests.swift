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
    /// The group, its device, relay settings on loopback ports, and the files `baton relay
    /// server-config` wrote for them (its real output).
    private func configured() throws -> (GroupAuthority, device: URL, settings: RelaySettings, out: URL, turnPort: UInt16, brokerPort: UInt16) {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let device = config("admin").deviceDirectory
        _ = try authority.issueDevice(named: "laptop", writingTo: device)
        let turnPort = try FreePort.tcpAndUDP(), brokerPort = try FreePort.tcpAndUDP()
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

    func testCoturnAcceptsTheConfigAndTheDevicesRESTCredentials() throws {
        try requireRelayServers()
        let (_, device, settings, out, port, _) = try configured()
        try startCoturn(configuredIn: out, port: port)

        let identifier = try DeviceIdentity.load(from: device).identifier
        let good = try allocateTURN(port: port, settings.turnCredentials(for: identifier, validFor: .seconds(600), now: Date()))
        XCTAssertFalse(good.contains("Cannot complete Allocation"), "the device's REST credentials get an allocation: \(good)")
        XCTAssertTrue(good.contains("403"), "a loopback peer is refused (denied-peer-ip): \(good)")

        let expired = try allocateTURN(port: port, settings.turnCredentials(for: identifier, validFor: .seconds(-60), now: Date()))
        XCTAssertTrue(expired.contains("Cannot complete Allocation"), "expired credentials: \(expired)")
        var foreign = settings
        foreign.turnSecret = RelaySettings.generatedSecret()
        let stranger = try allocateTURN(port: port, foreign.turnCredentials(for: identifier, validFor: .seconds(600), now: Date()))
        XCTAssertTrue(stranger.contains("Cannot complete Allocation"), "credentials from another secret: \(stranger)")
    }

    func testMosquittoAcceptsTheConfigAndAdmitsOnlyTheGroupsDevices() throws {
        try requireRelayServers()
        let (_, device, _, out, _, port) = try configured()
        let broker = try startMosquitto(configuredIn: out, port: port)

        let ca = out.appendingPathComponent("baton-group-ca.pem")
        XCTAssertEqual(try mqttConnect(port: port, ca: ca, from: device), "20 02 00 00", broker.output)
        XCTAssertEqual(try mqttConnect(port: port, ca: ca, from: nil), "", "no certificate: " + broker.output)
        let other = try GroupAuthority.create(name: "Eve", in: config("eve"))
        let foreign = root.appendingPathComponent("foreign")
        try other.issueDevice(named: "x").write(to: foreign)
        XCTAssertEqual(try mqttConnect(port: port, ca: ca, from: foreign), "", "another group's device: " + broker.output)
    }
}
