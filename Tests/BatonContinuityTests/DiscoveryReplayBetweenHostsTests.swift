@testable import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

/// Issue 9, "Privacy": a DNS-SD token captured from one device and replayed from another host
/// made the group's devices dial the replaying host. Between real hosts (TestHost: each its
/// own avahi-daemon), a token replayed from another address is ignored, while the same record
/// with a token made for the address it comes from is found. Needs root.
final class DiscoveryReplayBetweenHostsTests: TrustTestCase {
    private var hosts: [TestHost] = []
    private var publishers: [RunningProcess] = []

    override func setUpWithError() throws {
        try super.setUpWithError()
        if let reason = TestHost.unavailableReason { throw XCTSkip(reason) }
    }

    override func tearDownWithError() throws {
        for publisher in publishers { publisher.terminate() }
        for host in hosts {
            host.shutDown()
            XCTAssertEqual(host.leftoverProcesses, [], "processes left in \(host.name)")
        }
        hosts = []
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
        XCTAssertNotNil(victim.process.waitForLine(containing: "avahi-daemon answers"), victim.process.output)
        let captured = key.freshToken(port: 4444, addresses: ["10.77.0.9"])
        publishers.append(try attacker.start(["/usr/bin/avahi-publish", "-s", "baton-replay0", "_baton._tcp", "4444",
                                              "v=1", "g=\(captured)"]))
        // Wait until host B's daemon has resolved the replayed service (the node browses the same daemon).
        let browse = try victim.start(["/usr/bin/avahi-browse", "--resolve", "--parsable", "--no-db-lookup", "_baton._tcp"])
        publishers.append(browse)
        XCTAssertNotNil(browse.waitForLine(containing: ";baton-replay0;_baton._tcp;local;host-a.local;10.77.0.1;4444;"), browse.output)
        // Control: a token made for the address it comes from is found (and dialed: nothing listens).
        let honest = key.freshToken(port: 4444, addresses: ["10.77.0.1"])
        publishers.append(try attacker.start(["/usr/bin/avahi-publish", "-s", "baton-honest0", "_baton._tcp", "4444",
                                              "v=1", "g=\(honest)"]))
        XCTAssertNotNil(victim.process.waitForLine(containing: "found a device of the group at 10.77.0.1:4444"), victim.process.output)
        XCTAssertNotNil(browse.waitForLine(containing: ";baton-honest0;_baton._tcp;local;host-a.local;10.77.0.1;4444;"), browse.output)
        victim.process.send("ping")
        XCTAssertNotNil(victim.process.waitForLine(containing: "pong"), victim.process.output)
        XCTAssertEqual(victim.process.output.components(separatedBy: "found a device of the group at 10.77.0.1:4444").count - 1, 1,
                       "only the honest record: \(victim.process.output)")
    }
}
