@testable import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

/// Issue 9, "Privacy" and "Trust": a DNS-SD token verifies only for the address and port it was
/// published for, and a revocation rotates the discovery key so the revoked device no longer
/// recognises the group's tokens.
final class DiscoveryTokenTests: TrustTestCase {
    func testATokenReplayedFromAnotherAddressOrPortDoesNotVerify() throws {
        let key = try XCTUnwrap(try GroupAuthority.create(name: "Ada", in: config("ada")).issueDevice(named: "a").discoveryKey)
        let token = key.freshToken(port: 40_001, addresses: ["192.0.2.7"])
        XCTAssertTrue(key.recognises(token, port: 40_001, address: "192.0.2.7"))
        XCTAssertFalse(key.recognises(token, port: 40_001, address: "192.0.2.66"), "replayed from the attacker's address")
        XCTAssertFalse(key.recognises(token, port: 40_002, address: "192.0.2.7"), "replayed on another port")
        XCTAssertFalse(key.recognises(token, port: 40_001, address: "192.0.2.70"), "an address that merely starts alike")
        let record = ServiceRecord(instanceName: "baton-00000000", token: token)
        XCTAssertNotNil(ServiceRecord.refusal(of: record.txt, key: key, port: 40_001, address: "198.51.100.9"))
        XCTAssertNil(ServiceRecord.refusal(of: record.txt, key: key, port: 40_001, address: "192.0.2.7"))
    }

    /// An interface with several addresses: one token carries a MAC per address (at most 4),
    /// any of which verifies; a longer token is refused.
    func testATokenCoversEachAddressOfItsInterface() throws {
        let key = try XCTUnwrap(try GroupAuthority.create(name: "Ada", in: config("ada")).issueDevice(named: "a").discoveryKey)
        let token = key.freshToken(port: 7, addresses: ["10.0.0.1", "10.0.0.2"])
        XCTAssertEqual(token.count, 16 + 2 * 16)
        XCTAssertTrue(key.recognises(token, port: 7, address: "10.0.0.1"))
        XCTAssertTrue(key.recognises(token, port: 7, address: "10.0.0.2"))
        XCTAssertFalse(key.recognises(token, port: 7, address: "10.0.0.3"))
        let many = key.freshToken(port: 7, addresses: (1...9).map { "10.0.0.\($0)" })
        XCTAssertEqual(many.count, 16 + DiscoveryKey.maxAddresses * 16, "capped")
        XCTAssertFalse(key.recognises(many + String(many.suffix(16)), port: 7, address: "10.0.0.1"), "over the cap")
    }

    /// The publisher's addresses: each interface that is up, not loopback, IPv4.
    @MainActor
    func testThePublisherBindsItsTokensToItsInterfaceAddresses() {
        for (index, addresses) in ServiceDiscovery.interfaceAddresses() {
            XCTAssertGreaterThan(index, 0)
            XCTAssertFalse(addresses.isEmpty)
            XCTAssertFalse(addresses.contains { $0.hasPrefix("127.") })
        }
    }

    func testARevocationRotatesTheDiscoveryKeyAndTheListCommitsToIt() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        var laptop = try authority.issueDevice(named: "laptop")
        let phone = try authority.issueDevice(named: "phone")
        let old = try XCTUnwrap(laptop.discoveryKey)
        XCTAssertEqual(old, try authority.discoveryKey(), "epoch 0 until a revocation")
        let list = try authority.revokeDevice(named: "phone")
        let new = try authority.discoveryKey()
        XCTAssertNotEqual(new, old)
        let token = new.freshToken(port: 9, addresses: ["192.0.2.1"])
        XCTAssertFalse(try XCTUnwrap(phone.discoveryKey).recognises(token, port: 9, address: "192.0.2.1"),
                       "the revoked device cannot recognise the group's new tokens")

        try laptop.adopt(revocationData: list)
        XCTAssertEqual(laptop.revocations.discoveryKeyCommitment, new.commitment)
        XCTAssertFalse(laptop.discoveryKeyIsCurrent, "the laptop holds the old key")
        XCTAssertThrowsError(try laptop.adopt(discoveryKey: old.bytes)) {
            XCTAssertEqual($0 as? TrustError, .discoveryKeyNotCommitted(sequence: 3), "lists 1 and 2 named the laptop and the phone")
        }
        XCTAssertThrowsError(try laptop.adopt(discoveryKey: Data(repeating: 7, count: 32)), "a key the list does not name")
        try laptop.adopt(discoveryKey: new.bytes)
        XCTAssertTrue(laptop.discoveryKeyIsCurrent)
        let tablet = try authority.issueDevice(named: "tablet")
        XCTAssertEqual(tablet.discoveryKey, new, "devices issued now get the new key")
        XCTAssertEqual(tablet.revocations.discoveryKeyEpoch, 3, "adding a device makes a new list but keeps the key's epoch")
        XCTAssertEqual(tablet.revocations.sequence, 4)
        XCTAssertTrue(tablet.discoveryKeyIsCurrent)
    }

    /// Lists written before rotation existed (version 1, no commitment) still verify, and keep
    /// the key the devices hold.
    func testAVersionOneListStillVerifies() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        var laptop = try authority.issueDevice(named: "laptop")
        let legacy = try RevocationList(sequence: 5, revokedSerials: ["0a"]).signed(with: authority.privateKey)
        try laptop.adopt(revocationData: legacy)
        XCTAssertEqual(laptop.revocations.sequence, 5)
        XCTAssertNil(laptop.revocations.discoveryKeyCommitment)
        XCTAssertTrue(laptop.discoveryKeyIsCurrent)
    }
}
