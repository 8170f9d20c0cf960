@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Crypto
import Foundation
import XCTest

/// One device's `BrokerSignalling`, with what it published and received.
@MainActor
final class BrokerProbe {
    let identity: DeviceIdentity
    let signalling: BrokerSignalling
    var events: [BrokerEvent] = []
    var received: [(from: String, blob: Data)] = []

    init(folder: URL, settings: BrokerSignallingSettings) throws {
        identity = try DeviceIdentity.load(from: folder)
        signalling = try BrokerSignalling(identity: identity, identityFolder: folder, settings: settings)
        signalling.onEvent = { [unowned self] in events.append($0) }
        signalling.onReceive = { [unowned self] in received.append(($0, $1)) }
        signalling.start()
    }

    var refusals: [BrokerRefusal] { events.compactMap { if case .refused(let refusal) = $0 { refusal } else { nil } } }
    var failures: [BrokerError] {
        events.compactMap { if case .connectFailed(let error, _) = $0 { error } else { nil } }
    }
    var connections: Int { events.filter { $0 == .connected }.count }
    /// The inbox topic of `device` under this device's current key.
    func inbox(of device: BrokerProbe) -> String { signalling.keys.inbox(of: device.identity.identifier) }
}

/// Signalling through the user's MQTT broker (docs/PROTOCOL.md, 7.2), with a real mosquitto on
/// loopback that admits only the group's devices over TLS 1.3.
final class BrokerSignallingTests: TrustTestCase {
    private var broker: MosquittoBroker?
    private var authority: GroupAuthority?

    override func tearDownWithError() throws {
        broker?.stop()
        broker = nil
        try super.tearDownWithError()
    }

    /// The group's devices `names` (folders), a broker for the group on a free port (started
    /// unless `running` is false), and settings for a device to reach it.
    private func setUpGroup(_ names: [String], running: Bool = true) throws -> ([String: URL], BrokerSignallingSettings) {
        let (authority, folders) = try group(names)
        self.authority = authority
        let port = try MosquittoBroker.freePort()
        let broker = try MosquittoBroker(folder: root.appendingPathComponent("broker"),
                                         clientAuthority: folders[names[0]]!.appendingPathComponent("group.pem"), port: port)
        self.broker = broker
        if running { try broker.start() }
        var settings = BrokerSignallingSettings(host: "127.0.0.1", port: port, brokerAuthority: broker.authorityFile)
        settings.firstRetryDelay = .milliseconds(200)
        settings.maximumRetryDelay = .seconds(1)
        return (folders, settings)
    }

    /// A probe for each of the devices `names` (in `folders`), each connected to the broker
    /// once this returns; the caller stops them.
    @MainActor
    private static func connectedProbes(_ names: [String], _ folders: [String: URL], _ settings: BrokerSignallingSettings,
                                 file: StaticString = #filePath, line: UInt = #line) throws -> [BrokerProbe] {
        let probes = try names.map { try BrokerProbe(folder: folders[$0]!, settings: settings) }
        spin(until: { probes.allSatisfy { $0.signalling.isConnected } }, file: file, line: line)
        return probes
    }

    func testTwoDevicesExchangeBlobsBothWays() throws {
        let (folders, settings) = try setUpGroup(["laptop", "phone"])
        try MainActor.assumeIsolated {
            let probes = try Self.connectedProbes(["laptop", "phone"], folders, settings)
            defer { for probe in probes { probe.signalling.stop() } }
            let (laptop, phone) = (probes[0], probes[1])

            try laptop.signalling.send(Data("offer".utf8), to: phone.identity.identifier)
            spin(until: { phone.received.count == 1 })
            try phone.signalling.send(Data("answer".utf8), to: laptop.identity.identifier)
            spin(until: { laptop.received.count == 1 })

            XCTAssertEqual(phone.received.first?.from, laptop.identity.identifier, "the sender is its certificate's identifier")
            XCTAssertEqual(phone.received.first?.blob, Data("offer".utf8))
            XCTAssertEqual(laptop.received.first?.from, phone.identity.identifier)
            XCTAssertEqual(laptop.received.first?.blob, Data("answer".utf8))
            XCTAssertEqual(laptop.refusals + phone.refusals, [])
            XCTAssertNotEqual(laptop.inbox(of: phone), laptop.inbox(of: laptop))
            XCTAssertFalse(laptop.inbox(of: phone).contains(phone.identity.identifier), "topics name nothing")
        }
    }

