@_spi(Testing) @testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest

/// One device's `RelayConnector` in this process, with what it published and the links it
/// handed over.
@MainActor
final class RelayProbe {
    let folder: URL
    var identity: DeviceIdentity
    let connector: RelayConnector
    let diagnostics = Diagnostics()
    var events: [DiagnosticEvent] = []
    /// The devices this probe says are linked on the LAN.
    var linked: Set<String> = []
    /// What `adopt` was handed: the channel's verified peer, the path, the channel.
    var adopted: [(peer: String, path: IcePath, channel: SecureChannel)] = []
    private var observation: DiagnosticsObservation?

    init(folder: URL, brokerAuthority: URL) throws {
        self.folder = folder
        let identity = try DeviceIdentity.load(from: folder)
        self.identity = identity
        let credential = try TLSCredential(identity: identity)
        weak var weakSelf: RelayProbe?
        connector = RelayConnector(
            identity: { weakSelf?.identity ?? identity }, identityFolder: folder, credential: credential,
            isLinked: { weakSelf?.linked.contains($0) ?? false },
            adopt: { channel, path in
                weakSelf?.adopted.append((channel.peerIdentifier, path, channel))
                weakSelf?.linked.insert(channel.peerIdentifier)  // as the node's links hold it from now on
                return true
            },
            diagnostics: diagnostics, log: PeerLogger(label: "test.relay"))
        connector.hostAddresses = ["127.0.0.1"]
        connector.firstRetryDelay = .milliseconds(500)
        connector.adjustBrokerSettings = { settings in
            settings.brokerAuthority = brokerAuthority
            settings.firstRetryDelay = .milliseconds(200)
            settings.maximumRetryDelay = .seconds(1)
        }
        weakSelf = self
        observation = diagnostics.observe { [weak self] in self?.events.append($0) }
    }

    var isConnected: Bool { connector.signalling?.isConnected ?? false }
    var started: [DiagnosticEvent] { events.filter { if case .relayAttemptStarted = $0 { true } else { false } } }
    var failures: [DiagnosticEvent.RelayFailure] {
        events.compactMap { if case .relayAttemptFailed(_, let reason, _) = $0 { reason } else { nil } }
    }

    func stop() {
        connector.stop()
        for link in adopted { link.channel.close() }
        adopted = []
        observation?.cancel()
    }
}

/// Issue 29: the node's part that links devices beyond the LAN (docs/PROTOCOL.md, 7.4), with
/// real parts on loopback: a real mosquitto admitting the group's devices, two connectors in
/// this process exchanging their ICE descriptions through it, libnice on 127.0.0.1, the
/// admission gate and mutual TLS 1.3 over the ICE stream.
final class RelayConnectorTests: ProcessTestCase {
    private var broker: MosquittoBroker?

    override func tearDownWithError() throws {
        broker?.stop()
        broker = nil
        try super.tearDownWithError()
    }

    /// The group's devices `names`, relay settings naming a broker on a free loopback port in
    /// their lists, and that broker (started unless `running` is false).
    private func setUpGroup(_ names: [String], running: Bool = true) throws -> (GroupAuthority, [String: URL], MosquittoBroker) {
        let (authority, folders) = try group(names)
        let port = try MosquittoBroker.freePort()
        try authority.setRelaySettings(RelaySettings(broker: try BrokerAddress(uri: "mqtts://127.0.0.1:\(port)")),
                                       updating: Array(folders.values))
        let broker = try MosquittoBroker(folder: root.appendingPathComponent("broker"),
                                         clientAuthority: folders[names[0]]!.appendingPathComponent("group.pem"), port: port)
        self.broker = broker
        if running { try broker.start() }
        return (authority, folders, broker)
    }

    /// A node of the device in `folder` (with `staticPeers`), not started, whose relay connector
    /// uses loopback and trusts `broker`; its events go to `observe`.
    @MainActor
    private static func relayNode(_ folder: URL, staticPeers: [PeerAddress] = [], broker: MosquittoBroker,
                           observe: @escaping @MainActor (DiagnosticEvent) -> Void) throws -> (ContinuityNode, DiagnosticsObservation) {
        let node = try ContinuityNode(identity: try DeviceIdentity.load(from: folder), identityDirectory: folder,
                                      staticPeers: staticPeers, provider: SilentActivityProvider())
        let relay = try XCTUnwrap(node.relay)
        relay.hostAddresses = ["127.0.0.1"]
        relay.adjustBrokerSettings = { settings in
            settings.brokerAuthority = broker.authorityFile
            settings.firstRetryDelay = .milliseconds(200)
        }
        return (node, node.diagnostics.observe(observe))
    }

