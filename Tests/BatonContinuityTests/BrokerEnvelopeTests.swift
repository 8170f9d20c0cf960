@testable import BatonContinuity
import Crypto
import Foundation
import XCTest

/// The sealed, signed envelope of signalling through a broker, and its replay memory
/// (docs/PROTOCOL.md, 7.2), without a broker.
final class BrokerEnvelopeTests: TrustTestCase {
    func testAnEnvelopeOpensOnlyWithItsGroupsKeyAndTopic() throws {
        let (_, folders) = try group(["laptop", "phone"])
        let laptop = try DeviceIdentity.load(from: folders["laptop"]!), phone = try DeviceIdentity.load(from: folders["phone"]!)
        let keys = BrokerKeys(laptop.discoveryKey!)
        let topic = keys.inbox(of: phone.identifier)
        let signingKey = try P256.Signing.PrivateKey(pemRepresentation: laptop.privateKeyPEM)
        let payload = try BrokerEnvelope.seal(Data("blob".utf8), to: phone.identifier, on: topic, from: laptop,
                                              signingKey: signingKey, keys: keys, now: Date())

        let (envelope, certificate) = try BrokerEnvelope.open(payload, on: topic, keys: BrokerKeys(phone.discoveryKey!), limit: 65_536)
        XCTAssertEqual(envelope.sender, laptop.identifier)
        XCTAssertEqual(envelope.recipient, phone.identifier)
        XCTAssertEqual(envelope.blob, Data("blob".utf8))
        XCTAssertEqual(try phone.verifyPeer(certificate), laptop.identifier)

        let other = try GroupAuthority.create(name: "Eve", in: config("eve")).issueDevice(named: "eve")
        XCTAssertThrowsError(try BrokerEnvelope.open(payload, on: topic, keys: BrokerKeys(other.discoveryKey!), limit: 65_536)) {
            XCTAssertEqual($0 as? BrokerRefusal, .unsealed)
        }
        XCTAssertThrowsError(try BrokerEnvelope.open(payload, on: keys.inbox(of: laptop.identifier), keys: keys, limit: 65_536)) {
            XCTAssertEqual($0 as? BrokerRefusal, .unsealed, "the topic is authenticated with it")
        }
        var flipped = payload
        flipped[flipped.count / 2] ^= 1
        XCTAssertThrowsError(try BrokerEnvelope.open(flipped, on: topic, keys: keys, limit: 65_536)) {
            XCTAssertEqual($0 as? BrokerRefusal, .unsealed)
        }
    }

    func testAPayloadOverTheCapIsRefusedBeforeItIsRead() throws {
        let (_, folders) = try group(["laptop"])
        let keys = BrokerKeys(try DeviceIdentity.load(from: folders["laptop"]!).discoveryKey!)
        XCTAssertThrowsError(try BrokerEnvelope.open(Data(count: 10 << 20), on: "baton/x", keys: keys, limit: 65_536)) {
            XCTAssertEqual($0 as? BrokerRefusal, .tooLarge(size: 10 << 20, limit: 65_536))
        }
    }

    func testTheReplayMemoryIsBoundedAndLetsNoReplayThrough() {
        var replays = ReplayGuard(tolerance: 120_000, capacity: 3)
        let now: UInt64 = 1_000_000_000
        let nonces = (0..<5).map { Data([UInt8($0)]) }
        for (index, nonce) in nonces.prefix(3).enumerated() {
            XCTAssertNil(replays.admit(sender: "a", nonce: nonce, timestamp: now + UInt64(index), now: now))
        }
        XCTAssertEqual(replays.admit(sender: "a", nonce: nonces[1], timestamp: now + 1, now: now), .replayed)
        XCTAssertNil(replays.admit(sender: "b", nonce: nonces[1], timestamp: now + 1, now: now), "nonces are per sender")
        // Full: the oldest (timestamp now) is forgotten, and nothing that old is taken any more.
        XCTAssertEqual(replays.admit(sender: "a", nonce: nonces[0], timestamp: now, now: now), .replayed)
        XCTAssertNil(replays.admit(sender: "a", nonce: nonces[4], timestamp: now + 10, now: now))
        XCTAssertEqual(replays.admit(sender: "a", nonce: nonces[3], timestamp: now - 200_000, now: now), .stale)
        XCTAssertEqual(replays.admit(sender: "a", nonce: nonces[3], timestamp: now + 200_000, now: now), .stale)
    }
}
