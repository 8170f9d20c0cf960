@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Crypto
import Foundation
import XCTest

/// A provider that advertises one activity, serves its payload and takes continuation streams:
/// it reads what the continuing side writes to its end and answers with the same bytes reversed.
@MainActor
private final class OneActivityProvider: ActivityProvider {
    var advertisementDidChange: (@MainActor () -> Void)?
    let title: String
    let payloadBytes: Data
    /// The peers' activities, as the node last handed them over.
    private(set) var nearby: [NearbyActivity] = []
    /// Bytes a continuation stream read, each time one was answered.
    private(set) var streamedBytes: [Int] = []
    /// Bytes of each answer written whole to the link's queue (its end not yet).
    private(set) var answeredBytes: [Int] = []

    init(title: String, payload: Data) {
        self.title = title
        payloadBytes = payload
    }

    func advertisement() -> ProvidedActivity? {
        ProvidedActivity(generation: 1, activityType: "com.example.ice.editing", title: title, appID: "com.example.ice",
                         teamIdentifier: "ICETEAM", webpageURL: nil, supportsContinuationStreams: true)
    }
    func payload(of activity: ProvidedActivity) async throws(ProvidedActivityError) -> Data { payloadBytes }
    func continued(_ activity: ProvidedActivity) async {}
    func canOpenStreams(for activity: ProvidedActivity) -> Bool { true }
    func acceptStreams(_ channel: any ContinuationStreamChannel, for activity: ProvidedActivity) {
        Task { @MainActor in
            do {
                var received = Data()
                while true {
                    let chunk = try await channel.read(maxLength: 64 * 1024)
                    if chunk.isEmpty { break }
                    received += chunk
                }
                streamedBytes.append(received.count)
                try await channel.write(Data(received.reversed()))
                answeredBytes.append(received.count)
                try await channel.finishWriting()
            } catch {
                channel.abort()
            }
        }
    }
    func nearbyActivitiesDidChange(_ activities: [NearbyActivity]) { nearby = activities }
    func nodeDidStart(_ node: ContinuityNode) {}
    func nodeDidStop(_ node: ContinuityNode) {}
}

/// The typed events a node published.
@MainActor
private final class EventRecorder {
    private(set) var events: [DiagnosticEvent] = []
    private var observation: DiagnosticsObservation?

    init(_ node: ContinuityNode) {
        observation = node.diagnostics.observe { [weak self] in self?.events.append($0) }
    }

    var unlinkReasons: [DiagnosticEvent.UnlinkReason] {
        events.compactMap { if case .unlinked(_, let reason) = $0 { reason } else { nil } }
    }

    func cancel() {
        observation?.cancel()
        observation = nil
    }
}

/// A whole device link over an ICE stream (issue 29, docs/PROTOCOL.md 7.1): two real
/// `ContinuityNode`s, started with discovery off and no static peers, whose ICE sessions
/// exchange their descriptions in this process (the broker's part left out); each side opens
/// the secure channel over its stream and hands it to its node's link table, as the relay
/// connector does. Then everything a LAN link carries works across it — the nearby activity, a
/// payload fetch, a continuation stream — and one node stopping ends the other's link, typed.
final class IceNodeLinkTests: ProcessTestCase {
    /// Host candidates on loopback only.
    private static let loopback = IceConfiguration(hostAddresses: ["127.0.0.1"])
    /// Generous: the machine is shared and loaded.
    private static let connectDeadline: Duration = .seconds(30)

    func testTwoNodesLinkOverADirectICEPathAndContinueAcrossIt() throws {
        try linkAndContinue(Self.loopback, Self.loopback, expecting: .host)
    }

    func testTwoNodesLinkThroughACoturnRelayAndContinueAcrossIt() throws {
        let secret = "s3cret-\(UUID().uuidString)"
        let port = try startCoturn(secret: secret)
        let (userA, passwordA) = Self.restCredentials(secret: secret, device: "a")
        let (userB, passwordB) = Self.restCredentials(secret: secret, device: "b")
        try linkAndContinue(Self.relayOnly(port: port, username: userA, password: passwordA),
                            Self.relayOnly(port: port, username: userB, password: passwordB), expecting: .relayed)
    }