    /// With relayed candidates only, through a real coturn the group's relay settings name
    /// (TURN REST credentials from the group's secret): the link's path is the relay.
    func testWithRelayedCandidatesOnlyTheLinkGoesThroughCoturn() throws {
        let (authority, folders, broker) = try setUpGroup(["laptop", "desktop"])
        let secret = "s3cret-\(UUID().uuidString)"
        let turnPort = try startCoturn(secret: secret)
        try authority.setRelaySettings(RelaySettings(turn: [TURNServer(host: "127.0.0.1", port: turnPort)],
                                                     broker: BrokerAddress(host: "127.0.0.1", port: broker.port),
                                                     turnSecret: Data(secret.utf8)),
                                       updating: Array(folders.values))
        try MainActor.assumeIsolated {
            let (offering, answering) = try Self.probes(folders, broker)
            defer { offering.stop(); answering.stop() }
            for probe in [offering, answering] {
                probe.connector.relayOnly = true
                probe.connector.start()
                probe.connector.lanSettled()
            }
            spin(until: { offering.adopted.count == 1 && answering.adopted.count == 1 })
            XCTAssertEqual(offering.adopted.first?.path, .relayed)
            XCTAssertEqual(answering.adopted.first?.path, .relayed)
            XCTAssertEqual(answering.adopted.first?.peer, offering.identity.identifier)
            let answeringName = offering.identity.deviceName(of: answering.identity.identifier)
            XCTAssertTrue(offering.events.contains(.relayAttemptSucceeded(peer: answeringName, path: .relayed)))
        }
    }

    /// The two probes, the one that offers (its identifier sorts first) first.
    @MainActor
    private static func probes(_ folders: [String: URL], _ broker: MosquittoBroker) throws -> (offering: RelayProbe, answering: RelayProbe) {
        let a = try RelayProbe(folder: folders["laptop"]!, brokerAuthority: broker.authorityFile)
        let b = try RelayProbe(folder: folders["desktop"]!, brokerAuthority: broker.authorityFile)
        return a.identity.identifier < b.identity.identifier ? (a, b) : (b, a)
    }

    func testTwoDevicesNotOnTheLANLinkThroughTheBrokerAndICE() throws {
        let (_, folders, broker) = try setUpGroup(["laptop", "desktop"])
        try MainActor.assumeIsolated {
            let (offering, answering) = try Self.probes(folders, broker)
            defer { offering.stop(); answering.stop() }
            for probe in [offering, answering] {
                probe.connector.start()
                probe.connector.lanSettled()
            }
            spin(until: { offering.adopted.count == 1 && answering.adopted.count == 1 })

            XCTAssertEqual(offering.adopted.first?.peer, answering.identity.identifier, "a channel verified as the other device")
            XCTAssertEqual(answering.adopted.first?.peer, offering.identity.identifier)
            XCTAssertEqual(offering.adopted.first?.path, .host, "loopback host candidates: a direct path")
            XCTAssertEqual(answering.adopted.first?.path, .host)
            let answeringName = offering.identity.deviceName(of: answering.identity.identifier)
            let offeringName = answering.identity.deviceName(of: offering.identity.identifier)
            XCTAssertEqual(offering.started, [.relayAttemptStarted(peer: answeringName, offering: true)])
            XCTAssertEqual(answering.started, [.relayAttemptStarted(peer: offeringName, offering: false)])
            XCTAssertTrue(offering.events.contains(.relayAttemptSucceeded(peer: answeringName, path: .host)), "\(offering.events)")
            XCTAssertTrue(answering.events.contains(.relayAttemptSucceeded(peer: offeringName, path: .host)), "\(answering.events)")
            XCTAssertEqual(offering.failures + answering.failures, [])
            XCTAssertTrue(offering.connector.attempts.isEmpty && answering.connector.attempts.isEmpty)
        }
    }

