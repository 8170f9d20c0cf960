import BatonContinuity
import BatonTestSupport
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
        let folders = try devices("A", "B")
        let admin = root.appendingPathComponent("admin").path
        let batond = productURL("batond").path
        func agent(_ folder: String, _ socket: String) -> [String] {
            [batond, "--device", folder, "--listen", "0.0.0.0:0", "--socket", socket, "--authority", admin, "--no-notifications"]
        }
        let (a, b) = try TestHost.pair(agent(folders[0], socket("a.sock")), agent(folders[1], socket("b.sock")))
        hosts = [a, b]
        // Discovery runs on both: they found each other through Avahi and linked.
        XCTAssertNotNil(b.process.waitForLine(containing: "linked with A"), b.process.output + a.process.output)
        XCTAssertEqual(try agentBusConnections(in: a), 1, "discovery alone")

        // A pairing window in A's agent, published beside its discovery record.
        let window = try a.start([productURL("baton").path, "pair", "--accept", "--timeout", "60", "--config", admin, "--agent", socket("a.sock")])
        processes.append(window)
        XCTAssertNotNil(window.waitForLine(containing: "pairing window open on"), window.output + a.process.output)
        let browse = try b.start(["/usr/bin/avahi-browse", "--resolve", "--parsable", "--no-db-lookup", PairingAdvertisement.serviceType])
        processes.append(browse)
        let record = try XCTUnwrap(browse.waitForLine(containing: ";10.77.0.1;"), browse.output + a.process.output)
        let instance = String(record.split(separator: ";", omittingEmptySubsequences: false)[3])
        XCTAssertEqual(try agentBusConnections(in: a), 1, "discovery and a pairing window at once")

        // The window closes (its opener leaves): the record is withdrawn, discovery goes on
        // through the same client.
        window.terminate()
        XCTAssertNotNil(browse.waitForLine(containing: "-;veth0;IPv4;\(instance);"), browse.output + a.process.output)
        XCTAssertEqual(try agentBusConnections(in: a), 1, "after the window closed")
        XCTAssertTrue(a.process.isRunning, a.process.output)
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