    /// The relay dies under an idle link: no FIN reaches either side, but the agents' keepalive
    /// checks go unanswered, the ICE path fails, and both nodes drop the link as closed within
    /// a bound (libnice's keepalive interval, 25 s, and its STUN timer; 90 s allowed here).
    func testBothNodesDropTheLinkWhenTheRelayUnderItDies() throws {
        let secret = "s3cret-\(UUID().uuidString)"
        let port = try startCoturn(secret: secret)
        let coturn = try XCTUnwrap(processes.last)
        let (userA, passwordA) = Self.restCredentials(secret: secret, device: "a")
        let (userB, passwordB) = Self.restCredentials(secret: secret, device: "b")
        try linkAndContinue(Self.relayOnly(port: port, username: userA, password: passwordA),
                            Self.relayOnly(port: port, username: userB, password: passwordB), expecting: .relayed,
                            ending: .relayDies(coturn))
    }

    /// How the link ends in a test.
    private enum Ending {
        /// The controlled side's node stops: its link closes, and its FIN tells the other.
        case nodeStops
        /// The relay process is killed: nothing tells either side.
        case relayDies(RunningProcess)
    }

    /// Links two nodes over ICE sessions configured by `first` (the controlling side's) and
    /// `second`, checks the link's path is `expected`, continues across it both ways, stops one
    /// node and waits for the other to drop the link as closed; then nothing the link made on
    /// the loop is left.
    private func linkAndContinue(_ first: IceConfiguration, _ second: IceConfiguration, expecting expected: IcePath,
                                 ending: Ending = .nodeStops) throws {
        try withLinkedNodes(first, second, expecting: expected) { linked in
            try Self.continueAcross(linked, ending: ending)
        }
    }

    /// Runs `body` with two nodes linked over ICE sessions configured by `first` (the
    /// controlling side's) and `second` on the path `expected`; then ends everything and checks
    /// nothing the link made on the loop is left.
    private func withLinkedNodes(_ first: IceConfiguration, _ second: IceConfiguration, expecting expected: IcePath,
                                 _ body: @MainActor (LinkedNodes) throws -> Void) throws {
        let (controlling, controlled) = try devicesInIceRoles()
        try MainActor.assumeIsolated {
            drainIdle()
            let boxesBefore = LoopDiagnostics.liveCallbackBoxes
            do {
                let linked = try LinkedNodes(first, second, controlling: controlling, controlled: controlled, expecting: expected)
                defer { linked.end() }
                try body(linked)
            }
            drainIdle()  // what the links' ends queued (their closed handlers) has run
            // The TLS connections close in the background (GIO's close runs in a worker thread)
            // and then free their ICE streams with the handlers they hold: each box freed off the
            // loop wakes it. (The wait's own timer holds one box.)
            _ = MainLoop.run(until: { LoopDiagnostics.liveCallbackBoxes <= boxesBefore + 1 }, timeout: .seconds(20))
            drainIdle()
            XCTAssertEqual(LoopDiagnostics.liveCallbackBoxes, boxesBefore, "a source, handler or callback of the link outlived it")
        }
    }

    /// Two started nodes linked over ICE, and what their link runs on.
    @MainActor
    private final class LinkedNodes {
        let providerA = OneActivityProvider(title: "the controlling side's draft", payload: Data("payload of A".utf8))
        let providerB = OneActivityProvider(title: "the controlled side's draft", payload: Data((0..<50_000).map { UInt8($0 % 253) }))
        let nodeA: ContinuityNode, nodeB: ContinuityNode
        let eventsA: EventRecorder, eventsB: EventRecorder
        private var sessions: [IceSession] = []
        let streamA: IceStream, streamB: IceStream
        let channelA: SecureChannel