    /// Two nodes of the group, no static peer, no discovery, on loopback: the node starts its
    /// connector with the list's relay settings and it tries the device once the first round
    /// of LAN dials has finished; the attempt ends with a verified channel that becomes each
    /// node's link; a LAN connection later replaces it.
    func testANodeTriesTheDeviceItDidNotLinkOnTheLAN() throws {
        let (_, folders, broker) = try setUpGroup(["laptop", "desktop"])
        try MainActor.assumeIsolated {
            var nodes: [ContinuityNode] = []
            var events: [[DiagnosticEvent]] = [[], []]
            var observations: [DiagnosticsObservation] = []
            defer {
                for node in nodes { node.stop() }
                for observation in observations { observation.cancel() }
            }
            for (index, name) in ["laptop", "desktop"].enumerated() {
                let (node, observation) = try Self.relayNode(folders[name]!, broker: broker) { events[index].append($0) }
                nodes.append(node)
                observations.append(observation)
            }
            for node in nodes { try node.start(host: "127.0.0.1", port: 0, discovery: .off) }
            func ended(_ list: [DiagnosticEvent]) -> Bool {
                list.contains { if case .relayAttemptSucceeded = $0 { true } else if case .relayAttemptFailed = $0 { true } else { false } }
            }
            spin(until: { ended(events[0]) && ended(events[1]) })
            let offering = nodes[0].identity.identifier < nodes[1].identity.identifier ? 0 : 1
            XCTAssertTrue(events[offering].contains(.relayAttemptStarted(peer: "desktop" == ["laptop", "desktop"][offering] ? "laptop" : "desktop",
                                                                         offering: true)), "\(events[offering])")
            // The channel was verified and became each node's link to the other.
            for list in events {
                XCTAssertTrue(list.contains { if case .relayAttemptSucceeded(_, .host) = $0 { true } else { false } }, "\(list)")
            }
            spin(until: { nodes.allSatisfy { $0.linkStatus.count == 1 } })
            XCTAssertEqual(nodes.flatMap { $0.linkStatus.map(\.path) }, [.directAcrossNATs, .directAcrossNATs],
                           "each link says it runs beyond the local network")

            // docs/PROTOCOL.md, 7: the local network first. A LAN connection that comes while the
            // link beyond it stands replaces it on both sides, quietly (no unlinked event).
            let before = events.map(\.count)
            let dialer = nodes[offering], dialed = nodes[1 - offering]
            let address = PeerAddress(host: "127.0.0.1", port: try XCTUnwrap(dialed.port))
            let adopted = Outcome { () async throws -> Bool in
                let channel = try await SecureChannel.connect(host: address.host, port: address.port,
                                                              identity: dialer.identity, credential: dialer.credential)
                return await dialer.links.adopt(channel, dialed: address)
            }
            spin(until: { adopted.done && nodes.allSatisfy { $0.linkStatus.map(\.path) == [.lan] } })
            XCTAssertEqual(try adopted.get(), true)
            // The dialer kept the link beyond the LAN open until the other side, reached by the
            // LAN connection, closed it.
            spin(until: { nodes.allSatisfy { $0.links.supersededCount == 0 } })
            XCTAssertEqual(nodes.map(\.links.supersededExpired), [0, 0], "the other side closed the replaced link")
            for (index, list) in events.enumerated() {
                XCTAssertFalse(list[before[index]...].contains { if case .unlinked = $0 { true } else { false } },
                               "the link beyond the LAN went without an unlinked event: \(list[before[index]...])")
            }
        }
    }

