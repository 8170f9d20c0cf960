import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest
@testable import BatonAgent

/// Issue 26, "Memory per peer and per joined app is bounded": a device of the group floods
/// activity updates at an agent that has a joined app that reads and eight that never read.
/// Real processes: `batond` for A, two `DeviceProbe` devices linked to it (B quiet, P flooding),
/// a `DeviceProbe` app joined to A (it reads), and eight hand-made clients joined to A that
/// never read a byte.
final class AgentPeerFloodTests: AgentTestCase {
    /// How many activity updates the flooding device sends in its first round (one more each round).
    private let roundSize = 2_000
    /// The most rounds it floods.
    private let maximumRounds = 40

    /// While P floods: the reading app keeps being served and continues B's activity; the
    /// apps that never read are closed, each alone, within the agent's stall bound; the
    /// agent's private memory stays bounded during the flood and comes back to within 2× its
    /// idle figure after it; and the reading app, on its first connection, continues B's
    /// activity again and then (B gone) P's last activity, from the list the agent sent it.
    func testAFloodingPeerCutsOnlyTheAppsThatDoNotRead() throws {
        let folders = try devices("A", "B", "P")
        let (agentA, address) = try agent(folders[0], socket: socket("a.sock"))
        let quiet = try start("DeviceProbe", [folders[1], "--ok", "--peer", address, "--title", "quiet"])
        let flooder = try start("DeviceProbe", [folders[2], "--ok", "--peer", address])
        let reader = try start("DeviceProbe", [root.path, "--ok", "--agent", socket("a.sock")])
        XCTAssertTrue(agentA.waitForAppJoined(processID: reader.processIdentifier), reader.output + agentA.output)
        XCTAssertTrue(agentA.waitForNearby(from: "B", timeout: 60) && agentA.waitForNearby(from: "P", timeout: 60),
                      agentA.output + quiet.output + flooder.output)
        // The reading app's own list (the probe prints it as it changes): `continue` takes B's, its first.
        XCTAssertNotNil(reader.waitForLine(containing: "nearby B P", timeout: 60), reader.output + quiet.output + flooder.output)

        let silent = try (0..<8).map { index in
            let client = try HandMadeDBusClient(socket: socket("a.sock"))
            try client.call(path: AgentInterface.agentPath, interface: AgentInterface.agentName, member: "Join", signature: "ssas",
                            body: HandMadeDBusClient.string("com.example.silent\(index)") + HandMadeDBusClient.string("TEAM") + [0, 0, 0, 0])
            return client
        }
        let probe = try RawAgentClient(socket: socket("a.sock"))
        try probe.join(as: "com.example.probe")
        let pid = agentA.processIdentifier
        let idle = try privateKiB(pid)

        // P floods in rounds of `roundSize` + i updates (so each round ends on a title of its
        // own) until every silent app is closed, at most `maximumRounds` rounds.
        let peak = PeakSampler(pid: pid)
        var open = silent.indices.map { _ in true }
        var rounds = 0
        while open.contains(true), rounds < maximumRounds {
            flooder.send("flood \(roundSize + rounds)")
            rounds += 1
            if rounds == 1 { reader.send("continue 60") }
            // The probe's answer to `flood` (its protocol, not a log).
            XCTAssertNotNil(flooder.waitForLine(containing: "flooded", occurrence: rounds, timeout: 60), flooder.output.tail)
            for index in silent.indices where open[index] {
                open[index] = !hungUp(silent[index].fd, timeout: 2)
                if open[index] { break }
            }
        }
        print("measured: the silent apps were closed after \(rounds) rounds of P's flood (\(rounds * roundSize + rounds * (rounds - 1) / 2) updates)")
        XCTAssertEqual(open.filter { $0 }.count, 0, "silent apps kept: \(open)\n" + agentA.output.tail)
        XCTAssertTrue(agentA.waitForContinued(from: "B", timeout: 90),
                      "the reading app could not continue during the flood\n" + reader.output.tail + agentA.output.tail)
        reader.send("ping")
        XCTAssertNotNil(reader.waitForLine(containing: "pong", timeout: 60), reader.output.tail)
        defer { print("agent A:\n" + agentA.output.tail) }
        let last = "\(roundSize + rounds - 2) "
        try waitForTitle(startingWith: last, on: probe, watching: reader)
        let during = peak.stop()
        print("measured: batond private memory idle \(idle) KiB, peak during the flood \(during) KiB")

        reader.send("continue 60")
        XCTAssertTrue(agentA.waitForContinued(from: "B", occurrence: 2, timeout: 90),
                      "the reading app could not continue after the flood\n" + reader.output.tail + agentA.output.tail)
        // With B gone, the reading app continues P's activity from the list it was sent: the last one.
        let onlyP = reader.output.split(separator: "\n").count { $0.contains("nearby P") }  // P may have linked before B
        quiet.send("stop")
        XCTAssertNotNil(quiet.waitForLine(containing: "stopped"), quiet.output.tail)
        XCTAssertTrue(agentA.waitForWithdrawal(from: "B", timeout: 60), agentA.output.tail)
        XCTAssertNotNil(reader.waitForLine(containing: "nearby P", occurrence: onlyP + 1, timeout: 60), reader.output.tail)
        reader.send("continue 60")
        XCTAssertTrue(agentA.waitForContinued(from: "P", timeout: 90),
                      "the reading app did not continue P's activity\n" + reader.output.tail + agentA.output.tail)
        // The title the reading app got, as the probe reports it: P's last.
        XCTAssertNotNil(reader.waitForLine(containing: "continued " + last, timeout: 10),
                        "the reading app did not get P's last activity\n" + reader.output.tail + agentA.output.tail)
        let joins = agentA.diagnosticEvents.filter { if case .appJoined(_, reader.processIdentifier) = $0 { true } else { false } }
        XCTAssertEqual(joins.count, 1, "the reading app was cut\n" + agentA.output.tail)
        let after = try settledPrivateKiB(pid, within: 2 * idle)
        print("measured: batond private memory idle \(idle) KiB, peak during the flood \(during) KiB, after \(after) KiB")
        XCTAssertLessThan(during, idle + 64 * 1024, "the agent grew from \(idle) KiB to \(during) KiB during the flood")
        XCTAssertLessThanOrEqual(after, 2 * idle, "the agent kept \(after) KiB after the flood (idle: \(idle) KiB)")
        XCTAssertTrue(agentA.isRunning)
    }

