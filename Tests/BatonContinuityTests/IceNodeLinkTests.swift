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
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop"), phone = try authority.issueDevice(named: "phone")
        let (controlling, controlled) = IceSession.Role.for(local: laptop.identifier, remote: phone.identifier) == .controlling
            ? (laptop, phone) : (phone, laptop)
        try MainActor.assumeIsolated {
            drainIdle()
            let boxesBefore = LoopDiagnostics.liveCallbackBoxes
            try Self.linkAndContinue(first, second, controlling: controlling, controlled: controlled, expecting: expected,
                                     ending: ending)
            drainIdle()  // what the links' ends queued (their closed handlers) has run
            // The TLS connections close in the background (GIO's close runs in a worker thread)
            // and then free their ICE streams with the handlers they hold: each box freed off the
            // loop wakes it. (The wait's own timer holds one box.)
            _ = MainLoop.run(until: { LoopDiagnostics.liveCallbackBoxes <= boxesBefore + 1 }, timeout: .seconds(20))
            drainIdle()
            XCTAssertEqual(LoopDiagnostics.liveCallbackBoxes, boxesBefore, "a source, handler or callback of the link outlived it")
        }
    }

    @MainActor
    private static func linkAndContinue(_ first: IceConfiguration, _ second: IceConfiguration, controlling: DeviceIdentity,
                                 controlled: DeviceIdentity, expecting expected: IcePath, ending: Ending) throws {
        let providerA = OneActivityProvider(title: "the controlling side's draft", payload: Data("payload of A".utf8))
        let providerB = OneActivityProvider(title: "the controlled side's draft", payload: Data((0..<50_000).map { UInt8($0 % 253) }))
        let nodeA = try ContinuityNode(identity: controlling, provider: providerA)
        let nodeB = try ContinuityNode(identity: controlled, provider: providerB)
        try nodeA.start(host: "127.0.0.1", discovery: .off)
        try nodeB.start(host: "127.0.0.1", discovery: .off)
        let eventsA = EventRecorder(nodeA), eventsB = EventRecorder(nodeB)
        defer {
            nodeA.stop()
            nodeB.stop()
            eventsA.cancel()
            eventsB.cancel()
        }

        // ICE, then the group's gate and mutual TLS over each stream, then a link of each.
        let (a, b, streamA, streamB, channelA, channelB) = try secureChannels(first, second, controlling: controlling, controlled: controlled)
        defer { a.close(); b.close() }
        XCTAssertEqual(streamA.path, expected)
        XCTAssertEqual(streamB.path, expected)
        XCTAssertEqual(channelA.peerHost, "127.0.0.1", "over ICE the peer's address is the selected remote candidate's")
        XCTAssertFalse(channelA.peerHasGone)
        let adoptedA = Outcome { await nodeA.links.adopt(channelA, dialed: nil, path: .ice(streamA.path)) }
        let adoptedB = Outcome { await nodeB.links.adopt(channelB, dialed: nil, path: .ice(streamB.path)) }
        spin(until: { adoptedA.done && adoptedB.done && !providerA.nearby.isEmpty && !providerB.nearby.isEmpty })
        XCTAssertTrue(try adoptedA.get(), "D-Bus runs over the TLS channel over the ICE stream")
        XCTAssertTrue(try adoptedB.get())
        XCTAssertEqual(nodeA.connectedPeers.count, 1)
        XCTAssertEqual(nodeB.connectedPeers.count, 1)
        XCTAssertEqual(nodeA.links.all.map(\.path), [.ice(expected)], "the link knows the path it runs over")
        XCTAssertEqual(nodeB.links.all.map(\.path), [.ice(expected)])
        XCTAssertEqual(providerA.nearby.map(\.title), [providerB.title], "the other device's activity arrived")
        XCTAssertEqual(providerB.nearby.map(\.title), [providerA.title])

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
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop"), phone = try authority.issueDevice(named: "phone")
        let (controlling, controlled) = IceSession.Role.for(local: laptop.identifier, remote: phone.identifier) == .controlling
            ? (laptop, phone) : (phone, laptop)
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
