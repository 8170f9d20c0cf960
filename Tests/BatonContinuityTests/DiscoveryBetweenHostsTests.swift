@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Real hosts (`TestHost`): two network namespaces joined by veth, each with its own
/// `dbus-daemon --system` and `avahi-daemon`, the devices finding each other through Avahi
/// with no static peers. Needs root, which CI has; skipped
/// with the reason printed elsewhere.
final class DiscoveryBetweenHostsTests: TestHostsOnlyTestCase {
    private func startPair(_ commandA: [String], _ commandB: [String], avahiOnA: Bool = true) throws -> (TestHost, TestHost) {
        let (a, b) = try TestHost.pair(commandA, commandB, avahiOnA: avahiOnA)
        hosts = [a, b]
        return (a, b)
    }

    /// The seed "Implementing Handoff in Your App", between two hosts: Shapes on host A
    /// advertises a shape, Shapes on host B finds A through Avahi, continues it, and A is told
    /// (`userActivityWasContinued`). Both end by themselves.
    func testShapesOnTwoHostsFindEachOtherThroughAvahiAndHandOff() throws {
        let paths = try devices("A", "B")
        let shapes = productURL("baton-shapes").path
        let (a, b) = try startPair([shapes, "--device", paths[0], "--listen", "0.0.0.0:0", "--create", "triangle"],
                                   [shapes, "--device", paths[1], "--listen", "0.0.0.0:0", "--continue-nearby"])
        XCTAssertTrue(b.process.waitForNearby(from: "A"), b.process.output)
        // What Shapes shows its user: the shape restored from the payload.
        XCTAssertNotNil(b.process.waitForLine(containing: "restoreUserActivityState: created a triangle"), b.process.output)
        XCTAssertTrue(a.process.waitForContinuedElsewhere(), a.process.output)
        XCTAssertEqual(a.waitForExit(), 0, a.process.output)
        XCTAssertEqual(b.waitForExit(), 0, b.process.output)
        // No static peers were given: they found each other through Avahi, and only the one whose
        // service name sorts first dialed, so there was one connection, never two to reconcile.
        let both = a.process.diagnosticEvents + b.process.diagnosticEvents
        XCTAssertTrue(both.contains { if case .deviceFound(let address) = $0 { address.hasPrefix("10.77.0.") } else { false } },
                      a.process.output + b.process.output)
        XCTAssertEqual(both.filter { if case .linked(_, dialed: true) = $0 { true } else { false } }.count, 1,
                       a.process.output + b.process.output)
        for host in [a, b] {
            XCTAssertEqual(host.process.diagnosticEvents.filter { if case .linked = $0 { true } else { false } }.count, 1,
                           "one link, never replaced: \(host.process.output)")
        }
    }