        /// Starts the nodes (discovery off), connects the ICE sessions, opens the secure channels
        /// over their streams and has each node adopt its channel as a link with the ICE path;
        /// checks the link's path is `expected` and each side has the other's activity.
        init(_ first: IceConfiguration, _ second: IceConfiguration, controlling: DeviceIdentity, controlled: DeviceIdentity,
             expecting expected: IcePath) throws {
            let nodeA = try ContinuityNode(identity: controlling, provider: providerA)
            let nodeB = try ContinuityNode(identity: controlled, provider: providerB)
            let eventsA = EventRecorder(nodeA), eventsB = EventRecorder(nodeB)
            (self.nodeA, self.nodeB, self.eventsA, self.eventsB) = (nodeA, nodeB, eventsA, eventsB)
            let streams: (IceStream, IceStream, SecureChannel, SecureChannel)
            do {
                try nodeA.start(host: "127.0.0.1", discovery: .off)
                try nodeB.start(host: "127.0.0.1", discovery: .off)
                // ICE, then the group's gate and mutual TLS over each stream.
                let (a, b, streamA, streamB, channelA, channelB) = try IceNodeLinkTests.secureChannels(
                    first, second, controlling: controlling, controlled: controlled)
                sessions = [a, b]
                streams = (streamA, streamB, channelA, channelB)
            } catch {
                nodeA.stop()
                nodeB.stop()
                eventsA.cancel()
                eventsB.cancel()
                throw error
            }
            (streamA, streamB, channelA) = (streams.0, streams.1, streams.2)
            let channelB = streams.3
            XCTAssertEqual(streamA.path, expected)
            XCTAssertEqual(streamB.path, expected)
            XCTAssertEqual(channelA.peerHost, "127.0.0.1", "over ICE the peer's address is the selected remote candidate's")
            XCTAssertFalse(channelA.peerHasGone)
            let (providerA, providerB) = (self.providerA, self.providerB)
            let adoptedA = Outcome { [channelA, streamA] in await nodeA.links.adopt(channelA, dialed: nil, path: .ice(streamA.path)) }
            let adoptedB = Outcome { [streamB] in await nodeB.links.adopt(channelB, dialed: nil, path: .ice(streamB.path)) }
            spin(until: { adoptedA.done && adoptedB.done && !providerA.nearby.isEmpty && !providerB.nearby.isEmpty })
            XCTAssertTrue(try adoptedA.get(), "D-Bus runs over the TLS channel over the ICE stream")
            XCTAssertTrue(try adoptedB.get())
            XCTAssertEqual(nodeA.connectedPeers.count, 1)
            XCTAssertEqual(nodeB.connectedPeers.count, 1)
            XCTAssertEqual(nodeA.links.all.map(\.path), [.ice(expected)], "the link knows the path it runs over")
            XCTAssertEqual(nodeB.links.all.map(\.path), [.ice(expected)])
            XCTAssertEqual(providerA.nearby.map(\.title), [providerB.title], "the other device's activity arrived")
            XCTAssertEqual(providerB.nearby.map(\.title), [providerA.title])
        }

        /// Ends the sessions, stops both nodes and the event recording. More than once is harmless.
        func end() {
            for session in sessions { session.close() }
            nodeA.stop()
            nodeB.stop()
            eventsA.cancel()
            eventsB.cancel()
        }
    }

