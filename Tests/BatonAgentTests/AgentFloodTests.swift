import BatonLoop
import BatonTestSupport
import DeviceTestSupport
import CGLib
import Foundation
import XCTest
@testable import BatonAgent

/// Clients of the agent's own user that push its caps: huge messages, floods of calls and of
/// connections, absurd values, stream connections with bad tokens, and a process of another
/// unprivileged user. Each attack is bounded in count and time; after it, a joined app on the
/// same agent is still served, and the agent logs the refusal once, not per event.
final class AgentFloodTests: AgentTestCase {
    /// A joined client sends a message whose body is over 256 KiB, another one whose header
    /// fields are over 64 KiB: each connection is closed from the message's fixed header (the
    /// body is never waited for), the agent says why once, and Reader on the same agent is
    /// still handed off to B.
    func testHugeMessagesCloseOnlyTheirConnection() throws {
        let (agentA, _, _) = try twoLinkedAgents()

        let body = try RawAgentClient(socket: socket("a.sock"))
        try body.join(as: "com.example.body")
        try body.send(path: AgentInterface.agentPath, "GetNearby", [.bytes(Data(count: 300 * 1024))])
        XCTAssertThrowsError(try body.call("GetNearby", [], replyType: "(aa{sv})"), "the connection outlived a 300 KiB body")

        let fields = try RawAgentClient(socket: socket("a.sock"))
        try fields.join(as: "com.example.fields")
        try fields.send(path: String(repeating: "/a", count: 40 * 1024), "GetNearby", [])
        XCTAssertThrowsError(try fields.call("GetNearby", [], replyType: "(aa{sv})"), "the connection outlived 80 KiB of header fields")

        try assertReaderHandsOff()
        XCTAssertTrue(agentA.waitFor(.refused(from: "com.example.body", reason: .oversizedMessage)), agentA.output)
        XCTAssertTrue(agentA.waitFor(.refused(from: "com.example.fields", reason: .oversizedMessage)), agentA.output)
        XCTAssertEqual(agentA.diagnosticEvents.filter { if case .refused(_, .oversizedMessage) = $0 { true } else { false } }.count, 2,
                       agentA.output)
        // The log says why, once a connection, with the sizes announced: what a person reads.
        XCTAssertEqual(occurrences("announced a body", in: agentA.output), 2, agentA.output)
    }

    /// One client floods: 5,000 `GetNearby` without waiting, then 40 `FetchPayload` at once of
    /// an activity whose app never answers (so each waits the agent's 5 s). Past 8 waiting the
    /// fetches are refused (logged once), the agent's memory stays bounded, and another client
    /// on the same agent gets its `GetNearby` answered.
    func testFloodOfCallsIsCapped() throws {
        let (_, agentB, _) = try twoLinkedAgents()
        let hostile = try RawAgentClient(socket: socket("a.sock"))
        try hostile.joinAsSilentActiveApp("com.example.hostile", offering: "com.example.hostile.page")
        XCTAssertTrue(agentB.waitForNearby(from: "A", "com.example.hostile.page"), agentB.output)

        let flood = try RawAgentClient(socket: socket("b.sock"))
        try flood.join(as: "com.example.flood")
        let before = try residentKiB(agentB.processIdentifier)
        for _ in 0..<5_000 { try flood.send(path: AgentInterface.agentPath, "GetNearby", [], expectReply: true) }
        let answer: [Variant]
        do { answer = try flood.call("GetNearby", [], replyType: "(aa{sv})", timeout: 60_000) } catch {
            XCTFail("the flooding client's GetNearby failed: \(error)\n\(agentB.output)")
            throw error
        }
        let nearby = AgentInterface.nearbyList(from: try XCTUnwrap(answer.first))
        let offered = try XCTUnwrap(nearby.first { $0.activityType == "com.example.hostile.page" })

        let outcomes = Outcomes()
        let fetches = (0..<40).map { _ in
            Thread {
                do {
                    _ = try flood.call("FetchPayload", [.string(offered.device), .uint64(offered.sequence)], replyType: "(ay)", timeout: 60_000)
                    outcomes.add("answered")
                } catch let error as GLibError {
                    outcomes.add(error.remoteDBusErrorName ?? error.message)
                } catch {
                    outcomes.add("\(error)")
                }
            }
        }
        for fetch in fetches { fetch.start() }
        let probe = try RawAgentClient(socket: socket("b.sock"))
        try probe.join(as: "com.example.probe")
        XCTAssertFalse(AgentInterface.nearbyList(from: try XCTUnwrap(probe.call("GetNearby", [], replyType: "(aa{sv})", timeout: 30_000).first)).isEmpty)
        let all = try XCTUnwrap(outcomes.wait(for: 40, timeout: 120), "the fetches were not all answered")
        let refused = all.filter { $0 == AgentInterface.ErrorName.refused }.count
        XCTAssertGreaterThan(refused, 0, "\(all)")
        XCTAssertTrue(all.allSatisfy { [AgentInterface.ErrorName.refused, AgentInterface.ErrorName.handoffFailed].contains($0) }, "\(all)")
        let after = try residentKiB(agentB.processIdentifier)
        XCTAssertLessThan(after - before, 64 * 1024, "the agent grew from \(before) KiB to \(after) KiB")
        XCTAssertEqual(occurrences("too many calls waiting", in: agentB.output), 1, agentB.output)
    }

