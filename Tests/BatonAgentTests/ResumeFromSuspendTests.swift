import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 31: a laptop resumed from suspend is linked again at once, through the network-change
/// path, rather than after its own keepalive and a backoff. Between two test hosts (network
/// namespaces); needs root, which CI has; skipped without it.
///
/// A real suspend cannot run here. The stand-in (the bench's, `ColdStartBenchmarks`): B's agent
/// is stopped (SIGSTOP) and host A takes nothing from host B any more (an nftables table in A's
/// network drops what comes from B, and the reset A sends when it gives the link up), for longer
/// than A's link deadline (TCP keepalive and `TCP_USER_TIMEOUT`, `SecureChannel.configureSocket`):
/// A drops the link, as the peer of a sleeping laptop does. B's kernel still takes A's keepalive
/// probes, so B's end of the connection stays as it was, as a suspended machine's does. Then A
/// takes B's packets again, and the resume: B's network is down across the sleep (its address
/// removed while the agent is stopped, as NetworkManager takes it down before a sleep), the
/// agent continues (SIGCONT), and the address comes back (what a network coming up after a
/// resume looks like to GIO's network monitor).
final class ResumeFromSuspendTests: AgentTestHostsCase {
    /// The network down across the sleep: the resumed agent drops its link for its local
    /// address gone (`.localAddressGone`: at once, no ping waiting on a retransmission), and
    /// dials its peer again once its address is back.
    func testAResumedDeviceLinksAgainThroughTheNetworkChange() throws {
        let (a, b, agentA, agentB, agentBProcess) = try linkedPair()
        defer { kill(agentBProcess, SIGCONT) }
        try suspend(agentBProcess, agentA, from: a)
        try b.run(inNetwork: ["/usr/sbin/ip", "address", "del", "10.77.0.2/24", "dev", "veth0"])
        XCTAssertEqual(kill(agentBProcess, SIGCONT), 0)
        // The resumed agent sees its network down: its old link goes for that, not for a ping.
        XCTAssertTrue(agentB.waitFor(.unlinked(peer: "A", reason: .localAddressGone)), agentB.output)
        try b.run(inNetwork: ["/usr/sbin/ip", "address", "add", "10.77.0.2/24", "dev", "veth0"])
        XCTAssertTrue(agentB.waitFor(.linked(peer: "A", dialed: true), occurrence: 2), agentB.output)
        XCTAssertTrue(agentA.waitFor(.linked(peer: "B", dialed: false), occurrence: 2), agentA.output)
    }

    /// A resume whose network kept its address (here: the agent continues, then an address on
    /// a second network is added, a network change as a new route or lease is): the link's
    /// local address is still held, so the agent checks the link (a ping, which A answers with
    /// a reset) and drops it as closed, and dials its peer again — it does not wait for its own
    /// keepalive. (The stand-in's old order — continue, then the address goes and comes back —
    /// took this path or the other as the two raced.)
    func testAResumedDeviceThatKeptItsAddressChecksItsLinkAfterTheNetworkChange() throws {
        let (a, b, agentA, agentB, agentBProcess) = try linkedPair()
        defer { kill(agentBProcess, SIGCONT) }
        try suspend(agentBProcess, agentA, from: a)
        XCTAssertEqual(kill(agentBProcess, SIGCONT), 0)
        try b.run(inNetwork: ["/usr/sbin/ip", "address", "add", "10.78.0.2/24", "dev", "veth0"])
        XCTAssertTrue(agentB.waitFor(.unlinked(peer: "A", reason: .closed)), agentB.output)
        XCTAssertTrue(agentB.waitFor(.linked(peer: "A", dialed: true), occurrence: 2), agentB.output)
        XCTAssertTrue(agentA.waitFor(.linked(peer: "B", dialed: false), occurrence: 2), agentA.output)
        XCTAssertFalse(agentB.diagnosticEvents.contains(.unlinked(peer: "A", reason: .localAddressGone)), agentB.output)
    }

    /// Hosts A and B, each with an agent, linked by B's dial; returns them and the pid of B's
    /// agent (under `nsenter`).
    private func linkedPair() throws -> (TestHost, TestHost, RunningProcess, RunningProcess, Int32) {
        let folders = try devices("A", "B")
        // A neither publishes nor browses (no avahi-daemon on A): only B's dials link them, and
        // B knows where A is only from the address it last linked over.
        let (a, b) = try hostPair(avahiOnA: false)
        try Data("10.77.0.1:7355\n".utf8).write(to: URL(fileURLWithPath: folders[1]).appendingPathComponent("last-linked"))
        let agentA = try a.start(agentCommand(folders[0], listen: "0.0.0.0:7355", socket: socket("a.sock")))
        processes.append(agentA)
        XCTAssertNotNil(agentA.listeningAddress(), agentA.output)
        let agentB = try b.start(agentCommand(folders[1], listen: "0.0.0.0:0", socket: socket("b.sock")))
        processes.append(agentB)
        XCTAssertTrue(agentB.waitFor(.linked(peer: "A", dialed: true)), agentB.output)
        XCTAssertTrue(agentA.waitFor(.linked(peer: "B", dialed: false)), agentA.output)
        let agentBProcess = try XCTUnwrap(Self.firstChild(of: agentB.processIdentifier), "batond under nsenter")
        return (a, b, agentA, agentB, agentBProcess)
    }

    /// The suspend: B's agent (`process`) stops, and host `a` hears nothing from host B until
    /// its agent has dropped the link with the sleeping device; then `a` takes B's packets again.
    private func suspend(_ process: Int32, _ agentA: RunningProcess, from a: TestHost) throws {
        XCTAssertEqual(kill(process, SIGSTOP), 0)
        let rules = root.appendingPathComponent("suspended.nft")
        try Data("""
            table inet suspended {
              chain input { type filter hook input priority 0; policy accept; ip saddr 10.77.0.2 drop; }
              chain output { type filter hook output priority 0; policy accept; ip daddr 10.77.0.2 tcp flags & rst == rst drop; }
            }

            """.utf8).write(to: rules)
        try a.run(inNetwork: ["/usr/sbin/nft", "-f", rules.path])
        // A drops the dead link within its deadline (about 20 s; waited for generously).
        let dropped = agentA.waitForEvent(timeout: 120) { if case .unlinked("B", _) = $0 { true } else { false } }
        XCTAssertNotNil(dropped, "A dropped the link with the sleeping device\n\(agentA.output)")
        try a.run(inNetwork: ["/usr/sbin/nft", "delete", "table", "inet", "suspended"])
    }

    /// The first child of process `pid` (the command `nsenter` runs in the host).
    private static func firstChild(of pid: Int32) -> Int32? {
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").compactMap { Int32($0) }.first
    }
}
