import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 31 between two test hosts (network namespaces, each with its own avahi-daemon): an
/// agent that restarts while the other device is up dials it at once, from the record its
/// host's avahi-daemon has cached, rather than waiting for the other device to see its new
/// record and dial it. Needs root, which CI has; skipped without it.
final class ColdStartBetweenHostsTests: AgentTestHostsCase {
    func testARestartedAgentDialsTheDeviceAvahiHasCached() throws {
        let folders = try devices("A", "B")
        // The other device may dial the restarted one too, once it sees its new record; two
        // devices dialing each other keep the connection the lower identifier dialed. So the
        // device that restarts is the one whose identifier sorts first: its link says it
        // dialed whenever it dialed at once, and says so never if it waited to be dialed.
        let identifiers = try folders.map { try DeviceIdentity.load(from: URL(fileURLWithPath: $0)).identifier }
        let (stays, staying, restarts, restarting) = identifiers[1] < identifiers[0]
            ? ("A", folders[0], "B", folders[1]) : ("B", folders[1], "A", folders[0])
        func agent(_ folder: String, _ socket: String) -> [String] { agentCommand(folder, listen: "0.0.0.0:0", socket: socket) }
        let (a, b) = try hostPair()
        let agentA = try a.start(agent(staying, socket("a.sock")))
        processes.append(agentA)
        var agentB = try b.start(agent(restarting, socket("b.sock")))
        processes.append(agentB)
        XCTAssertTrue(agentB.waitForLink(with: stays), agentB.output + agentA.output)
        // Which of two running devices dials is even odds (their published names are random):
        // restarted three times, the restarted device must dial each time.
        let lastLinked = URL(fileURLWithPath: restarting).appendingPathComponent("last-linked")
        for restart in 1...3 {
            agentB.terminate()
            agentB.waitForExit()
            XCTAssertTrue(agentA.waitForEvent(occurrence: restart) { if case .unlinked(restarts, .closed) = $0 { true } else { false } } != nil,
                          agentA.output)
            try? FileManager.default.removeItem(at: lastLinked)  // only what Avahi has cached tells it where the other is
            agentB = try b.start(agent(restarting, socket("b.sock")))
            processes.append(agentB)
            // The restarted device dials at once; the other dials too once it sees the new
            // record, and under load its connection may come up first. Both keep the one the
            // restarted device dialed, so that one becomes the link whenever it was made. Had the
            // restarted device waited to be dialed, the other's connection would stay the link.
            XCTAssertTrue(agentB.waitFor(.linked(peer: stays, dialed: true), timeout: 20),
                          "restart \(restart): the restarted device dialed\n\(agentB.output)\n\(agentA.output)")
        }
    }

    /// When the network changes (here: host B gets its address back), the agent dials at once
    /// the addresses it last linked over — which it would never dial again otherwise, and A
    /// neither publishes (no avahi-daemon on A) nor knows where B is: only that dial links them.
    func testANetworkChangeDialsTheAddressesLastLinkedOverAtOnce() throws {
        let folders = try devices("A", "B")
        let (a, b) = try hostPair(avahiOnA: false)
        // B last linked with A at 10.77.0.1:7355; B has no address now, so its dial at start fails.
        try Data("10.77.0.1:7355\n".utf8).write(to: URL(fileURLWithPath: folders[1]).appendingPathComponent("last-linked"))
        try b.run(inNetwork: ["/usr/sbin/ip", "address", "del", "10.77.0.2/24", "dev", "veth0"])
        let agentB = try b.start(agentCommand(folders[1], listen: "0.0.0.0:0", socket: socket("b.sock")))
        processes.append(agentB)
        XCTAssertNotNil(agentB.listeningAddress(), agentB.output)
        let agentA = try a.start(agentCommand(folders[0], listen: "0.0.0.0:7355", socket: socket("a.sock")))
        processes.append(agentA)
        XCTAssertNotNil(agentA.listeningAddress(), agentA.output)

        try b.run(inNetwork: ["/usr/sbin/ip", "address", "add", "10.77.0.2/24", "dev", "veth0"])
        XCTAssertTrue(agentB.waitFor(.linked(peer: "A", dialed: true)), agentB.output)
        XCTAssertTrue(agentA.waitFor(.linked(peer: "B", dialed: false)), agentA.output)
    }
}
