@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 26, "Attacks it must hold": strangers that reconnect the moment they are dropped,
/// from one address or many, at the rate the loop allows, cannot keep a new device out of a
/// real agent (`batond`), and the agent's descriptors stay bounded far below its limit. The
/// new device links (in this process) while the attack runs; the time it took is printed.
final class ReconnectingStrangersTests: ProcessTestCase {
    /// What one attack did: how long the new device took to link, the most descriptors the
    /// agent held, and the strangers' connections.
    private struct Figures {
        var linked: Duration
        var descriptors: (idle: Int, most: Int)
        var memoryKiB: (idle: Int, after: Int)
        var connections: Int
        var closedByListener: Int
        /// The dials of device B that failed before it linked (each followed by a redial).
        var failedDials: Int
    }

    /// Starts the agent of device A, lets `count` strangers from `sources` attack its device
    /// port for a second, then has device B (of the same group) link to it while the attack
    /// goes on; returns the figures.
    private func attack(count: Int, from sources: [String], warmUp: Duration = .seconds(1), file: StaticString = #filePath,
                        line: UInt = #line) throws -> Figures {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let a = root.appendingPathComponent("A")
        try authority.issueDevice(named: "A").write(to: a)
        let b = try authority.issueDevice(named: "B")
        // Short (a Unix socket path has at most 107 bytes) and private, as a runtime directory.
        let run = "/tmp/baton-strangers-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: run, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        addTeardownBlock { try? FileManager.default.removeItem(atPath: run) }
        let socket = run + "/a.sock"
        let agent = try RunningProcess(product: "batond", ["--device", a.path, "--socket", socket, "--listen", "127.0.0.1:0",
                                                           "--no-notifications"])
        processes.append(agent)
        let address = try XCTUnwrap(agent.listeningAddress(), agent.output, file: file, line: line)
        let pid = agent.processIdentifier
        let idle = try XCTUnwrap(openDescriptors(of: pid)), idleMemory = try XCTUnwrap(residentKiB(of: pid))
        return try MainActor.assumeIsolated { () throws -> Figures in
            var most = idle
            // A measurement, not a wait: the agent's descriptors, ten times a second.
            let sampling = MainLoop.every(.milliseconds(100)) {
                most = max(most, openDescriptors(of: pid) ?? 0)
                return .again
            }
            defer { sampling.cancel() }
            let strangers = ReconnectingStrangers(count: count, to: address.port, from: sources)
            defer { strangers.stop() }
            _ = MainLoop.run(until: { strangers.connections >= count }, timeout: .seconds(10))
            _ = MainLoop.run(until: { false }, timeout: warmUp)  // the attack is on
            let before = strangers.connections
            let started = ContinuousClock.now
            let node = try ContinuityNode(identity: b, staticPeers: [address])
            try node.start(host: "127.0.0.1")
            defer { node.stop() }
            let linked = MainLoop.run(until: { !node.connectedPeers.isEmpty }, timeout: .seconds(15))
            let took = ContinuousClock.now - started
            XCTAssertTrue(linked, "device B did not link within 15 s under attack; the agent says:\n\(agent.output)", file: file, line: line)
            XCTAssertGreaterThan(strangers.connections, before, "the strangers were still connecting", file: file, line: line)
            XCTAssertTrue(agent.isRunning, agent.output, file: file, line: line)
            return Figures(linked: took, descriptors: (idle, most), memoryKiB: (idleMemory, residentKiB(of: pid) ?? 0),
                           connections: strangers.connections, closedByListener: strangers.closedByListener,
                           failedDials: node.recentFailures.failures.count)
        }
    }

    private func report(_ name: String, _ figures: Figures) {
        print("\(name): B linked after \(figures.linked); agent descriptors idle \(figures.descriptors.idle), "
              + "most \(figures.descriptors.most); RSS \(figures.memoryKiB.idle) → \(figures.memoryKiB.after) KiB; "
              + "\(figures.connections) stranger connections, \(figures.closedByListener) closed by the agent; "
              + "\(figures.failedDials) failed dials of B")
    }

    /// 72 strangers from 9 addresses (8 each, the cap per address; more than the total cap).
    func testStrangersReconnectingFromManyAddressesCannotKeepANewDeviceOut() throws {
        let figures = try attack(count: 72, from: (2...10).map { "127.0.0.\($0)" })
        report("72 strangers from 9 addresses", figures)
        XCTAssertLessThan(figures.descriptors.most, figures.descriptors.idle + 200, "descriptors bounded by the caps")
    }

    /// 8 strangers from the new device's own address (the cap per address).
    func testStrangersReconnectingFromTheNewDevicesOwnAddressCannotKeepItOut() throws {
        let figures = try attack(count: 8, from: ["127.0.0.1"])
        report("8 strangers from B's address", figures)
        XCTAssertLessThan(figures.descriptors.most, figures.descriptors.idle + 200, "descriptors bounded by the caps")
    }

    /// 8 strangers from the new device's own address, the device dialing just as they have
    /// connected: every place of its address is taken by a connection still within its grace,
    /// so the device's connection is on probation, proves itself there and takes a place.
    func testStrangersJustConnectedFromTheNewDevicesOwnAddressDelayItOnlyUntilItsRedial() throws {
        let figures = try attack(count: 8, from: ["127.0.0.1"], warmUp: .zero)
        report("8 strangers from B's address, B dialing as they connect", figures)
        XCTAssertLessThan(figures.descriptors.most, figures.descriptors.idle + 200, "descriptors bounded by the caps")
    }

    /// 200 strangers from one address, reconnecting as fast as they are closed: the agent
    /// closes what does not fit at once, so its descriptors stay bounded by its caps (64
    /// waiting connections and the links), far below its limit, and its memory does not grow
    /// with the attack.
    func testTwoHundredStrangersFromOneAddressHoldFewDescriptorsAndKeepNoDeviceOut() throws {
        let figures = try attack(count: 200, from: ["127.0.0.2"])
        report("200 strangers from one address", figures)
        XCTAssertLessThan(figures.descriptors.most, figures.descriptors.idle + 200, "descriptors bounded by the caps")
        XCTAssertGreaterThan(figures.closedByListener, 200, "the agent closed what did not fit, and they reconnected")
        XCTAssertLessThan(figures.memoryKiB.after, 2 * figures.memoryKiB.idle + 20_000, "memory did not grow with the attack")
    }

    /// 200 strangers from the new device's own address: more than its places and the places
    /// on probation, so they reconnect as fast as the agent closes them, and probation turns
    /// over every few milliseconds. The device still links on its first dial (issue 26: "a new
    /// device links within 2 s during each attack"; a redial comes after 1 s): the agent sends
    /// the gate's nonce as it accepts, and never closes a connection whose answer has come to
    /// make room on probation, so the device's answer is checked before the churn reaches it.
    /// (Before, in 11 runs, 3 linked only after one or two redials, 1.2–3.2 s.) The time is printed.
    func testTwoHundredStrangersFromTheNewDevicesOwnAddressStillLetItLink() throws {
        let figures = try attack(count: 200, from: ["127.0.0.1"])
        report("200 strangers from B's address", figures)
        XCTAssertLessThan(figures.descriptors.most, figures.descriptors.idle + 200, "descriptors bounded by the caps")
        XCTAssertEqual(figures.failedDials, 0, "device B linked on its first dial, with no redial")
    }
}