    /// A link beyond the LAN that drops right after it came up (a path that lets the checks
    /// through, then drops): the device is not offered to again at once, in a tight loop, but
    /// after the back-off of a failed attempt, said typed (`droppedSoon` with the delay), which
    /// doubles with each such drop; a link that lived `minimumLinkLifetime` is tried again at
    /// once.
    func testALinkThatDropsSoonAfterItCameUpIsTriedAgainAfterTheBackoff() throws {
        let (_, folders, broker) = try setUpGroup(["laptop", "desktop"])
        try MainActor.assumeIsolated {
            let (offering, answering) = try Self.probes(folders, broker)
            defer { offering.stop(); answering.stop() }
            offering.connector.minimumLinkLifetime = .seconds(3600)
            for probe in [offering, answering] {
                probe.connector.start()
                probe.connector.lanSettled()
            }
            spin(until: { offering.adopted.count == 1 && answering.adopted.count == 1 })
            let name = offering.identity.deviceName(of: answering.identity.identifier)
            @MainActor func dropped(_ retry: Int64) -> DiagnosticEvent {
                .relayAttemptFailed(peer: name, reason: .droppedSoon, retryAfterMilliseconds: retry)
            }
            // The link drops on both sides, as the nodes' links would tell their connectors.
            @MainActor func drop() {
                for probe in [offering, answering] {
                    probe.adopted.last?.channel.close()
                    probe.linked = []
                }
                answering.connector.linkDropped(offering.identity.identifier)
                offering.connector.linkDropped(answering.identity.identifier)
            }

            drop()
            XCTAssertEqual(offering.started.count, 1, "not offered to again at once: \(offering.events)")
            XCTAssertTrue(offering.connector.attempts.isEmpty)
            XCTAssertEqual(offering.events.last, dropped(500), "the first retry delay")
            spin(until: { offering.adopted.count == 2 && answering.adopted.count == 2 })
            XCTAssertEqual(offering.started.count, 2, "offered to again once the delay passed")

            drop()
            XCTAssertEqual(offering.started.count, 2, "\(offering.events)")
            XCTAssertEqual(offering.events.last, dropped(1000), "the delay doubled")
            spin(until: { offering.adopted.count == 3 && answering.adopted.count == 3 })

            // A link that lived long enough: tried again at once, the back-off reset.
            offering.connector.minimumLinkLifetime = .zero
            drop()
            XCTAssertEqual(offering.started.count, 4, "offered to again at once: \(offering.events)")
            spin(until: { offering.adopted.count == 4 && answering.adopted.count == 4 })
            XCTAssertEqual(offering.failures, [.droppedSoon, .droppedSoon], "nothing else failed")
            XCTAssertEqual(answering.failures, [], "the answering side offers nothing, so it waits for nothing")
        }
    }

    /// The broker down: each device says so once, typed, for the device it would offer to, and
    /// no attempt runs (none waits on it); once the broker is up the devices link.
    func testBrokerDownIsATypedFailureAndNoAttemptHangs() throws {
        let (_, folders, broker) = try setUpGroup(["laptop", "desktop"], running: false)
        try MainActor.assumeIsolated {
            let (offering, answering) = try Self.probes(folders, broker)
            defer { offering.stop(); answering.stop() }
            for probe in [offering, answering] {
                probe.connector.start()
                probe.connector.lanSettled()
            }
            spin(until: { offering.failures == [.brokerUnavailable] && offering.events.count(where: { if case .brokerConnectFailed = $0 { true } else { false } }) >= 2 })
            let answeringName = offering.identity.deviceName(of: answering.identity.identifier)
            XCTAssertEqual(offering.failures, [.brokerUnavailable], "said once, not at every broker retry")
            XCTAssertTrue(offering.events.contains(.relayAttemptFailed(peer: answeringName, reason: .brokerUnavailable,
                                                                       retryAfterMilliseconds: nil)))
            XCTAssertEqual(offering.started, [], "no attempt without the broker")
            XCTAssertTrue(offering.connector.attempts.isEmpty)
            XCTAssertEqual(answering.failures, [], "the answering side offers nothing")

            try broker.start()
            spin(until: { offering.adopted.count == 1 && answering.adopted.count == 1 })
            XCTAssertTrue(offering.events.contains(.relayAttemptSucceeded(peer: answeringName, path: .host)))
        }
    }

    /// The broker down does not touch the local network: two nodes whose lists name a broker
    /// that does not run link over the LAN (a static peer here), and their connectors say,
    /// typed, why the relay path does not work (`brokerConnectFailed`), while nothing is offered.
    func testWithTheBrokerDownTheLANLinkStillComes() throws {
        let (_, folders, broker) = try setUpGroup(["laptop", "desktop"], running: false)
        try MainActor.assumeIsolated {
            var nodes: [ContinuityNode] = []
            var events: [[DiagnosticEvent]] = [[], []]
            var observations: [DiagnosticsObservation] = []
            defer {
                for node in nodes { node.stop() }
                for observation in observations { observation.cancel() }
            }
            @MainActor func node(_ name: String, _ index: Int, peers: [PeerAddress]) throws -> ContinuityNode {
                let (node, observation) = try Self.relayNode(folders[name]!, staticPeers: peers, broker: broker) { events[index].append($0) }
                nodes.append(node)
                observations.append(observation)
                try node.start(host: "127.0.0.1", port: 0, discovery: .off)
                return node
            }
            let desktop = try node("desktop", 0, peers: [])
            _ = try node("laptop", 1, peers: [PeerAddress(host: "127.0.0.1", port: try XCTUnwrap(desktop.port))])
            func brokerFailed(_ list: [DiagnosticEvent]) -> Bool {
                list.contains { if case .brokerConnectFailed = $0 { true } else { false } }
            }
            spin(until: { nodes.allSatisfy { $0.linkStatus.count == 1 } && brokerFailed(events[0]) && brokerFailed(events[1]) })
            XCTAssertEqual(nodes.flatMap { $0.linkStatus.map(\.path) }, [.lan, .lan])
            for list in events {
                XCTAssertFalse(list.contains(.brokerConnected), "\(list)")
                XCTAssertFalse(list.contains { if case .relayAttemptStarted = $0 { true } else { false } }, "a linked device is not offered to: \(list)")
            }
        }
    }