    func testADeviceOfAnotherGroupCannotConnect() throws {
        let (_, settings) = try setUpGroup(["laptop"])
        let stranger = try GroupAuthority.create(name: "Eve", in: config("eve"))
        let folder = root.appendingPathComponent("stranger")
        try stranger.issueDevice(named: "stranger").write(to: folder)
        try MainActor.assumeIsolated {
            let probe = try BrokerProbe(folder: folder, settings: settings)
            defer { probe.signalling.stop() }
            spin(until: { probe.failures.count >= 2 })
            XCTAssertEqual(probe.connections, 0)
            XCTAssertEqual(probe.failures.first, .tls, "the broker refuses the stranger's certificate in the handshake")
            XCTAssertThrowsError(try probe.signalling.send(Data("x".utf8), to: "anyone")) {
                XCTAssertEqual($0 as? BrokerError, .notConnected)
            }
        }
    }

    /// With no authority named, the broker is checked against the system's CAs (`/etc/ssl/certs`):
    /// the session is set up and the handshake then refuses a broker the system does not trust
    /// (here the test's own CA), as TLS, not as a library error before any connection.
    func testWithoutAnAuthorityTheBrokerIsCheckedAgainstTheSystemsCAs() throws {
        let (folders, groupSettings) = try setUpGroup(["laptop"])
        var settings = BrokerSignallingSettings(host: "127.0.0.1", port: groupSettings.port, brokerAuthority: nil)
        settings.firstRetryDelay = .milliseconds(200)
        try MainActor.assumeIsolated {
            let probe = try BrokerProbe(folder: folders["laptop"]!, settings: settings)
            defer { probe.signalling.stop() }
            spin(until: { probe.failures.count >= 1 })
            XCTAssertEqual(probe.connections, 0)
            XCTAssertEqual(probe.failures.first, .tls, "the system's CAs do not include the test's CA")
        }
    }

    /// A device of the group can publish on any inbox, but cannot pass a message off as
    /// another device's, nor send one meant for a device to another.
    func testForgedAndMisaddressedEnvelopesAreRefused() throws {
        let (folders, settings) = try setUpGroup(["laptop", "phone", "tablet"])
        try MainActor.assumeIsolated {
            let probes = try Self.connectedProbes(["laptop", "phone", "tablet"], folders, settings)
            defer { for probe in probes { probe.signalling.stop() } }
            let (laptop, phone, tablet) = (probes[0], probes[1], probes[2])

            let topic = tablet.inbox(of: phone)
            func envelope(from sender: String, to recipient: String) -> BrokerEnvelope {
                BrokerEnvelope(sender: sender, recipient: recipient, timestamp: UInt64(Date().timeIntervalSince1970 * 1000),
                               nonce: Data((0..<16).map { _ in UInt8.random(in: 0...255) }), blob: Data("forged".utf8))
            }
            // The tablet claims to be the laptop, with its own certificate…
            try tablet.signalling.publishRaw(
                try envelope(from: laptop.identity.identifier, to: phone.identity.identifier)
                    .sealed(certificate: Data(try tablet.identity.certificate.derBytes()), signingKey: tablet.signalling.signingKey,
                            on: topic, keys: tablet.signalling.keys), on: topic)
            // …and with the laptop's certificate, which it cannot sign for.
            try tablet.signalling.publishRaw(
                try envelope(from: laptop.identity.identifier, to: phone.identity.identifier)
                    .sealed(certificate: Data(try laptop.identity.certificate.derBytes()), signingKey: tablet.signalling.signingKey,
                            on: topic, keys: tablet.signalling.keys), on: topic)
            // A genuine envelope of the laptop's for the tablet, put in the phone's inbox.
            try laptop.signalling.publishRaw(
                try envelope(from: laptop.identity.identifier, to: tablet.identity.identifier)
                    .sealed(certificate: Data(try laptop.identity.certificate.derBytes()), signingKey: laptop.signalling.signingKey,
                            on: topic, keys: laptop.signalling.keys), on: topic)
            // Bytes not sealed with the group's key.
            try tablet.signalling.publishRaw(Data([1]) + Data(repeating: 7, count: 100), on: topic)
            spin(until: { phone.refusals.count == 4 })

            // Messages of different publishers may come in any order.
            XCTAssertEqual(phone.refusals.map { "\($0)" }.sorted(),
                           ([.senderMismatch, .badSignature, .wrongRecipient, .unsealed] as [BrokerRefusal]).map { "\($0)" }.sorted())
            XCTAssertEqual(phone.received.count, 0)
        }
    }

