import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// Issue 26, "One Avahi client per process, shared by discovery and pairing": an agent that
/// publishes and browses the group's service and, at the same time, publishes an open pairing
/// window holds one Avahi client, on a test host with a real avahi-daemon.
///
/// What is counted: the agent's connections to the host's system bus (`busctl list`, unique
/// names whose process is `batond`). Avahi's client library opens one private system-bus
/// connection per `AvahiClient` (`avahi_client_new`), and nothing else in the agent uses the
/// system bus, so that count is the number of Avahi clients the agent holds. Needs root (CI).
final class OneAvahiClientBetweenHostsTests: AgentTestHostsCase {
    func testAnAgentDiscoveringWithAPairingWindowOpenHoldsOneAvahiClient() throws {
        let (a, _, window, browse, instance) = try agentsWithAPairingWindow()
        XCTAssertEqual(try agentBusConnections(in: a), 1, "discovery and a pairing window at once")

        // The window closes (its opener leaves): the record is withdrawn, discovery goes on
        // through the same client.
        window.terminate()
        XCTAssertNotNil(browse.waitForLine(containing: "-;veth0;IPv4;\(instance);"), browse.output + a.process.output)
        XCTAssertEqual(try agentBusConnections(in: a), 1, "after the window closed")
        XCTAssertTrue(a.process.isRunning, a.process.output)
    }

    /// When avahi-daemon restarts, the one client connects again and both the group's record
    /// and the pairing window's are published again through it.
    func testAfterTheDaemonRestartsBothRecordsComeBackThroughOneClient() throws {
        let (a, b, _, browse, instance) = try agentsWithAPairingWindow()
        let group = try b.start(["/usr/bin/avahi-browse", "--resolve", "--parsable", "--no-db-lookup", "_baton._tcp"])
        processes.append(group)
        let resolvedA = ";_baton._tcp;local;host-a.local;10.77.0.1;"
        XCTAssertNotNil(group.waitForLine(containing: resolvedA), group.output)

        // SIGTERM (not `avahi-daemon --kill`, which waits for the process to vanish: on a test
        // host it stays a zombie, since its parent, the host's first process, is the agent).
        let gone = a.process.diagnosticEvents.filter { $0 == .discovery(state: "no-avahi-daemon") }.count
        let running = a.process.diagnosticEvents.filter { $0 == .discovery(state: "running") }.count
        let kill = try a.start(["/bin/sh", "-c", "kill -TERM \"$(cat /run/avahi-daemon/pid)\""])
        XCTAssertEqual(kill.waitForExit(), 0, kill.output)
        XCTAssertNotNil(browse.waitForLine(containing: "-;veth0;IPv4;\(instance);"), browse.output)
        XCTAssertTrue(a.process.waitForDiscovery("no-avahi-daemon", occurrence: gone + 1), a.process.output)
        try a.startAvahi()
        XCTAssertTrue(a.process.waitForDiscovery("running", occurrence: running + 1), a.process.output)

        XCTAssertNotNil(group.waitForLine(containing: resolvedA, occurrence: 2), group.output + a.process.output)
        XCTAssertNotNil(browse.waitForLine(containing: "=;veth0;IPv4;\(instance);", occurrence: 2), browse.output + a.process.output)
        XCTAssertEqual(try agentBusConnections(in: a), 1, "after the daemon restarted")
    }

    /// Hosts A and B, each running an agent (A's holding the group's authority), linked through
    /// Avahi; a pairing window open in A's agent, seen from B (`browse`: avahi-browse of
    /// pairing windows on B) under `instance`. Checks that A's agent held one client before.
    private func agentsWithAPairingWindow() throws -> (TestHost, TestHost, RunningProcess, RunningProcess, String) {
        let folders = try devices("A", "B")
        let admin = root.appendingPathComponent("admin").path
        let batond = productURL("batond").path
        func agent(_ folder: String, _ socket: String) -> [String] {
            [batond, "--device", folder, "--listen", "0.0.0.0:0", "--socket", socket, "--authority", admin, "--no-notifications"]
        }
        let (a, b) = try TestHost.pair(agent(folders[0], socket("a.sock")), agent(folders[1], socket("b.sock")))
        hosts = [a, b]
        // Discovery runs on both: they found each other through Avahi and linked.
        XCTAssertTrue(b.process.waitForLink(with: "A"), b.process.output + a.process.output)
        XCTAssertEqual(try agentBusConnections(in: a), 1, "discovery alone")

        // A pairing window in A's agent, published beside its discovery record.
        let window = try a.start([productURL("baton").path, "pair", "--accept", "--timeout", "60", "--config", admin, "--agent", socket("a.sock")])
        processes.append(window)
        XCTAssertNotNil(a.process.pairingWindowPort(), window.output + a.process.output)  // the agent opened it
        let browse = try b.start(["/usr/bin/avahi-browse", "--resolve", "--parsable", "--no-db-lookup", PairingAdvertisement.serviceType])
        processes.append(browse)
        let record = try XCTUnwrap(browse.waitForLine(containing: ";10.77.0.1;"), browse.output + a.process.output)
        let instance = String(record.split(separator: ";", omittingEmptySubsequences: false)[3])
        return (a, b, window, browse, instance)
    }

    /// The agent's connections to `host`'s system bus: unique names whose process is batond.
    private func agentBusConnections(in host: TestHost) throws -> Int {
        let list = try host.start(["/usr/bin/busctl", "--system", "list", "--unique", "--no-pager", "--no-legend"])
        XCTAssertEqual(list.waitForExit(), 0, list.output)
        let rows = list.output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        XCTAssertTrue(rows.contains { $0.count > 2 && $0[2] == "avahi-daemon" }, "the host's avahi-daemon is on its bus: \(list.output)")
        return rows.filter { $0.count > 2 && $0[0].hasPrefix(":") && $0[2] == "batond" }.count
    }
}