    /// The LAN first: a device linked is not offered to; when its link drops it is tried at
    /// once. And an offer that reaches a device linked with the offering one is declined.
    func testALinkedDeviceIsNotTriedAndItsOfferIsDeclined() throws {
        let (_, folders, broker) = try setUpGroup(["laptop", "desktop"])
        try MainActor.assumeIsolated {
            let (offering, answering) = try Self.probes(folders, broker)
            defer { offering.stop(); answering.stop() }
            offering.linked = [answering.identity.identifier]
            for probe in [offering, answering] {
                probe.connector.start()
                probe.connector.lanSettled()
            }
            spin(until: { offering.isConnected && answering.isConnected })
            // Offers go out as the broker connects (and as the LAN settles): none did.
            XCTAssertEqual(offering.started, [])
            XCTAssertTrue(offering.connector.attempts.isEmpty)

            // The link drops on the offering side while the answering side still holds its own.
            answering.linked = [offering.identity.identifier]
            offering.linked = []
            offering.connector.linkDropped(answering.identity.identifier)
            spin(until: { offering.failures.count == 1 })
            XCTAssertEqual(offering.failures, [.declined])
            guard case .relayAttemptFailed(_, .declined, let retry?)? = offering.events.last else {
                return XCTFail("\(offering.events)")
            }
            XCTAssertGreaterThan(retry, 0, "a declined offer is tried again later")
            XCTAssertEqual(answering.started, [], "the answering side started nothing")
            XCTAssertEqual(offering.adopted.count + answering.adopted.count, 0)

            // Its link gone too, the next offer links them.
            answering.linked = []
            spin(until: { offering.adopted.count == 1 && answering.adopted.count == 1 })
        }
    }

    /// A link the node cut because the group revoked its device: the device is not tried
    /// beyond the LAN either.
    func testADeviceWhoseLinkWasCutForRevocationIsNotTried() throws {
        let (_, folders, broker) = try setUpGroup(["laptop", "desktop"])
        try MainActor.assumeIsolated {
            let (offering, answering) = try Self.probes(folders, broker)
            defer { offering.stop(); answering.stop() }
            offering.linked = [answering.identity.identifier]
            offering.connector.start()
            offering.connector.lanSettled()
            spin(until: { offering.isConnected })
            offering.linked = []
            offering.connector.linkDropped(answering.identity.identifier, revoked: true)
            XCTAssertEqual(offering.started, [], "tries start at once: none did")
            XCTAssertTrue(offering.connector.attempts.isEmpty)
            offering.connector.linkDropped(answering.identity.identifier)
            XCTAssertEqual(offering.started, [], "nor after a later drop")
        }
    }

