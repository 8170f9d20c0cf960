import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// A laptop that roams (its address goes, then comes back) relinks to a device it found through
/// Avahi as soon as that device's address answers again, without waiting for Avahi: its
/// avahi-daemon forgot the device when the address went, and the node redials where it last
/// reached it (`RememberedAddresses`), with the usual back-off. Between two test hosts (network
/// namespaces, each with its own avahi-daemon); needs root, which CI has; skipped without it.
final class RedialAfterAddressChangeTests: AgentTestHostsCase {
    func testARoamingDeviceRedialsWhereItLastReachedItsPeerAfterAvahiForgotIt() throws {
        let folders = try devices("A", "B")
        let batond = productURL("batond").path
        let empty = root.appendingPathComponent("no-config").path
        func agent(_ folder: String, _ socket: String) -> [String] {
            ["/usr/bin/env", "XDG_CONFIG_HOME=\(empty)", batond, "--device", folder, "--listen", "0.0.0.0:7355", "--socket", socket,
             "--no-notifications"]
        }
        let (a, b) = try TestHost.pair(["/bin/sh", "-c", "read -r end"], ["/bin/sh", "-c", "read -r end"])
        hosts = [a, b]
        let agentA = try a.start(agent(folders[0], socket("a.sock")))
        processes.append(agentA)
        let agentB = try b.start(agent(folders[1], socket("b.sock")))
        processes.append(agentB)
        XCTAssertTrue(agentB.waitForLink(with: "A"), agentB.output + agentA.output)
        XCTAssertTrue(agentA.waitForLink(with: "B"), agentA.output)
        // B found A through Avahi (whichever of the two dialed).
        XCTAssertTrue(agentB.waitForFoundDevice(at: "10.77.0.1:7355"), agentB.output)

        // From now on B (the laptop) hears no mDNS, so only what it remembers can tell it where A
        // is; and takes no new connection, so only its own dials can link the two again.
        let roaming = root.appendingPathComponent("roaming.nft")
        try Data("""
            table inet roaming {
              chain input { type filter hook input priority 0; policy accept; udp dport 5353 drop; tcp flags & (syn | ack) == syn drop; }
              chain output { type filter hook output priority 0; policy accept; udp dport 5353 drop; }
            }

            """.utf8).write(to: roaming)
        try b.run(inNetwork: ["/usr/sbin/nft", "-f", roaming.path])

        // B's address goes: its link is dropped for it at once, and its avahi-daemon forgets A.
        try b.run(inNetwork: ["/usr/sbin/ip", "address", "del", "10.77.0.2/24", "dev", "veth0"])
        XCTAssertTrue(agentB.waitFor(.unlinked(peer: "A", reason: .localAddressGone)), agentB.output)
        XCTAssertNotNil(agentB.waitForEvent { if case .deviceLost(let address) = $0 { address.hasPrefix("10.77.0.1:") } else { false } },
                        "B's discovery forgot A\n\(agentB.output)")

        // A refuses B's new connections for now, so the dial B makes when its address comes back
        // (the network changed) fails: only a redial after that can link them.
        let away = root.appendingPathComponent("away.nft")
        try Data("""
            table inet away {
              chain input { type filter hook input priority 0; policy accept; ip saddr 10.77.0.2 tcp flags & (syn | ack) == syn reject with tcp reset; }
            }

            """.utf8).write(to: away)
        try a.run(inNetwork: ["/usr/sbin/nft", "-f", away.path])
        try b.run(inNetwork: ["/usr/sbin/ip", "address", "add", "10.77.0.2/24", "dev", "veth0"])
        // A gives its side of the old link up (B's close reaches it now, or its keepalive ends it).
        XCTAssertTrue(agentA.waitForUnlink(from: "B", timeout: 120), agentA.output)

        // A answers again: B redials where it last reached A, and links.
        try a.run(inNetwork: ["/usr/sbin/nft", "delete", "table", "inet", "away"])
        let relinked = agentB.waitForEvent(timeout: 90, occurrence: 2) { if case .linked("A", _) = $0 { true } else { false } }
        XCTAssertEqual(relinked, .linked(peer: "A", dialed: true), agentB.output)
        XCTAssertNotNil(agentA.waitForEvent(occurrence: 2) { if case .linked("B", _) = $0 { true } else { false } }, agentA.output)
    }
}