    /// A client that writes `GetNearby` calls as fast as the agent takes them and never reads
    /// a reply: once it is closed (past `Agent.maximumUnreadBytes` unread), the agent's private
    /// memory comes back to within 2× its idle figure, and Reader still hands off.
    func testAnAppThatNeverReadsGivesItsMemoryBackWhenClosed() throws {
        let (agentA, _, _) = try twoLinkedAgents()
        let probe = try RawAgentClient(socket: socket("a.sock"))
        try probe.join(as: "com.example.probe")
        let pid = agentA.processIdentifier
        let idle = try privateKiB(pid)
        let flood = try HandMadeDBusClient(socket: socket("a.sock"))
        try flood.call(path: AgentInterface.agentPath, interface: AgentInterface.agentName, member: "Join", signature: "ssas",
                       body: HandMadeDBusClient.string("com.example.flood") + HandMadeDBusClient.string("TEAM") + [0, 0, 0, 0])
        let peak = PeakSampler(pid: pid)
        var written = 0
        var closed = false
        do {
            while written < 400_000,
                  try flood.call(path: AgentInterface.agentPath, interface: AgentInterface.agentName, member: "GetNearby", timeout: 20) {
                written += 1
            }
        } catch {
            closed = true
        }
        XCTAssertTrue(closed, "the agent kept a client that never read its replies (\(written) calls written)")
        // A call answered after the close: the agent has passed it.
        _ = try probe.call("GetNearby", [], replyType: "(aa{sv})", timeout: 30_000)
        let during = peak.stop()
        let after = try settledPrivateKiB(pid, within: 2 * idle)
        print("measured: batond private memory idle \(idle) KiB, peak \(during) KiB with \(written) calls never read, after the close \(after) KiB")
        XCTAssertLessThanOrEqual(after, 2 * idle, "the agent kept \(after) KiB after closing the client (idle: \(idle) KiB)")
    }