    /// A device the group revokes while it is not linked (offline, say): the device offering to
    /// it stops at once when it holds the list that revokes it — the attempt running cancelled,
    /// no next offer after the back-off, said typed (`revoked`) — while a device not revoked is
    /// still offered to. Before the list carried the revoked identifiers it was offered to with
    /// back-off up to five minutes, forever.
    func testARevokedDeviceIsNoLongerOfferedToOnceTheListThatRevokesItArrives() throws {
        let (authority, folders, broker) = try setUpGroup(["laptop", "desktop", "tablet"])
        try MainActor.assumeIsolated {
            // The device whose identifier sorts first offers to both others; neither runs.
            let identities = try folders.mapValues { try DeviceIdentity.load(from: $0) }
            let first = try XCTUnwrap(identities.min { $0.value.identifier < $1.value.identifier })
            let others = identities.filter { $0.key != first.key }.sorted { $0.key < $1.key }
            let (revokedName, revoked) = (others[0].key, others[0].value.identifier)
            let (keptName, kept) = (others[1].key, others[1].value.identifier)
            let offering = try RelayProbe(folder: folders[first.key]!, brokerAuthority: broker.authorityFile)
            defer { offering.stop() }
            offering.connector.answerDeadline = .milliseconds(600)
            offering.connector.offerRepeatInterval = .milliseconds(300)
            offering.connector.firstRetryDelay = .milliseconds(300)
            offering.connector.maximumRetryDelay = .milliseconds(300)
            @MainActor func started(_ name: String) -> Int {
                offering.events.count { $0 == .relayAttemptStarted(peer: name, offering: true) }
            }
            @MainActor func unanswered(_ name: String) -> Int {
                offering.events.count { if case .relayAttemptFailed(name, .noAnswer, _) = $0 { true } else { false } }
            }
            offering.connector.start()
            offering.connector.lanSettled()
            spin(until: { unanswered(revokedName) >= 1 && unanswered(keptName) >= 1 })

            try authority.revokeDevice(named: revokedName, updating: [offering.folder])
            offering.identity = try DeviceIdentity.load(from: offering.folder)
            XCTAssertEqual(offering.identity.revocations.revokedDevices, [revoked])
            offering.connector.listChanged()
            XCTAssertTrue(offering.events.contains(.relayAttemptFailed(peer: revokedName, reason: .revoked, retryAfterMilliseconds: nil)),
                          "\(offering.events)")
            XCTAssertNil(offering.connector.attempts[revoked])
            XCTAssertNil(offering.connector.retries[revoked])
            let offeredBefore = started(revokedName), keptBefore = started(keptName)
            // The device not revoked is offered to twice more, each after an unanswered offer and
            // the back-off: the revoked one's retry would have come by then.
            spin(until: { started(keptName) >= keptBefore + 2 })
            XCTAssertEqual(started(revokedName), offeredBefore, "no offer to the revoked device: \(offering.events)")
            XCTAssertNil(offering.connector.attempts[revoked])
            XCTAssertTrue(offering.connector.attempts[kept] != nil || offering.connector.retries[kept] != nil,
                          "the device not revoked is still tried")
        }
    }

    /// A device that gets linked on the LAN while its attempt runs: both sides close the
    /// channel over ICE unused (the LAN link stays) and say so, typed.
    func testALANLinkThatComesDuringTheAttemptWins() throws {
        let (_, folders, broker) = try setUpGroup(["laptop", "desktop"])
        try MainActor.assumeIsolated {
            let (offering, answering) = try Self.probes(folders, broker)
            defer { offering.stop(); answering.stop() }
            // As the answering side takes the offer, the LAN links the two.
            let observation = answering.diagnostics.observe { event in
                guard case .relayAttemptStarted = event else { return }
                offering.linked.insert(answering.identity.identifier)
                answering.linked.insert(offering.identity.identifier)
            }
            defer { observation.cancel() }
            for probe in [offering, answering] {
                probe.connector.start()
                probe.connector.lanSettled()
            }
            spin(until: { offering.failures.count == 1 && answering.failures.count == 1 })
            XCTAssertEqual(offering.failures, [.linkedOnLAN])
            XCTAssertEqual(answering.failures, [.linkedOnLAN])
            XCTAssertEqual(offering.adopted.count + answering.adopted.count, 0, "the channel over ICE was not handed over")
        }
    }