    /// Continues across `linked` both ways (a payload fetch, a continuation stream), then ends
    /// the link as `ending` says and checks the controlling side drops it as closed.
    @MainActor
    private static func continueAcross(_ linked: LinkedNodes, ending: Ending) throws {
        let (nodeA, nodeB, providerA, providerB) = (linked.nodeA, linked.nodeB, linked.providerA, linked.providerB)
        let (eventsA, eventsB, channelA) = (linked.eventsA, linked.eventsB, linked.channelA)

        // A payload fetch and a continuation stream across the link.
        let activity = providerA.nearby[0]
        let payload = Outcome { try await nodeA.fetchPayload(of: activity) }
        spin(until: { payload.done })
        XCTAssertEqual(try payload.get(), providerB.payloadBytes)
        let request = Data((0..<300_000).map { UInt8($0 % 241) })
        let streamed = Outcome { () async throws -> Data in
            let channel = try await nodeA.openStreams(for: activity)
            try await channel.write(request)
            try await channel.finishWriting()
            var received = Data()
            while true {
                let chunk = try await channel.read(maxLength: 64 * 1024)
                if chunk.isEmpty { break }
                received += chunk
            }
            channel.close()
            return received
        }
        spin(until: { streamed.done })
        XCTAssertEqual(try streamed.get(), Data(request.reversed()), "every byte of the stream crosses, in order, both ways")
        XCTAssertEqual(providerB.streamedBytes, [request.count])

        switch ending {
        case .nodeStops:
            // One side stops: the other hears the ICE stream end and drops the link as closed.
            nodeB.stop()
            spin(until: { !eventsA.unlinkReasons.isEmpty })
        case .relayDies(let relay):
            // Nothing tells either side: their keepalive checks fail the path.
            relay.terminate()
            XCTAssertTrue(MainLoop.run(until: { !eventsA.unlinkReasons.isEmpty && !eventsB.unlinkReasons.isEmpty }, timeout: .seconds(90)),
                          "the link outlived its failed path: \(eventsA.events) \(eventsB.events)")
            XCTAssertEqual(eventsB.unlinkReasons, [.closed], "\(eventsB.events)")
            XCTAssertTrue(nodeB.connectedPeers.isEmpty)
        }
        XCTAssertEqual(eventsA.unlinkReasons, [.closed], "\(eventsA.events)")
        XCTAssertTrue(nodeA.connectedPeers.isEmpty)
        XCTAssertTrue(providerA.nearby.isEmpty, "the stopped device's activity went with its link")
        XCTAssertTrue(channelA.peerHasGone, "the ICE stream says the peer is gone")
    }

    // MARK: Reading paused

    /// A link whose reading is paused (its peer past its update budget, `LinkTable`) still
    /// moves both ways over ICE, where libnice handles the path's packets only while the stream
    /// is read: the paused side goes on reading, holding what comes without taking it. Its own
    /// stream reaches the peer (the peer's pseudo-TCP acknowledgements are taken), all of the
    /// peer's answer leaves the peer, and none of it is handed on until reading resumes; then
    /// all of it is.
    func testAPausedLinkOverADirectICEPathStillSendsAndTakesThePeersBytes() throws {
        try withLinkedNodes(Self.loopback, Self.loopback, expecting: .host) { try Self.streamWhilePaused($0) }
    }

    /// The same through a TURN relay (a real coturn).
    func testAPausedLinkThroughACoturnRelayStillSendsAndTakesThePeersBytes() throws {
        let secret = "s3cret-\(UUID().uuidString)"
        let port = try startCoturn(secret: secret)
        let (userA, passwordA) = Self.restCredentials(secret: secret, device: "a")
        let (userB, passwordB) = Self.restCredentials(secret: secret, device: "b")
        try withLinkedNodes(Self.relayOnly(port: port, username: userA, password: passwordA),
                            Self.relayOnly(port: port, username: userB, password: passwordB), expecting: .relayed) {
            try Self.streamWhilePaused($0)
        }
    }