    func testAReplayedOrStaleEnvelopeIsRefused() throws {
        let (folders, settings) = try setUpGroup(["laptop", "phone"])
        try MainActor.assumeIsolated {
            let probes = try Self.connectedProbes(["laptop", "phone"], folders, settings)
            defer { for probe in probes { probe.signalling.stop() } }
            let (laptop, phone) = (probes[0], probes[1])

            let topic = laptop.inbox(of: phone)
            let payload = try BrokerEnvelope.seal(Data("offer".utf8), to: phone.identity.identifier, on: topic, from: laptop.identity,
                                                  signingKey: laptop.signalling.signingKey, keys: laptop.signalling.keys, now: Date())
            try laptop.signalling.publishRaw(payload, on: topic)
            try laptop.signalling.publishRaw(payload, on: topic)
            let old = try BrokerEnvelope.seal(Data("old".utf8), to: phone.identity.identifier, on: topic, from: laptop.identity,
                                              signingKey: laptop.signalling.signingKey, keys: laptop.signalling.keys,
                                              now: Date(timeIntervalSinceNow: -600))
            try laptop.signalling.publishRaw(old, on: topic)
            spin(until: { phone.refusals.count == 2 })
            XCTAssertEqual(phone.refusals, [.replayed, .stale])
            XCTAssertEqual(phone.received.map(\.blob), [Data("offer".utf8)], "the first copy is taken, once")
        }
    }

    /// A 10 MB publish on a device's inbox never reaches its blob handler: the device asked the
    /// broker (MQTT 5 Maximum Packet Size) for nothing over its cap, and what passes is refused
    /// by its size before any decoding.
    func testATenMegabytePublishIsNotTaken() throws {
        let (folders, settings) = try setUpGroup(["laptop", "phone"])
        try MainActor.assumeIsolated {
            let probes = try Self.connectedProbes(["laptop", "phone"], folders, settings)
            defer { for probe in probes { probe.signalling.stop() } }
            let (laptop, phone) = (probes[0], probes[1])

            XCTAssertThrowsError(try laptop.signalling.send(Data(count: 10 << 20), to: phone.identity.identifier)) {
                guard case .tooLarge? = $0 as? BrokerError else { return XCTFail("\($0)") }
            }
            try laptop.signalling.publishRaw(Data(count: 10 << 20), on: laptop.inbox(of: phone))
            try laptop.signalling.send(Data("after".utf8), to: phone.identity.identifier)
            spin(until: { phone.received.count == 1 })
            XCTAssertEqual(phone.received.map(\.blob), [Data("after".utf8)])
            XCTAssertEqual(phone.refusals, [], "the broker dropped it: larger than the phone's Maximum Packet Size")
            XCTAssertTrue(phone.signalling.isConnected)
        }
    }