    /// A revoked device's offer is refused by the answering device (the broker message's
    /// sender is checked against the list held, as a TLS link is): no attempt starts.
    func testAnOfferFromARevokedDeviceIsRefused() throws {
        let (authority, folders, broker) = try setUpGroup(["laptop", "desktop", "tablet"])
        try MainActor.assumeIsolated {
            let desktop = try RelayProbe(folder: folders["desktop"]!, brokerAuthority: broker.authorityFile)
            var tabletSettings = BrokerSignallingSettings(host: "127.0.0.1", port: broker.port, brokerAuthority: broker.authorityFile)
            tabletSettings.firstRetryDelay = .milliseconds(200)
            let tablet = try BrokerProbe(folder: folders["tablet"]!, settings: tabletSettings)
            defer { desktop.stop(); tablet.signalling.stop() }
            desktop.connector.start()
            spin(until: { desktop.isConnected && tablet.signalling.isConnected })

            try authority.revokeDevice(named: "tablet", updating: [folders["desktop"]!])
            desktop.identity = try DeviceIdentity.load(from: folders["desktop"]!)
            desktop.connector.listChanged()
            XCTAssertTrue(desktop.isConnected, "the same settings: signalling goes on with the new list")
            let description = try IceDescription(ufrag: "abcd", pwd: "0123456789abcdefghijkl",
                                                 candidates: ["a=candidate:1 1 UDP 2130706431 127.0.0.1 40000 typ host"])
            let offer = RelayMessage(kind: .offer, attempt: 7, description: description)
            try tablet.signalling.send(offer.encoded(), to: desktop.identity.identifier)
            spin(until: { desktop.events.contains(.brokerMessageRefused(reason: .revokedSender)) })
            XCTAssertEqual(desktop.started, [])
            XCTAssertTrue(desktop.connector.attempts.isEmpty)
        }
    }

    /// A device of another group that got past the broker (one that admits both groups) and
    /// even holds this group's discovery key, so its offer reaches this device's inbox sealed:
    /// its certificate is not the group's, so the offer is refused and no attempt starts.
    func testAnOfferFromADeviceNotInTheGroupIsRefused() throws {
        let (authority, folders) = try group(["laptop", "desktop"])
        let stranger = try GroupAuthority.create(name: "Eve", in: config("eve"))
        let strangerFolder = root.appendingPathComponent("stranger")
        try stranger.issueDevice(named: "stranger").write(to: strangerFolder)
        let bothAuthorities = root.appendingPathComponent("both-groups.pem")
        try (Data(contentsOf: folders["desktop"]!.appendingPathComponent("group.pem")) + Data("\n".utf8)
             + Data(contentsOf: strangerFolder.appendingPathComponent("group.pem"))).write(to: bothAuthorities)
        let port = try MosquittoBroker.freePort()
        let broker = try MosquittoBroker(folder: root.appendingPathComponent("broker"), clientAuthority: bothAuthorities, port: port)
        self.broker = broker
        try broker.start()
        try authority.setRelaySettings(RelaySettings(broker: BrokerAddress(host: "127.0.0.1", port: port)),
                                       updating: Array(folders.values))
        try MainActor.assumeIsolated {
            let desktop = try RelayProbe(folder: folders["desktop"]!, brokerAuthority: broker.authorityFile)
            let own = try DeviceIdentity.load(from: strangerFolder)
            let withOurKey = try DeviceIdentity(certificate: own.certificate, privateKeyPEM: own.privateKeyPEM,
                                                groupCertificate: own.groupCertificate, revocationData: own.revocationData,
                                                discoveryKey: desktop.identity.discoveryKey)
            var settings = BrokerSignallingSettings(host: "127.0.0.1", port: port, brokerAuthority: broker.authorityFile)
            settings.firstRetryDelay = .milliseconds(200)
            let signalling = try BrokerSignalling(identity: withOurKey, identityFolder: strangerFolder, settings: settings)
            signalling.start()
            defer { desktop.stop(); signalling.stop() }
            desktop.connector.start()
            spin(until: { desktop.isConnected && signalling.isConnected })

            let description = try IceDescription(ufrag: "abcd", pwd: "0123456789abcdefghijkl",
                                                 candidates: ["a=candidate:1 1 UDP 2130706431 127.0.0.1 40000 typ host"])
            try signalling.send(RelayMessage(kind: .offer, attempt: 9, description: description).encoded(),
                                to: desktop.identity.identifier)
            spin(until: { desktop.events.contains(.brokerMessageRefused(reason: .untrustedSender)) })
            XCTAssertEqual(desktop.started, [])
            XCTAssertTrue(desktop.connector.attempts.isEmpty)
        }
    }

