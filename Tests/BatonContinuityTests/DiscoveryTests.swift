@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Discovery (docs/PROTOCOL.md, "Finding peers"): TXT records carry a protocol version and a blinded,
/// rotating group token — no device names, no stable ids; without avahi-daemon, say so once
/// and use the static peers. (Between real hosts: DiscoveryBetweenHostsTests.)
final class DiscoveryTests: TrustTestCase {
    func testDevicesOfAGroupShareTheDiscoveryKeyAndOtherGroupsDoNot() throws {
        let ada = try GroupAuthority.create(name: "Ada", in: config("ada"))
        let bob = try GroupAuthority.create(name: "Bob", in: config("bob"))
        let laptop = try ada.issueDevice(named: "laptop"), phone = try ada.issueDevice(named: "phone")
        let stranger = try bob.issueDevice(named: "laptop")
        let key = try XCTUnwrap(laptop.discoveryKey)
        XCTAssertEqual(phone.discoveryKey, key)
        XCTAssertNotEqual(stranger.discoveryKey, key)

        let folder = root.appendingPathComponent("laptop")
        try laptop.write(to: folder)
        XCTAssertEqual(mode(folder.appendingPathComponent("discovery.key")), 0o600)
        XCTAssertEqual(try DeviceIdentity.load(from: folder).discoveryKey, key)
        chmod(folder.appendingPathComponent("discovery.key").path, 0o644)
        XCTAssertThrowsError(try DeviceIdentity.load(from: folder)) { error in
            guard case TrustError.keyFileTooOpen = error else { return XCTFail("\(error)") }
        }
    }

    func testTokensAreRecognisedOnlyByTheGroupAndNeverRepeat() throws {
        let key = try XCTUnwrap(try GroupAuthority.create(name: "Ada", in: config("ada")).issueDevice(named: "a").discoveryKey)
        let other = try XCTUnwrap(try GroupAuthority.create(name: "Bob", in: config("bob")).issueDevice(named: "a").discoveryKey)
        let tokens = (0..<50).map { _ in key.freshToken(port: 4242, addresses: ["192.0.2.7"]) }
        XCTAssertEqual(Set(tokens).count, tokens.count, "a fresh salt each time: tokens cannot be linked")
        for token in tokens {
            XCTAssertEqual(token.count, 32)
            XCTAssertTrue(key.recognises(token, port: 4242, address: "192.0.2.7"))
            XCTAssertFalse(other.recognises(token, port: 4242, address: "192.0.2.7"))
        }
        var forged = Array(tokens[0])
        forged[31] = forged[31] == "0" ? "1" : "0"
        for bad in [String(forged), "", "zz", String(tokens[0].dropLast(2)), tokens[0] + "00", tokens[0].uppercased()] {
            XCTAssertFalse(key.recognises(bad, port: 4242, address: "192.0.2.7"), bad)
        }
    }

    func testAServiceRecordCarriesOnlyTheVersionAndTheToken() throws {
        let key = try XCTUnwrap(try GroupAuthority.create(name: "Ada", in: config("ada")).issueDevice(named: "laptop").discoveryKey)
        let other = try XCTUnwrap(try GroupAuthority.create(name: "Bob", in: config("bob")).issueDevice(named: "x").discoveryKey)
        let record = ServiceRecord.fresh(key: key, port: 4242, addresses: ["192.0.2.7"])
        XCTAssertEqual(record.txt.count, 2)
        XCTAssertEqual(record.txt[0], "v=1")
        XCTAssertTrue(record.instanceName.hasPrefix("baton-"))
        XCTAssertFalse(record.instanceName.contains("laptop"))
        XCTAssertNotEqual(ServiceRecord.fresh(key: key, port: 4242, addresses: ["192.0.2.7"]).instanceName, record.instanceName)
        XCTAssertNil(ServiceRecord.refusal(of: record.txt, key: key, port: 4242, address: "192.0.2.7"))
        XCTAssertEqual(ServiceRecord.refusal(of: record.txt, key: other, port: 4242, address: "192.0.2.7"),
                       "not this group's token for 192.0.2.7:4242")
        let token = key.freshToken(port: 4242, addresses: ["192.0.2.7"])
        XCTAssertEqual(ServiceRecord.refusal(of: ["g=\(token)"], key: key, port: 4242, address: "192.0.2.7"), "no protocol version")
        XCTAssertEqual(ServiceRecord.refusal(of: ["v=2", "g=\(token)"], key: key, port: 4242, address: "192.0.2.7"), "protocol version 2")
        XCTAssertEqual(ServiceRecord.refusal(of: ["v=1", "garbage", "g"], key: key, port: 4242, address: "192.0.2.7"),
                       "not this group's token for 192.0.2.7:4242")
    }

    /// Without a system bus (a headless host): the node says once that no avahi-daemon is
    /// reachable and still links through its static peers.
    func testWithoutASystemBusTheNodeSaysSoOnceAndUsesStaticPeers() throws {
        try checkSaysOnceAndLinks(bus: "unix:path=\(root.path)/no-such-bus")
    }

    /// With a real D-Bus but no avahi-daemon on it: the node says once that it waits for the
    /// daemon, and still links through its static peers.
    func testWithABusButNoDaemonTheNodeSaysSoOnceAndUsesStaticPeers() throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let bus = try RunningProcess(executable: URL(fileURLWithPath: "/usr/bin/dbus-daemon"),
                                     ["--session", "--nofork", "--print-address", "--address=unix:path=\(root.path)/bus"])
        defer { bus.terminate() }
        // dbus-daemon's own output: the address it listens on.
        XCTAssertNotNil(bus.waitForLine(containing: "unix:path="), bus.output)
        try checkSaysOnceAndLinks(bus: "unix:path=\(root.path)/bus")
    }

    private func checkSaysOnceAndLinks(bus: String) throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let a = root.appendingPathComponent("A"), b = root.appendingPathComponent("B")
        try authority.issueDevice(named: "A").write(to: a)
        try authority.issueDevice(named: "B").write(to: b)
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": bus]
        // On loopback, discovery forced on: nothing listens beyond this machine.
        let first = try RunningProcess(product: "DeviceProbe", [a.path, "--ok", "--discover"], environment: environment)
        defer { first.terminate() }
        let port = try XCTUnwrap(first.listeningAddress(), first.output).port
        let second = try RunningProcess(product: "DeviceProbe", [b.path, "--ok", "--discover", "--peer", "127.0.0.1:\(port)"],
                                        environment: environment)
        defer { second.terminate() }
        XCTAssertTrue(second.waitForNearby(from: "A"), second.output)
        XCTAssertTrue(first.waitForNearby(from: "B"), first.output)
        for process in [first, second] {
            XCTAssertEqual(process.diagnosticEvents.filter { $0 == .discovery(state: "no-avahi-daemon") }.count, 1, process.output)
            // Said once to the person reading the log, not at each retry: the log itself is the subject here.
            XCTAssertEqual(process.output.components(separatedBy: "no avahi-daemon is reachable").count - 1, 1, process.output)
        }
    }
}