    /// `baton nearby` on host B, with no peers configured, finds the device on host A through
    /// Avahi (browsing only), lists what it advertises, and ends by itself once A has answered.
    func testBatonNearbyFindsTheGroupThroughAvahi() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let a = root.appendingPathComponent("A")
        try authority.issueDevice(named: "A").write(to: a)
        let cli = config("cli")
        try authority.issueDevice(named: "B").write(to: cli.deviceDirectory)
        let (hostA, hostB) = try startPair([productURL("DeviceProbe").path, a.path, "--ok", "--listen", "0.0.0.0"],
                                           ["/bin/sh", "-c", "read -r go && exec \"$0\" nearby --config \"$1\"",
                                            productURL("baton").path, cli.url.path])
        XCTAssertEqual(hostA.process.publishedServiceName()?.hasPrefix("baton-"), true, hostA.process.output)
        hostB.process.send("go")
        XCTAssertEqual(hostB.waitForExit(), 0, hostB.process.output)
        // What `baton nearby` prints for its user: the device, the title, the type, the app.
        XCTAssertTrue(hostB.process.output.contains("A\t\"Probe\"\tcom.example.probe.editing\tcom.example.probe"), hostB.process.output)
        XCTAssertNil(hostB.process.publishedServiceName(timeout: 0), "baton nearby only browses")
        XCTAssertTrue(hostB.process.waitForDiscovery("browsing"), hostB.process.output)
    }

    /// A device whose host has a system bus but no avahi-daemon yet says so once, and is
    /// found as soon as the daemon starts (Avahi's "daemon restarts" rule: AVAHI_CLIENT_NO_FAIL).
    func testDiscoveryStartsWhenTheDaemonAppears() throws {
        let paths = try devices("A", "B")
        let probe = productURL("DeviceProbe").path
        let (a, b) = try startPair([probe, paths[0], "--ok", "--listen", "0.0.0.0"],
                                   [probe, paths[1], "--ok", "--listen", "0.0.0.0"], avahiOnA: false)
        XCTAssertTrue(a.process.waitForDiscovery("no-avahi-daemon"), a.process.output)
        try a.startAvahi()
        XCTAssertTrue(a.process.waitForDiscovery("running"), a.process.output)
        XCTAssertTrue(b.process.waitForNearby(from: "A"), b.process.output)
        XCTAssertEqual(a.process.diagnosticEvents.filter { $0 == .discovery(state: "no-avahi-daemon") }.count, 1, a.process.output)
    }

    /// handoff-programming-guide, "Using Continuation Streams", with the link taken down while
    /// a large answer is streaming: the continuing side's stream ends with an error (dead-peer
    /// detection: keepalive and TCP_USER_TIMEOUT, about 20 s) instead of waiting forever, and
    /// both apps keep running.
    func testALinkDroppedMidStreamEndsTheStreamWithAnError() throws {
        let paths = try devices("A", "B")
        let probe = productURL("DeviceProbe").path
        let (a, b) = try startPair([probe, paths[0], "--ok", "--streams", "--listen", "0.0.0.0"],
                                   [probe, paths[1], "--ok", "--listen", "0.0.0.0"])
        XCTAssertTrue(b.process.waitForNearby(from: "A"), b.process.output)
        b.process.send("continue 10")
        XCTAssertTrue(b.process.waitForContinued(from: "A"), b.process.output)
        b.process.send("streams \(4 * 1024 * 1024 * 1024)")
        // The probe's answers to its commands (its protocol on standard output, not a log).
        XCTAssertNotNil(b.process.waitForLine(containing: "stream receiving"), b.process.output)
        try a.run(inNetwork: ["/usr/sbin/ip", "link", "set", "veth0", "down"])
        XCTAssertNotNil(b.process.waitForLine(containing: "stream failed", timeout: 60), b.process.output)
        XCTAssertFalse(b.process.output.contains("stream received"))
        a.process.send("ping")
        b.process.send("ping")
        XCTAssertNotNil(a.process.waitForLine(containing: "pong"), a.process.output)
        XCTAssertNotNil(b.process.waitForLine(containing: "pong"), b.process.output)
    }

    /// What an onlooker on the network sees, read with Avahi's own `avahi-browse`: the service
    /// carries only the protocol version and a group token (no device name, no stable id), and
    /// both its name and token change at each rotation.
    func testTheServiceCarriesOnlyAVersionAndARotatingToken() throws {
        let paths = try devices("laptop", "phone")
        let probe = productURL("DeviceProbe").path
        let (_, b) = try startPair([probe, paths[0], "--ok", "--listen", "0.0.0.0", "--rotate", "1"],
                                   [probe, paths[1], "--ok", "--listen", "0.0.0.0"])
        XCTAssertTrue(b.process.waitForNearby(from: "laptop"), b.process.output)
        // What an onlooker sees: avahi-browse's own output.
        let browse = try b.start(["/usr/bin/avahi-browse", "--resolve", "--parsable", "--no-db-lookup", "_baton._tcp"])
        defer { browse.terminate() }
        // Resolved entries of host A (10.77.0.1): the first, then one after a rotation.
        let first = try XCTUnwrap(browse.waitForLine(containing: ";10.77.0.1;"), browse.output)
        let fields = first.split(separator: ";", omittingEmptySubsequences: false)
        XCTAssertEqual(fields.count, 10, first)
        let txt = String(fields[9])
        XCTAssertTrue(txt.contains("\"v=1\""), txt)
        XCTAssertNotNil(txt.range(of: #""g=[0-9a-f]{32}""#, options: .regularExpression), txt)
        XCTAssertEqual(txt.split(separator: " ").count, 2, "only v and g: \(txt)")
        XCTAssertFalse(first.contains("laptop"), "no device name on the network: \(first)")
        XCTAssertTrue(fields[3].hasPrefix("baton-"), first)
        let second = try XCTUnwrap(browse.waitForLine(containing: ";10.77.0.1;", occurrence: 2), browse.output)
        let rotated = second.split(separator: ";", omittingEmptySubsequences: false)
        XCTAssertNotEqual(rotated[3], fields[3], "a new instance name")
        XCTAssertNotEqual(rotated[9], fields[9], "a new token")
    }

    /// A link dropped (`ip link set veth0 down`) while a fetch is pending: the continuation
    /// ends in didFailToContinue within its bound (remote application timed out: nothing tells
    /// a device that a cable was pulled), both apps keep running, and once the link is back a
    /// continuation succeeds over it.
    func testALinkDroppedWhileAFetchIsPendingTimesOutAndRecovers() throws {
        let paths = try devices("A", "B")
        let probe = productURL("DeviceProbe").path
        let (a, b) = try startPair([probe, paths[0], "--ok", "--listen", "0.0.0.0"],
                                   [probe, paths[1], "--ok", "--listen", "0.0.0.0"])
        XCTAssertTrue(b.process.waitForNearby(from: "A"), b.process.output)
        try a.run(inNetwork: ["/usr/sbin/ip", "link", "set", "veth0", "down"])
        b.process.send("continue 3")
        let timedOut = CocoaError.Code.userActivityRemoteApplicationTimedOut.rawValue
        // The probe's report of its delegate's didFailToContinueUserActivityWithType and the code it got;
        // `ping` is answered `pong` (the probe's protocol): both apps still run.
        XCTAssertNotNil(b.process.waitForLine(containing: "failed \(timedOut)", timeout: 20), b.process.output)
        a.process.send("ping")
        b.process.send("ping")
        XCTAssertNotNil(a.process.waitForLine(containing: "pong"), a.process.output)
        XCTAssertNotNil(b.process.waitForLine(containing: "pong"), b.process.output)
        try a.run(inNetwork: ["/usr/sbin/ip", "link", "set", "veth0", "up"])
        b.process.send("continue 20")
        XCTAssertTrue(b.process.waitForContinued(from: "A"), b.process.output + "\non A:\n" + a.process.output)
        XCTAssertEqual(b.process.diagnosticEvents.filter { if case .continued = $0 { true } else { false } }.count, 1,
                       "the late reply was not taken: \(b.process.output)")
    }
}
