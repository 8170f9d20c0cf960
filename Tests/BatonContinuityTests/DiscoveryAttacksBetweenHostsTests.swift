@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 9, "Privacy" and "Trust", between real hosts (TestHost: each its own avahi-daemon;
/// needs root): a DNS-SD token captured from one device and replayed from another host made
/// the group's devices dial the replaying host — now it is ignored, while the same record with
/// a token made for the address it comes from is found. And a revoked device, which keeps the
/// old discovery key, no longer recognises the group's devices on the network.
final class DiscoveryAttacksBetweenHostsTests: TestHostsOnlyTestCase {
    private var publishers: [RunningProcess] = []

    override func tearDownWithError() throws {
        for publisher in publishers { publisher.terminate() }
        try super.tearDownWithError()
    }

    func testATokenReplayedFromAnotherAddressIsNotDialed() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let b = root.appendingPathComponent("B")
        try authority.issueDevice(named: "B").write(to: b)
        let key = try authority.discoveryKey()
        // Host A (10.77.0.1) is the attacker; it holds a token captured from a device of the
        // group at 10.77.0.9, port 4444.
        let (attacker, victim) = try TestHost.pair(["/bin/sleep", "300"],
                                                   [productURL("DeviceProbe").path, b.path, "--ok", "--listen", "0.0.0.0"])
        hosts = [attacker, victim]
        XCTAssertTrue(victim.process.waitForDiscovery("running"), victim.process.output)
        let captured = key.freshToken(port: 4444, addresses: ["10.77.0.9"])
        publishers.append(try attacker.start(["/usr/bin/avahi-publish", "-s", "baton-replay0", "_baton._tcp", "4444",
                                              "v=1", "g=\(captured)"]))
        // Wait until host B's daemon has resolved the replayed service (the node browses the same
        // daemon): avahi-browse's own output, an onlooker's.
        let browse = try victim.start(["/usr/bin/avahi-browse", "--resolve", "--parsable", "--no-db-lookup", "_baton._tcp"])
        publishers.append(browse)
        XCTAssertNotNil(browse.waitForLine(containing: ";baton-replay0;_baton._tcp;local;host-a.local;10.77.0.1;4444;"), browse.output)
        // Control: a token made for the address it comes from is found (and dialed: nothing listens).
        let honest = key.freshToken(port: 4444, addresses: ["10.77.0.1"])
        publishers.append(try attacker.start(["/usr/bin/avahi-publish", "-s", "baton-honest0", "_baton._tcp", "4444",
                                              "v=1", "g=\(honest)"]))
        XCTAssertTrue(victim.process.waitFor(.deviceFound(address: "10.77.0.1:4444")), victim.process.output)
        XCTAssertNotNil(browse.waitForLine(containing: ";baton-honest0;_baton._tcp;local;host-a.local;10.77.0.1;4444;"), browse.output)
        // The probe answers `ping` once it has handled all before it (its protocol, not a log).
        victim.process.send("ping")
        XCTAssertNotNil(victim.process.waitForLine(containing: "pong"), victim.process.output)
        XCTAssertEqual(victim.process.diagnosticEvents.filter { $0 == .deviceFound(address: "10.77.0.1:4444") }.count, 1,
                       "only the honest record: \(victim.process.output)")
    }

    /// After C's revocation, A (host A) and B (host B) hold the new list and key; C (host B,
    /// revoked, old key) browses the same network. B finds A through Avahi and links; C never
    /// recognises A's tokens.
    func testARevokedDeviceNoLongerRecognisesTheGroupsTokens() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        var folders: [String: URL] = [:]
        for name in ["A", "B", "C"] {
            folders[name] = root.appendingPathComponent(name)
            try authority.issueDevice(named: name).write(to: folders[name]!)
        }
        let list = try authority.revokeDevice(named: "C")
        let key = try authority.discoveryKey()
        for name in ["A", "B"] {
            try list.write(to: folders[name]!.appendingPathComponent("revocations"), options: .atomic)
            try key.bytes.write(to: folders[name]!.appendingPathComponent("discovery.key"), options: .atomic)
            chmod(folders[name]!.appendingPathComponent("discovery.key").path, 0o600)
        }
        let probe = productURL("DeviceProbe").path
        let (a, c) = try TestHost.pair([probe, folders["A"]!.path, "--ok", "--listen", "0.0.0.0"],
                                       [probe, folders["C"]!.path, "--ok", "--listen", "0.0.0.0"])
        hosts = [a, c]
        XCTAssertTrue(c.process.waitForDiscovery("running"), c.process.output)
        let b = try c.start([probe, folders["B"]!.path, "--ok", "--listen", "0.0.0.0"])
        publishers.append(b)
        XCTAssertTrue(b.waitForFoundDevice(at: "10.77.0.1:"), b.output)
        XCTAssertTrue(b.waitForNearby(from: "A"), b.output)
        XCTAssertTrue(a.process.waitForNearby(from: "B"), a.process.output)
        // The probe answers `ping` once it has handled all before it (its protocol, not a log).
        c.process.send("ping")
        XCTAssertNotNil(c.process.waitForLine(containing: "pong"), c.process.output)
        XCTAssertFalse(c.process.diagnosticEvents.contains { if case .deviceFound = $0 { true } else { false } }, c.process.output)
        XCTAssertFalse(c.process.diagnosticEvents.contains { if case .nearbyOffered = $0 { true } else { false } }, c.process.output)
    }
}