    func testABrokerDownIsReportedAndTheDeviceConnectsWhenItComesBack() throws {
        let (folders, settings) = try setUpGroup(["laptop"], running: false)
        let broker = self.broker!
        try MainActor.assumeIsolated {
            let laptop = try BrokerProbe(folder: folders["laptop"]!, settings: settings)
            defer { laptop.signalling.stop() }
            spin(until: { laptop.failures.count >= 2 })
            guard case .unreachable? = laptop.failures.first else { return XCTFail("\(laptop.events)") }
            XCTAssertFalse(laptop.signalling.isConnected)

            try broker.start()
            spin(until: { laptop.signalling.isConnected })
            XCTAssertEqual(laptop.connections, 1)

            broker.stop()
            spin(until: { !laptop.signalling.isConnected })
            guard case .disconnected(.connectionLost, _)? = laptop.events.last(where: { if case .disconnected = $0 { true } else { false } })
            else { return XCTFail("\(laptop.events)") }

            try broker.start()
            spin(until: { laptop.connections == 2 })
        }
    }

    /// A "broker" that takes the TCP connection and never answers: each attempt ends at its
    /// deadline with `.timedOut`, and the next is scheduled.
    func testABrokerThatNeverAnswersTimesOut() throws {
        let (folders, base) = try setUpGroup(["laptop"], running: false)
        let silent = try SilentListener()
        defer { silent.close() }
        var settings = base
        settings.port = silent.port
        settings.connectTimeout = .seconds(1)
        try MainActor.assumeIsolated {
            let laptop = try BrokerProbe(folder: folders["laptop"]!, settings: settings)
            defer { laptop.signalling.stop() }
            spin(until: { laptop.failures.count >= 2 })
            XCTAssertEqual(laptop.failures.prefix(2), [.timedOut, .timedOut])
            XCTAssertEqual(laptop.connections, 0)
        }
    }

    /// Revocation rotates the discovery key: the device that took the new list keeps its inbox
    /// of the previous key, where a device that has not yet caught up still reaches it, but
    /// refuses the revoked device there, as its links do.
    func testARevokedDeviceIsRefusedByItsPeers() throws {
        let (folders, settings) = try setUpGroup(["laptop", "phone", "tablet"])
        let authority = self.authority!
        try MainActor.assumeIsolated {
            let probes = try Self.connectedProbes(["laptop", "phone", "tablet"], folders, settings)
            defer { for probe in probes { probe.signalling.stop() } }
            let (laptop, phone, tablet) = (probes[0], probes[1], probes[2])

            try authority.revokeDevice(named: "tablet", updating: [folders["phone"]!])
            phone.signalling.update(identity: try DeviceIdentity.load(from: folders["phone"]!))
            try tablet.signalling.send(Data("from the revoked".utf8), to: phone.identity.identifier)
            try laptop.signalling.send(Data("from the laptop".utf8), to: phone.identity.identifier)
            spin(until: { phone.refusals.count == 1 && phone.received.count == 1 })
            XCTAssertEqual(phone.refusals, [.untrustedSender(.peerRevoked(device: "tablet"))])
            XCTAssertEqual(phone.received.first?.blob, Data("from the laptop".utf8))
        }
    }

    /// Every loop source and callback box the sessions made (a failed attempt's, a connected
    /// one's) is released when signalling stops.
    func testStoppingReleasesEverything() throws {
        let (folders, settings) = try setUpGroup(["laptop"], running: false)
        let broker = self.broker!
        try MainActor.assumeIsolated {
            drainIdle()
            let before = LoopDiagnostics.liveCallbackBoxes
            do {
                let laptop = try BrokerProbe(folder: folders["laptop"]!, settings: settings)
                spin(until: { !laptop.failures.isEmpty })
                try broker.start()
                spin(until: { laptop.signalling.isConnected })
                laptop.signalling.stop()
            }
            drainIdle()
            XCTAssertEqual(LoopDiagnostics.liveCallbackBoxes, before)
        }
    }
}