    /// A client that writes 200,000 `GetNearby` calls as fast as the agent takes them and never
    /// reads a reply: the replies cannot pile up in the agent without bound (it closes the
    /// connection, logged once), and Reader on the same agent is still handed off.
    func testClientThatNeverReadsItsRepliesIsDropped() throws {
        let (agentA, _, _) = try twoLinkedAgents()
        let flood = try HandMadeDBusClient(socket: socket("a.sock"))
        try flood.call(path: AgentInterface.agentPath, interface: AgentInterface.agentName, member: "Join", signature: "ssas",
                       body: HandMadeDBusClient.string("com.example.flood") + HandMadeDBusClient.string("TEAM") + [0, 0, 0, 0])
        let before = try residentKiB(agentA.processIdentifier)
        var written = 0
        var closed = false
        do {
            while written < 200_000,
                  try flood.call(path: AgentInterface.agentPath, interface: AgentInterface.agentName, member: "GetNearby", timeout: 20) {
                written += 1
            }
        } catch {
            closed = true
        }
        let after = try residentKiB(agentA.processIdentifier)
        XCTAssertLessThan(after - before, 64 * 1024, "the agent grew from \(before) KiB to \(after) KiB after \(written) calls")
        print("measured: the agent grew by \(after - before) KiB for \(written) calls never read")
        XCTAssertTrue(closed, "the agent kept a client that never read its replies (\(written) calls written)")
        try assertReaderHandsOff()
        XCTAssertEqual(occurrences("does not read its replies", in: agentA.output), 1, agentA.output)
    }

    /// One process opens 80 connections that never speak: past 64 they are closed at once (the
    /// refusal logged once), the rest at the handshake deadline; a client joined before is
    /// served meanwhile, and once they are gone Reader joins and is handed off.
    func testConnectionsPastTheCapAreClosed() throws {
        let (agentA, _, _) = try twoLinkedAgents()
        let probe = try RawAgentClient(socket: socket("a.sock"))
        try probe.join(as: "com.example.probe")

        let descriptors = try (0..<80).map { _ in try connectedSocket(socket("a.sock")) }
        defer { for fd in descriptors { close(fd) } }
        _ = try probe.call("GetNearby", [], replyType: "(aa{sv})", timeout: 30_000)
        for fd in descriptors { XCTAssertTrue(closedByPeer(fd, timeout: 30), "a connection that never spoke was kept") }
        XCTAssertNotNil(agentA.waitForEvent { if case .appRefused(_, .tooManyConnections) = $0 { true } else { false } }, agentA.output)
        // Each refusal is an event; the log says it once for a person (the rest counted).
        XCTAssertEqual(occurrences("connections already", in: agentA.output), 1, agentA.output)
        try assertReaderHandsOff()
    }