    /// Opens a continuation stream from the controlling side, pauses that side's reading, and
    /// streams a request well over what pseudo-TCP's windows and the sockets hold (within a
    /// stream's window, so no credit is needed) while it is paused; the peer answers with as
    /// much. Then reading resumes and the answer is read.
    @MainActor
    private static func streamWhilePaused(_ linked: LinkedNodes) throws {
        let (nodeA, nodeB, providerB) = (linked.nodeA, linked.nodeB, linked.providerB)
        let linkA = try XCTUnwrap(nodeA.links.all.first), linkB = try XCTUnwrap(nodeB.links.all.first)
        let activity = try XCTUnwrap(linked.providerA.nearby.first)
        let opened = Outcome { () async throws -> any ContinuationStreamChannel in
            let channel = try await nodeA.openStreams(for: activity)
            try await linkA.bus.ping()  // the device's answer to the open came before the ping's
            return channel
        }
        spin(until: { opened.done })
        let channel = try opened.get()
        let readSoFar = ByteCount()
        let response = Outcome { () async throws -> Data in
            var received = Data()
            while true {
                let chunk = try await channel.read(maxLength: 64 * 1024)
                if chunk.isEmpty { break }
                received += chunk
                readSoFar.count = received.count
            }
            return received
        }

        linkA.bus.pauseReading()
        let request = Data((0..<600_000).map { UInt8($0 % 239) })
        let written = Outcome { () async throws in
            try await channel.write(request)
            try await channel.finishWriting()
        }
        let paused = linkA.bus.bus
        var held: Int { paused.input.count - paused.inputStart }
        let moved = MainLoop.run(until: {
            providerB.streamedBytes == [request.count] && providerB.answeredBytes == [request.count]
                && linkB.bus.bus.unsentOutputBytes == 0 && held >= request.count
        }, timeout: .seconds(30))
        XCTAssertTrue(moved, "the paused link stood still: request written \(written.done), the peer read \(providerB.streamedBytes) "
                          + "and answered \(providerB.answeredBytes), \(linkB.bus.bus.unsentOutputBytes) bytes left to send, "
                          + "\(held) held")
        guard moved else { return }
        XCTAssertEqual(readSoFar.count, 0, "nothing read while paused was handed on")
        XCTAssertLessThanOrEqual(held, DBusConnection.maximumPausedInput, "what a paused link holds is bounded")
        XCTAssertTrue(paused.readingPaused)

        // Each side's end waits for the other's credit: the paused side gives none before it reads.
        XCTAssertFalse(written.done)
        linkA.bus.resumeReading()
        spin(until: { response.done && written.done })
        try written.get()
        XCTAssertEqual(try response.get(), Data(request.reversed()), "every byte held while paused arrives, in order")
        channel.close()
        XCTAssertTrue(linked.eventsA.unlinkReasons.isEmpty, "\(linked.eventsA.events)")
        XCTAssertTrue(linked.eventsB.unlinkReasons.isEmpty, "\(linked.eventsB.events)")
    }

    /// A peer that sends more than a paused link holds: the paused side reads up to
    /// `DBusConnection.maximumPausedInput` and no further (the link then stands still, as a TCP
    /// one whose reader stopped), and once reading resumes every message arrives, in order.
    func testAPausedLinkOverICEHoldsNoMoreThanItsBoundFromAPeerThatFloodsIt() throws {
        try withLinkedNodes(Self.loopback, Self.loopback, expecting: .host) { linked in
            let linkA = try XCTUnwrap(linked.nodeA.links.all.first), linkB = try XCTUnwrap(linked.nodeB.links.all.first)
            let paused = linkA.bus.bus, flooding = linkB.bus.bus
            var numbers: [UInt32] = []
            let subscription = paused.subscribe("/test", "org.example.Flood", "Chunk") { arguments in
                if case .uint32(let number)? = arguments.first { numbers.append(number) }
            }
            defer { paused.unsubscribe(subscription) }
            linkA.bus.pauseReading()
            let chunk = Data(repeating: 0x5A, count: 60 * 1024), count: UInt32 = 64  // 3.75 MiB
            for number in 0..<count { flooding.emitData("/test", "org.example.Flood", "Chunk", number: number, bytes: chunk) }
            var held: Int { paused.input.count - paused.inputStart }
            // The paused side reads on until it holds its bound (the last read fills it exactly).
            spin(until: { held == DBusConnection.maximumPausedInput })
            XCTAssertTrue(numbers.isEmpty, "nothing read while paused was handed on")
            XCTAssertGreaterThan(flooding.unsentOutputBytes, 0, "past the bound the flooding peer is held back")
            linkA.bus.resumeReading()
            spin(until: { numbers.count == Int(count) })
            XCTAssertEqual(numbers, Array(0..<count), "every message arrives once reading resumes, in order")
            XCTAssertTrue(linked.eventsA.unlinkReasons.isEmpty, "\(linked.eventsA.events)")
        }
    }