    /// A newer list whose relay settings name another broker: signalling restarts with them
    /// (the old connection closed, the new broker tried).
    func testChangedSettingsRestartSignalling() throws {
        let (authority, folders, broker) = try setUpGroup(["laptop", "desktop"])
        try MainActor.assumeIsolated {
            let desktop = try RelayProbe(folder: folders["desktop"]!, brokerAuthority: broker.authorityFile)
            defer { desktop.stop() }
            desktop.connector.start()
            spin(until: { desktop.isConnected })
            let first = try XCTUnwrap(desktop.connector.signalling)
            let elsewhere = try authority.setRelaySettings(
                RelaySettings(broker: try BrokerAddress(uri: "mqtts://127.0.0.1:\(try MosquittoBroker.freePort())")),
                updating: [folders["desktop"]!])
            desktop.identity = try DeviceIdentity.load(from: folders["desktop"]!)
            desktop.connector.listChanged()
            XCTAssertFalse(first.isConnected, "the old broker's connection is closed")
            XCTAssertEqual(desktop.connector.settings, elsewhere)
            XCTAssertFalse(desktop.connector.signalling === first)
            spin(until: { desktop.events.contains { if case .brokerConnectFailed = $0 { true } else { false } } })
        }
    }

    /// A newer list with the same broker and another TURN secret (what a revocation makes,
    /// docs/PROTOCOL.md 7.3): the connection to the broker stays, and the new settings are
    /// held for the attempts to come.
    func testANewTURNSecretKeepsTheBrokerConnection() throws {
        let (authority, folders, broker) = try setUpGroup(["laptop", "desktop"])
        try MainActor.assumeIsolated {
            let desktop = try RelayProbe(folder: folders["desktop"]!, brokerAuthority: broker.authorityFile)
            defer { desktop.stop() }
            desktop.connector.start()
            spin(until: { desktop.isConnected })
            let first = try XCTUnwrap(desktop.connector.signalling)
            let held = try XCTUnwrap(desktop.connector.settings)
            let rotated = try authority.setRelaySettings(
                RelaySettings(turn: [TURNServer(host: "127.0.0.1", port: 3478)], broker: held.broker, turnSecret: RelaySettings.generatedSecret()),
                updating: [folders["desktop"]!])
            desktop.identity = try DeviceIdentity.load(from: folders["desktop"]!)
            desktop.connector.listChanged()
            XCTAssertEqual(desktop.connector.settings, rotated)
            XCTAssertTrue(desktop.connector.signalling === first, "signalling was not restarted")
            XCTAssertTrue(first.isConnected)
            XCTAssertEqual(desktop.events.filter { $0 == .brokerConnected }.count, 1)
        }
    }

    func testRelayMessagesAreCheckedBeforeUse() throws {
        let description = try IceDescription(ufrag: "abcd", pwd: "0123456789abcdefghijkl",
                                             candidates: ["a=candidate:1 1 UDP 2130706431 127.0.0.1 40000 typ host"])
        for message in [RelayMessage(kind: .offer, attempt: 1, description: description),
                        RelayMessage(kind: .answer, attempt: .max, description: description),
                        RelayMessage(kind: .decline, attempt: 3, description: nil)] {
            XCTAssertEqual(try RelayMessage.decode(message.encoded()), message)
        }
        XCTAssertThrowsError(try RelayMessage.decode(Data(count: RelayMessage.maximumEncodedSize + 1))) {
            XCTAssertEqual($0 as? IceError, .descriptionTooLarge(RelayMessage.maximumEncodedSize + 1))
        }
        let unknownKind = try Variant.tuple([.uint32(1), .uint32(9), .uint64(1), .bytes(Data())]).serialized()
        XCTAssertThrowsError(try RelayMessage.decode(unknownKind))
        let badDescription = try Variant.tuple([.uint32(1), .uint32(1), .uint64(1), .bytes(Data("junk".utf8))]).serialized()
        XCTAssertThrowsError(try RelayMessage.decode(badDescription))
        let declineWithDescription = try Variant.tuple([.uint32(1), .uint32(3), .uint64(1), .bytes(description.encoded())]).serialized()
        XCTAssertThrowsError(try RelayMessage.decode(declineWithDescription))
    }

    func testRelayAttemptEventsGoThroughJSONUnchanged() throws {
        var events: [DiagnosticEvent] = [.relayAttemptStarted(peer: "desktop", offering: true),
                                         .relayAttemptSucceeded(peer: "desktop", path: .relayed)]
        events += DiagnosticEvent.RelayFailure.allCases.map { .relayAttemptFailed(peer: "desktop", reason: $0, retryAfterMilliseconds: 5000) }
        events.append(.relayAttemptFailed(peer: "laptop", reason: .brokerUnavailable, retryAfterMilliseconds: nil))
        for event in events {
            XCTAssertEqual(try JSONDecoder().decode(DiagnosticEvent.self, from: JSONEncoder().encode(event)), event)
        }
    }
}