    // MARK: Helpers

    /// Waits until `client` sees P's activity titled `prefix`…, asking each time `watcher`
    /// says the nearby list changed (bounded: each wait 60 s, at most 100,000 asks).
    private func waitForTitle(startingWith last: String, on client: RawAgentClient, watching watcher: RunningProcess) throws {
        // The watcher's own list changes, as the probe prints them: each is a moment to ask again.
        var seen = occurrences("nearby ", in: watcher.output)
        for _ in 0..<100_000 {
            let list = AgentInterface.nearbyList(from: try XCTUnwrap(client.call("GetNearby", [], replyType: "(aa{sv})", timeout: 60_000).first))
            if list.contains(where: { $0.device == "P" && ($0.title ?? "").hasPrefix(last) }) { return }
            seen += 1
            guard watcher.waitForLine(containing: "nearby ", occurrence: seen, timeout: 60) != nil else { break }
        }
        XCTFail("P's last activity did not reach the agent's apps")
    }

    /// The agent's private memory once the flood is over: read now, and if it is not yet within
    /// `bound`, read again up to 5 times a second apart (the agent gives memory back once the
    /// flood has gone quiet, not at once).
    private func settledPrivateKiB(_ pid: Int32, within bound: Int) throws -> Int {
        var figure = try privateKiB(pid)
        for _ in 0..<5 where figure > bound {
            Thread.sleep(forTimeInterval: 1)
            figure = try privateKiB(pid)
        }
        return figure
    }

    /// Waits (bounded by `timeout` seconds) until the agent hangs up `fd`, without reading
    /// from it: true if it did.
    private func hungUp(_ fd: Int32, timeout: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(pollReadHangUp), revents: 0)
        let deadline = Date(timeIntervalSinceNow: TimeInterval(timeout))
        while Date() < deadline {
            entry.revents = 0
            guard poll(&entry, 1, 1000) >= 0 else { return false }
            if entry.revents & Int16(Int32(POLLHUP | POLLERR) | pollReadHangUp) != 0 { return true }
        }
        return false
    }
}

/// `POLLRDHUP` (Linux), which Glibc's module does not export.
private let pollReadHangUp: Int32 = 0x2000

extension String {
    /// The last 3,000 characters, for a failure's message.
    var tail: String { String(suffix(3000)) }
}

/// A process's private memory: its anonymous resident pages (`RssAnon` in /proc/PID/status:
/// heap, arenas, stacks), in KiB. Not `Private_Dirty`, which also counts the pages of an
/// executable written moments ago (a fresh build) that are not yet on disk.
func privateKiB(_ pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") })
    return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
}

/// The largest private memory of a process seen while it runs: sampled every 100 ms on a
/// thread of its own until `stop`.
final class PeakSampler: @unchecked Sendable {
    private let lock = NSLock()
    private var peak = 0
    private var running = true
    private let done = DispatchSemaphore(value: 0)

    init(pid: Int32) {
        Thread {
            while self.lock.withLock({ self.running }) {
                if let figure = try? privateKiB(pid) { self.lock.withLock { self.peak = max(self.peak, figure) } }
                Thread.sleep(forTimeInterval: 0.1)
            }
            self.done.signal()
        }.start()
    }

    /// Stops sampling; returns the peak in KiB.
    func stop() -> Int {
        lock.withLock { running = false }
        done.wait()
        return lock.withLock { peak }
    }
}