    /// A client that joins with absurd values: 1,000 types or a 2 KiB app ID are refused; an
    /// advertisement with a 100 KiB title is clipped to 1 KiB, one with a 2 KiB type refused;
    /// 3,000 advertisements with new ids, then one of a new type, end with that one on B, and the agent stays small.
    func testAbsurdValuesAreClippedOrRefused() throws {
        let (agentA, agentB, _) = try twoLinkedAgents()
        let absurd = try RawAgentClient(socket: socket("a.sock"))
        let manyTypes = Variant.array(elementType: "s", (0..<1_000).map { .string("com.example.type\($0)") })
        XCTAssertEqual(refusal { try absurd.call("Join", [.string("com.example.absurd"), .string("TEAM"), manyTypes], replyType: "(u)") },
                       AgentInterface.ErrorName.refused)
        let longID = String(repeating: "x", count: 2048)
        XCTAssertEqual(refusal { try absurd.call("Join", [.string(longID), .string("TEAM"), .array(elementType: "s", [])], replyType: "(u)") },
                       AgentInterface.ErrorName.refused)
        _ = try absurd.call("Join", [.string("com.example.absurd"), .string("TEAM"), .array(elementType: "s", [.string(longID)])], replyType: "(u)")
        let longType = "com.example." + longID
        XCTAssertEqual(refusal {
            try absurd.call("SetAdvertisement", [.dictionary(["id": .uint64(1), "type": .string(longType)]), .bool(true)], replyType: "()")
        }, AgentInterface.ErrorName.refused)
        let longTitle = "x" + String(repeating: "é", count: 50 * 1024)  // 1 KiB ends inside an é
        let longPage = "https://example.com/" + String(repeating: "p", count: 100 * 1024)
        _ = try absurd.call("SetAdvertisement", [.dictionary(["id": .uint64(1), "type": .string("com.example.absurd.page"), "title": .string(longTitle),
                                                              "webpageURL": .string(longPage)]), .bool(true)], replyType: "()")
        let probe = try RawAgentClient(socket: socket("b.sock"))
        try probe.join(as: "com.example.probe")
        let seen = try nearby(on: probe, "com.example.absurd.page", agent: agentB)
        XCTAssertLessThanOrEqual(seen.title?.utf8.count ?? 0, AgentInterface.maximumText)
        XCTAssertTrue(seen.title?.hasPrefix("xéé") ?? false, "the title was not clipped between characters: \(String(describing: seen.title))")
        XCTAssertLessThanOrEqual(seen.webpageURL?.absoluteString.utf8.count ?? 0, 8 * 1024, "a web page URL of 100 KiB went to the peer")

        let before = try residentKiB(agentA.processIdentifier)
        for id in 2...3_001 {
            try absurd.send(path: AgentInterface.agentPath, "SetAdvertisement",
                            [.dictionary(["id": .uint64(UInt64(id)), "type": .string("com.example.absurd.page"), "title": .string("page \(id)")]), .bool(true)])
        }
        try absurd.send(path: AgentInterface.agentPath, "SetAdvertisement",
                        [.dictionary(["id": .uint64(3_002), "type": .string("com.example.absurd.last"), "title": .string("the last")]), .bool(true)])
        let last = try nearby(on: probe, "com.example.absurd.last", agent: agentB)
        XCTAssertEqual(last.title, "the last")
        XCTAssertEqual(last.appID, "com.example.absurd")
        let after = try residentKiB(agentA.processIdentifier)
        XCTAssertLessThan(after - before, 64 * 1024, "the agent grew from \(before) KiB to \(after) KiB")
        try assertReaderHandsOff()
    }

