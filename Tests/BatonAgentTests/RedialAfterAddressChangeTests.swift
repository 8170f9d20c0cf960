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
///
/// B is the laptop, A its peer. Once they are linked, B hears no mDNS (so only what it remembers
/// tells it where A is) and takes no new connection (so only its own dials can link them again);
/// its address goes and comes back while A refuses its connections, so the dial B makes at that
/// network change fails: only a redial after it can link them.
final class RedialAfterAddressChangeTests: AgentTestHostsCase {
    /// B dialed A: it redials the address it dialed. (That address is also the one B last
    /// linked over, which it dials once at the network change; when B's agent handles that
    /// change only after A answers again, that dial links them, and this case would pass
    /// without the redial too: the next case fails without it every time.)
    func testARoamingDeviceRedialsThePeerItDialedAfterAvahiForgotIt() throws {
        try roam(peerDialsFirst: false)
    }

    /// A dialed B: B knew where A is only from Avahi, which forgot it; it redials the address
    /// A published, remembered when the link dropped.
    func testARoamingDeviceRedialsThePeerThatDialedItAfterAvahiForgotIt() throws {
        try roam(peerDialsFirst: true)
    }

    private func roam(peerDialsFirst: Bool) throws {
        let folders = try devices("A", "B")
        let (a, b) = try hostPair()
        // A refusing B's new connections (a reset at once), while it is in place.
        let away = root.appendingPathComponent("away.nft")
        try Data("""
            table inet away {
              chain input { type filter hook input priority 0; policy accept; ip saddr 10.77.0.2 tcp flags & (syn | ack) == syn reject with tcp reset; }
            }

            """.utf8).write(to: away)
        // Only the device meant to dial first can link them: the other refuses its connections.
        let closed = root.appendingPathComponent("closed.nft")
        try Data("""
            table inet closed {
              chain input { type filter hook input priority 0; policy accept; tcp flags & (syn | ack) == syn drop; }
            }

            """.utf8).write(to: closed)
        if peerDialsFirst {
            try a.run(inNetwork: ["/usr/sbin/nft", "-f", away.path])
        } else {
            try b.run(inNetwork: ["/usr/sbin/nft", "-f", closed.path])
        }
        let agentA = try a.start(agentCommand(folders[0], listen: "0.0.0.0:7355", socket: socket("a.sock")))
        processes.append(agentA)
        let agentB = try b.start(agentCommand(folders[1], listen: "0.0.0.0:7355", socket: socket("b.sock")))
        processes.append(agentB)
        XCTAssertTrue(agentB.waitForLink(with: "A"), agentB.output + agentA.output)
        XCTAssertTrue(agentA.waitForLink(with: "B"), agentA.output)
        XCTAssertTrue(agentB.waitFor(.linked(peer: "A", dialed: !peerDialsFirst)), agentB.output)
        // B found A through Avahi.
        XCTAssertTrue(agentB.waitForFoundDevice(at: "10.77.0.1:7355"), agentB.output)

        // B hears no mDNS and takes no new connection from now on.
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

        // B's address comes back while A refuses it.
        if !peerDialsFirst { try a.run(inNetwork: ["/usr/sbin/nft", "-f", away.path]) }
        try b.run(inNetwork: ["/usr/sbin/ip", "address", "add", "10.77.0.2/24", "dev", "veth0"])
        // A gives its side of the old link up (B's close reaches it now, or its keepalive ends it).
        XCTAssertTrue(agentA.waitForUnlink(from: "B", timeout: 120), agentA.output)

        // A answers again: B redials where it last reached A, and links. (When both dialed at
        // first, the link replaced said linked too: the events are counted from here.)
        let linkedB = links(of: agentB, with: "A"), linkedA = links(of: agentA, with: "B")
        try a.run(inNetwork: ["/usr/sbin/nft", "delete", "table", "inet", "away"])
        let relinked = agentB.waitForEvent(timeout: 90, occurrence: linkedB + 1) { if case .linked("A", _) = $0 { true } else { false } }
        XCTAssertEqual(relinked, .linked(peer: "A", dialed: true), agentB.output)
        XCTAssertNotNil(agentA.waitForEvent(occurrence: linkedA + 1) { if case .linked("B", _) = $0 { true } else { false } },
                        agentA.output)
    }

    /// How many times `agent` said it linked with `peer` so far.
    private func links(of agent: RunningProcess, with peer: String) -> Int {
        agent.diagnosticEvents.filter { if case .linked(peer, _) = $0 { true } else { false } }.count
    }
}