    /// Bytes a reader has had so far.
    @MainActor
    private final class ByteCount {
        var count = 0
    }

    /// Two ICE sessions (`first` controlling) connected over their exchanged descriptions, and a
    /// secure channel over each stream.
    @MainActor
    private static func secureChannels(_ first: IceConfiguration, _ second: IceConfiguration, controlling: DeviceIdentity,
                                       controlled: DeviceIdentity)
        throws -> (IceSession, IceSession, IceStream, IceStream, SecureChannel, SecureChannel) {
        let a = try IceSession(configuration: first, role: .controlling), b = try IceSession(configuration: second, role: .controlled)
        let offer = Outcome { try await a.localDescription() }, answer = Outcome { try await b.localDescription() }
        spin(until: { offer.done && answer.done })
        let offerBytes = try offer.get().encoded(), answerBytes = try answer.get().encoded()
        let deadline = connectDeadline
        let aStream = Outcome { try await a.connect(remote: try IceDescription.decode(answerBytes), deadline: deadline) }
        let bStream = Outcome { try await b.connect(remote: try IceDescription.decode(offerBytes), deadline: deadline) }
        // Each connect fails typed by its own deadline, which is longer than `spin`'s bound.
        XCTAssertTrue(MainLoop.run(until: { aStream.done && bStream.done }, timeout: deadline + .seconds(10)))
        let streamA = try XCTUnwrap(aStream.value).get(), streamB = try XCTUnwrap(bStream.value).get()
        let credentialA = try TLSCredential(identity: controlling), credentialB = try TLSCredential(identity: controlled)
        let client = Outcome { try await SecureChannel.open(over: streamA, role: .controlling, identity: controlling, credential: credentialA) }
        let server = Outcome { try await SecureChannel.open(over: streamB, role: .controlled, identity: controlled, credential: credentialB) }
        spin(until: { client.done && server.done })
        return (a, b, streamA, streamB, try client.get(), try server.get())
    }

    /// The accepting side over ICE has no listener whose deadline ends a connection that never
    /// sets D-Bus up: `PeerBus.open` bounds the wait for the peer's authentication itself, and
    /// fails typed (the peer here has a verified channel and says nothing more).
    func testTheAcceptingSideOverICEGivesUpOnAPeerThatNeverSetsUpDBus() throws {
        let (controlling, controlled) = try devicesInIceRoles()
        try MainActor.assumeIsolated {
            let (a, b, _, _, silent, accepted) = try Self.secureChannels(Self.loopback, Self.loopback, controlling: controlling,
                                                                         controlled: controlled)
            defer { a.close(); b.close() }
            XCTAssertTrue(accepted.isServer)
            let bus = Outcome { try await PeerBus.open(over: accepted) }
            spin(until: { bus.done })
            guard case .handshakeFailed? = bus.error as? TransportError else {
                return XCTFail("\(String(describing: bus.error))")
            }
            XCTAssertTrue(accepted.peerHasGone, "giving up closed the ICE stream")
            withExtendedLifetime(silent) {}
        }
    }

    // MARK: Through a TURN relay (coturn)

    /// TURN REST credentials (draft-uberti-behave-turn-rest): username "<expiry>:<device>",
    /// password base64(HMAC-SHA1(secret, username)).
    private static func restCredentials(secret: String, device: String) -> (String, String) {
        let username = "\(Int(Date().timeIntervalSince1970) + 3600):\(device)"
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Data(username.utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return (username, Data(mac).base64EncodedString())
    }

    private static func relayOnly(port: UInt16, username: String, password: String) -> IceConfiguration {
        IceConfiguration(turnServers: [IceRelay(host: "127.0.0.1", port: port, username: username, password: password)],
                         hostAddresses: ["127.0.0.1"], relayOnly: true, gatheringDeadline: .seconds(30))
    }
}