    /// Stream connections (`S` and a token) with a wrong token, with a token already used, and
    /// with a token that never comes: each is closed (the wrong ones logged once), and Reader
    /// on the same agent is still handed off.
    func testBadStreamConnectionsAreClosed() throws {
        let (_, agentB, _) = try twoLinkedAgents()
        let hostile = try RawAgentClient(socket: socket("a.sock"))
        try hostile.exportSilentApp()
        try hostile.join(as: "com.example.hostile")
        _ = try hostile.call("SetAdvertisement", [.dictionary(["id": .uint64(1), "type": .string("com.example.hostile.page"), "streams": .bool(true)]),
                                                  .bool(true)], replyType: "()")
        let probe = try RawAgentClient(socket: socket("b.sock"))
        try probe.join(as: "com.example.probe")
        let offered = try nearby(on: probe, "com.example.hostile.page", agent: agentB)
        guard case .bytes(let token)? = try probe.call("OpenStreams", [.string(offered.device), .uint64(offered.sequence)], replyType: "(ay)",
                                                       timeout: 30_000).first else { return XCTFail("no token") }
        let good = try streamConnection(token)
        defer { close(good) }
        let replayed = try streamConnection(token)
        defer { close(replayed) }
        XCTAssertTrue(closedByPeer(replayed, timeout: 20), "a token was good twice")
        for _ in 0..<20 {
            let wrong = try streamConnection(Data((0..<32).map { _ in UInt8.random(in: 0...255) }))
            defer { close(wrong) }
            XCTAssertTrue(closedByPeer(wrong, timeout: 20), "a wrong token was kept")
        }
        let silent = try streamConnection(Data(token.prefix(5)))
        defer { close(silent) }
        XCTAssertTrue(closedByPeer(silent, timeout: 30), "a stream connection that never finished its token was kept")
        try assertReaderHandsOff()
        XCTAssertEqual(occurrences("refused a stream connection", in: agentB.output), 1, agentB.output)
    }

    /// A process of another, unprivileged uid (5555) that the file modes let through (this
    /// test opens the folder to 0711 and the socket to 0666) is refused by the agent (run as
    /// uid 4242) from the socket's credentials; the same client as uid 4242 gets its Ping answered.
    func testAnotherUnprivilegedUidIsRefused() throws {
        let dbusSend = URL(fileURLWithPath: "/usr/bin/dbus-send")
        guard FileManager.default.isExecutableFile(atPath: dbusSend.path) else { throw XCTSkip("dbus-send is not installed") }
        let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
        guard FileManager.default.isExecutableFile(atPath: setpriv.path) else { throw XCTSkip("setpriv is not installed") }
        let folders = try devices("A")
        let runtime = root.appendingPathComponent("run-4242")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
        chmod(runtime.path, 0o700)
        for path in [folders[0], runtime.path, root.path] { XCTAssertEqual(chown(path, 4242, 4242), 0) }
        for file in try FileManager.default.contentsOfDirectory(atPath: folders[0]) {
            XCTAssertEqual(chown(folders[0] + "/" + file, 4242, 4242), 0)
        }
        let path = runtime.appendingPathComponent("agent.socket").path
        let agent = try start(setpriv.path, ["--reuid=4242", "--regid=4242", "--clear-groups", productURL("batond").path,
                                             "--device", folders[0], "--local", "--socket", path],
                              environment: ["XDG_CONFIG_HOME": runtime.path, "HOME": runtime.path, "PATH": "/usr/bin:/bin"])
        XCTAssertNotNil(agent.listeningAddress(), agent.output)
        // Only for this test: modes that let any user reach the socket.
        XCTAssertEqual(chmod(root.path, 0o711), 0)
        XCTAssertEqual(chmod(runtime.path, 0o711), 0)
        XCTAssertEqual(chmod(path, 0o666), 0)

        func ping(as uid: Int) throws -> (status: Int32, stdout: String, stderr: String) {
            try runProcess(setpriv, ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", dbusSend.path, "--peer=unix:path=\(path)",
                                     "--print-reply", "--reply-timeout=10000", "/", "org.freedesktop.DBus.Peer.Ping"],
                           environment: ["PATH": "/usr/bin:/bin", "HOME": "/"], timeout: 30)
        }
        for _ in 0..<3 {
            let stranger = try ping(as: 5555)
            XCTAssertNotEqual(stranger.status, 0, "uid 5555 was served: \(stranger)")
        }
        let stranger = DiagnosticEvent.appRefused(userID: 5555, reason: .otherUser)
        XCTAssertTrue(agent.waitFor(stranger, occurrence: 3), agent.output)
        XCTAssertEqual(agent.diagnosticEvents.filter { $0 == stranger }.count, 3, agent.output)
        let owner = try ping(as: 4242)
        XCTAssertEqual(owner.status, 0, "the agent's own uid was not served: \(owner)")
    }

    // MARK: Helpers

    /// Reader on A, continued by Reader on B: the agents still serve apps that behave.
    private func assertReaderHandsOff() throws {
        let readerA = try app("baton-reader", socket: socket("a.sock"), ["--read", "5"])
        let readerB = try app("baton-reader", socket: socket("b.sock"), ["--continue-nearby"])
        // What Reader shows its user: the article restored.
        XCTAssertNotNil(readerB.waitForLine(containing: "restoreUserActivityState: article 5", timeout: 60),
                        readerB.output + "\n--- every process of the test:\n" + processes.map { String($0.output.suffix(3000)) }.joined(separator: "\n---\n"))
        XCTAssertEqual(readerA.waitForExit(timeout: 30), 0, readerA.output)
        XCTAssertTrue(readerA.output.contains("userActivityWasContinued"), readerA.output)
    }

    /// The nearby activity of `type` from A, asked of `client` (an app of `agent`) once
    /// `agent` has it nearby (its `nearbyOffered`).
    private func nearby(on client: RawAgentClient, _ type: String, agent: RunningProcess) throws -> NearbyActivity {
        XCTAssertTrue(agent.waitForNearby(from: "A", type, timeout: 60), agent.output)
        let list = AgentInterface.nearbyList(from: try XCTUnwrap(client.call("GetNearby", [], replyType: "(aa{sv})", timeout: 30_000).first))
        if let found = list.first(where: { $0.activityType == type }) { return found }
        XCTFail("\(type) not in \(list.map(\.activityType)): \(agent.output)")
        throw NotSeen()
    }

    /// The D-Bus error name `body` failed with (nil if it did not).
    private func refusal(_ body: () throws -> [Variant]) -> String? {
        do {
            _ = try body()
            return nil
        } catch let error as GLibError {
            return error.remoteDBusErrorName
        } catch {
            return "\(error)"
        }
    }

    /// A connection to B's agent socket that sends `S` and `token`.
    private func streamConnection(_ token: Data) throws -> Int32 {
        let fd = try connectedSocket(socket("b.sock"))
        let bytes = [UInt8(ascii: "S")] + Array(token)
        XCTAssertEqual(write(fd, bytes, bytes.count), bytes.count)
        return fd
    }
}

/// An activity a test waited for did not show on the peer.
struct NotSeen: Error {}

/// How many times `text` occurs in `output`.
func occurrences(_ text: String, in output: String) -> Int { output.components(separatedBy: text).count - 1 }

/// The resident memory of process `pid`, in KiB (`VmRSS` in /proc).
func residentKiB(_ pid: Int32) throws -> Int {
    let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
    let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
    return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
}

/// Outcomes of calls made on other threads, waited for (bounded) until there are `count`.
final class Outcomes: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [String] = []

    func add(_ item: String) {
        condition.lock()
        items.append(item)
        condition.broadcast()
        condition.unlock()
    }

    func wait(for count: Int, timeout: TimeInterval) -> [String]? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while items.count < count, condition.wait(until: deadline) {}
        return items.count >= count ? items : nil
    }
}

extension RawAgentClient {
    /// Sends a call of `method` to `path` without waiting for it (and, unless `expectReply`,
    /// asking for no reply): a flood, or a message the agent should refuse unread.
    func send(path: String, _ method: String, _ arguments: [Variant], expectReply: Bool = false) throws {
        let message = g_dbus_message_new_method_call(nil, path, AgentInterface.agentName, method)!
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        g_dbus_message_set_body(message, try Variant.tuple(arguments).makeGVariant())
        if !expectReply { g_dbus_message_set_flags(message, G_DBUS_MESSAGE_FLAGS_NO_REPLY_EXPECTED) }
        var error: UnsafeMutablePointer<GError>?
        guard g_dbus_connection_send_message(connection, message, G_DBUS_SEND_MESSAGE_FLAGS_NONE, nil, &error) != 0 else {
            throw GLibError(consuming: error!)
        }
    }
}
