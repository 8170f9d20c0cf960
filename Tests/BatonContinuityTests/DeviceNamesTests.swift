@testable import BatonContinuity
import Baton
import BatonLoop
import BatonTestSupport
import DeviceTestSupport
import Crypto
import Foundation
import SwiftASN1
import X509
import XCTest

/// Names no certificate may show (and, for the peer tests, the ones the list gives).
private let groupName = "Ada Lovelace"
private let deviceName = "Ada's laptop"

/// Issue 9, "Privacy": no certificate names the user, the device or the group — each carries
/// an opaque identifier — and the names travel inside the authenticated link, in the group's
/// signed list, relayed like the revocations it also holds. Real TLS (`openssl s_client` as the
/// foreign client), real processes (DeviceProbe) on loopback.
final class DeviceNamesTests: ProcessTestCase {
    /// Starts a DeviceProbe for `folder`; returns it and the address it listens on.
    private func probe(_ folder: URL, _ arguments: [String] = []) throws -> (RunningProcess, String) {
        let process = try RunningProcess(product: "DeviceProbe", [folder.path, "--ok"] + arguments)
        processes.append(process)
        return (process, try XCTUnwrap(process.listeningAddress(), process.output).description)
    }

    /// The certificates in `text` (PEM blocks, as `s_client -showcerts` prints them).
    private func certificates(in text: String) throws -> [Certificate] {
        var found: [Certificate] = []
        var rest = Substring(text)
        while let begin = rest.range(of: "-----BEGIN CERTIFICATE-----"),
              let end = rest.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<rest.endIndex) {
            found.append(try Certificate(pemEncoded: String(rest[begin.lowerBound..<end.upperBound])))
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// A client with no certificate reads the device's certificate chain as the handshake
    /// sends it: no name of the user, the group or the device in it, in the text s_client
    /// prints or in the certificate's bytes — one opaque identifier in each distinguished name.
    /// (Only an insider gets that far: s_client goes through a relay that passes the admission
    /// gate with the group's discovery key. A stranger sees no certificate: AdmissionGateTests.)
    func testAClientWithoutACertificateLearnsNoName() throws {
        let authority = try GroupAuthority.create(name: groupName, in: config("admin"))
        let laptop = try authority.issueDevice(named: deviceName)
        let key = try XCTUnwrap(laptop.discoveryKey)
        let (relay, server) = try MainActor.assumeIsolated {
            let listener = try SecureListener(identity: laptop, credential: try TLSCredential(identity: laptop))
            let relay = try GateRelay(to: listener.port) { AdmissionGate.answer(to: $0, key: key) }
            return (relay, Outcome { try await listener.accept() })
        }
        defer { relay.close() }
        let port = relay.port
        let client = MainActor.assumeIsolated {
            Outcome {
                try await Task.detached {
                    let run = try runProcess(URL(fileURLWithPath: "/usr/bin/openssl"), [
                        "s_client", "-connect", "127.0.0.1:\(port)", "-alpn", "baton/1", "-tls1_3", "-showcerts",
                    ], timeout: 30)
                    return run.stdout + run.stderr
                }.value
            }
        }
        MainActor.assumeIsolated { spin(until: { server.done && client.done }) }
        let seen = try MainActor.assumeIsolated { try client.get() }
        let chain = try certificates(in: seen)
        XCTAssertEqual(chain.count, 1, "the device's certificate, read without one of our own: \(seen)")
        for word in ["Ada", "Lovelace", "laptop", "Baton"] {
            XCTAssertFalse(seen.contains(word), "'\(word)' is readable by anyone who connects: \(seen)")
        }
        for certificate in chain {
            let der = Data(try certificate.derBytes())
            for word in ["Lovelace", "laptop", "Baton"] {  // (3 random bytes could spell "Ada")
                XCTAssertNil(der.range(of: Data(word.utf8)), "'\(word)' in the certificate's bytes")
            }
            for name in [certificate.subject, certificate.issuer] {
                let attributes = name.flatMap { $0 }
                XCTAssertEqual(attributes.map(\.type), [.RDNAttributeType.commonName], "\(name)")
                XCTAssertTrue(attributes.allSatisfy { OpaqueIdentifier.isOpaque("\($0.value)") }, "\(name)")
            }
        }
        XCTAssertEqual(chain.first?.commonName, laptop.identifier)
        XCTAssertEqual(chain.first?.issuer, authority.certificate.subject)
        XCTAssertNotEqual(laptop.identifier, authority.certificate.commonName)
        // The names are in the signed list, which only the group's devices get.
        XCTAssertEqual(laptop.name, deviceName)
        XCTAssertEqual(laptop.groupName, groupName)
        XCTAssertEqual(authority.name, groupName)
    }

    /// A peer's activity shows its device's name from the signed list, not its certificate's
    /// identifier: in `NearbyActivity.device`, and a continuation by that name reaches it.
    func testAPeerIsShownByItsNameFromTheSignedList() throws {
        let authority = try GroupAuthority.create(name: groupName, in: config("admin"))
        let aFolder = root.appendingPathComponent("A"), bFolder = root.appendingPathComponent("B")
        try authority.issueDevice(named: deviceName).write(to: aFolder)
        try authority.issueDevice(named: "B").write(to: bFolder)
        let a = try DeviceIdentity.load(from: aFolder)
        XCTAssertTrue(OpaqueIdentifier.isOpaque(a.identifier))
        let (probeA, address) = try probe(aFolder)
        let aAddress = try XCTUnwrap(PeerAddress(address))
        try MainActor.assumeIsolated {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: bFolder), identityDirectory: bFolder,
                                          staticPeers: [aAddress])
            try node.start(host: "127.0.0.1")
            defer { node.stop() }
            spin(until: { !Application.shared.nearbyActivities.isEmpty })
            let entry = try XCTUnwrap(Application.shared.nearbyActivities.first)
            XCTAssertEqual(entry.device, deviceName)
            XCTAssertEqual(node.connectedPeers, [deviceName])
            XCTAssertEqual(node.link(shownAs: deviceName)?.id, a.identifier, "links are kept by identifier")
            let fetch = Outcome { try await node.fetchPayload(of: entry) }
            spin(until: { fetch.done })
            XCTAssertNoThrow(try fetch.get())
        }
        // A, issued first, learnt B's name from B's list when they linked.
        XCTAssertTrue(probeA.waitFor(.unlinked(peer: "B", reason: .closed)), probeA.output)
    }

    /// A is issued, then B: A's list does not name B. Once they link, A takes B's newer list
    /// (relayed as revocations are), saves it, and shows B by name from then on — never by the
    /// short form of B's identifier, since a link asks for the list before the activity.
    func testADeviceAddedLaterIsNamedThroughTheRelayedList() throws {
        let authority = try GroupAuthority.create(name: groupName, in: config("admin"))
        let aFolder = root.appendingPathComponent("A"), bFolder = root.appendingPathComponent("B")
        try authority.issueDevice(named: "A").write(to: aFolder)
        let (a, address) = try probe(aFolder)
        try authority.issueDevice(named: "B").write(to: bFolder)
        let b = try DeviceIdentity.load(from: bFolder)
        XCTAssertEqual(try DeviceIdentity.load(from: aFolder).deviceName(of: b.identifier), "device \(b.identifier.prefix(8))",
                       "A's list is older than B")
        let (probeB, _) = try probe(bFolder, ["--peer", address])
        XCTAssertTrue(a.waitFor(.revocationsAdopted(sequence: 2, from: "device \(b.identifier.prefix(8))")), a.output)
        XCTAssertTrue(a.waitForNearby(from: "B"), a.output)
        XCTAssertTrue(probeB.waitForNearby(from: "A"), probeB.output)
        XCTAssertFalse(a.diagnosticEvents.contains { if case .nearbyOffered(_, let device) = $0 { device.hasPrefix("device ") } else { false } },
                       a.output)
        let saved = try DeviceIdentity.load(from: aFolder)
        XCTAssertEqual(saved.deviceName(of: b.identifier), "B", "saved beside A's identity")
        XCTAssertEqual(mode(aFolder.appendingPathComponent("revocations")), 0o600, "the list names the devices: not for others")
    }

    /// A list the group did not sign, or one older than the list held, is refused: its names
    /// never replace the ones held — neither by `adopt` nor when a peer relays it to a node.
    func testAForgedOrOlderListWithOtherNamesIsRefused() throws {
        let authority = try GroupAuthority.create(name: groupName, in: config("admin"))
        let first = try authority.issueDevice(named: "laptop")
        var phone = try authority.issueDevice(named: "phone")
        let older = first.revocationData
        var forged = phone.revocations
        forged.sequence += 10
        forged.deviceNames[first.identifier] = "Mallory"
        forged.groupName = "Eve"
        let forgedData = try forged.signed(with: P256.Signing.PrivateKey())
        XCTAssertThrowsError(try phone.adopt(revocationData: forgedData)) {
            XCTAssertEqual($0 as? TrustError, .revocationListNotSigned(path: "offered revocation list"))
        }
        // The group's signature of another body, under a body with other names.
        var tampered = try authority.revocationList()
        tampered.deviceNames[first.identifier] = "Mallory"
        guard case .tuple(let genuine) = try Variant(serialized: phone.revocationData, type: "(ayay)"),
              case .tuple(let altered) = try Variant(serialized: try tampered.signed(with: authority.privateKey), type: "(ayay)") else {
            return XCTFail("not a signed list")
        }
        let spliced = try Variant.tuple([altered[0], genuine[1]]).serialized()
        XCTAssertThrowsError(try phone.adopt(revocationData: spliced)) {
            XCTAssertEqual($0 as? TrustError, .revocationListNotSigned(path: "offered revocation list"))
        }
        // An older list (the group's own) naming fewer devices.
        XCTAssertThrowsError(try phone.adopt(revocationData: older)) {
            XCTAssertEqual($0 as? TrustError, .revocationListOlder(have: 2, offered: 1))
        }
        XCTAssertEqual(phone.deviceName(of: first.identifier), "laptop")
        XCTAssertEqual(phone.groupName, groupName)

        let folder = root.appendingPathComponent("phone")
        try phone.write(to: folder)
        try MainActor.assumeIsolated {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: folder), identityDirectory: folder)
            node.consider(revocationData: forgedData, from: "a peer")
            node.consider(revocationData: older, from: "a peer")
            XCTAssertEqual(node.identity.deviceName(of: first.identifier), "laptop")
            XCTAssertEqual(node.identity.revocations.sequence, 2)
            XCTAssertEqual(try DeviceIdentity.load(from: folder).revocationData, phone.revocationData, "nothing saved")
        }
    }

    /// Lists of versions 1 and 2 (before names) still verify; a device issued before names
    /// moved (its certificate's common name is its name) is shown by that name; and the first
    /// device added to such a group carries the rotated key's epoch into the new list.
    func testListsAndIdentitiesFromBeforeNamesStillRead() throws {
        let authority = try GroupAuthority.create(name: groupName, in: config("admin"))
        let key = authority.privateKey
        func signed(_ fields: [Variant]) throws -> Data {
            let body = try Variant.tuple(fields).serialized()
            return try Variant.tuple([.bytes(body), .bytes(try key.signature(for: body).derRepresentation)]).serialized()
        }
        let v1 = try signed([.uint32(1), .uint64(3), .array(elementType: "s", [.string("0a")]), .int64(1_780_000_000)])
        let one = try RevocationList.verified(v1, authority: authority.certificate, path: "v1")
        XCTAssertEqual(one.sequence, 3)
        XCTAssertEqual(one.revokedSerials, ["0a"])
        XCTAssertNil(one.discoveryKeyCommitment)
        XCTAssertEqual(one.discoveryKeyEpoch, 0)
        XCTAssertEqual(one.deviceNames, [:])
        XCTAssertNil(one.groupName)
        XCTAssertEqual(one.deviceName(of: "laptop"), "laptop", "an old certificate's identifier is its name")

        let rotated = DiscoveryKey(derivedFrom: key, epoch: 4)
        let v2 = try signed([.uint32(2), .uint64(4), .array(elementType: "s", [.string("0a"), .string("0b")]),
                             .int64(1_780_000_000), .bytes(rotated.commitment)])
        let two = try RevocationList.verified(v2, authority: authority.certificate, path: "v2")
        XCTAssertEqual(two.sequence, 4)
        XCTAssertEqual(two.discoveryKeyCommitment, rotated.commitment)
        XCTAssertEqual(two.discoveryKeyEpoch, 4, "a version-2 list's key epoch is its sequence")

        // A device of the old kind: its certificate's common name is its name.
        let legacy = try identity("laptop", extensions: try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
            try ExtendedKeyUsage([.serverAuth, .clientAuth])
        }, authority: authority)
        XCTAssertEqual(legacy.name, "laptop")
        XCTAssertEqual(try legacy.verifyPeer(legacy.certificate), "laptop")

        // The group held the version-2 list: a device added now gets the rotated key, and the
        // new list keeps its epoch (it is not the new sequence).
        try SecureFiles.write(v2, to: config("admin").groupDirectory.appendingPathComponent("revocations"), mode: 0o644)
        XCTAssertEqual(try authority.discoveryKey(), rotated)
        let phone = try authority.issueDevice(named: "phone")
        XCTAssertEqual(phone.revocations.sequence, 5)
        XCTAssertEqual(phone.revocations.discoveryKeyEpoch, 4)
        XCTAssertEqual(phone.revocations.revokedSerials, ["0a", "0b"])
        XCTAssertEqual(phone.discoveryKey, rotated)
        XCTAssertTrue(phone.discoveryKeyIsCurrent)
        XCTAssertEqual(phone.name, "phone")
        XCTAssertEqual(mode(config("admin").groupDirectory.appendingPathComponent("revocations")), 0o600)
    }

    /// Names a list carries that no issued name could be are not taken from it.
    func testAListKeepsOnlyNamesThatCouldHaveBeenIssued() throws {
        let authority = try GroupAuthority.create(name: groupName, in: config("admin"))
        let list = RevocationList(sequence: 1, deviceNames: ["0123": "ok", "4567": "bad\u{202E}name", "89ab": ""], groupName: "x\u{1B}[2J")
        let read = try RevocationList.verified(try list.signed(with: authority.privateKey), authority: authority.certificate, path: "x")
        XCTAssertEqual(read.deviceNames, ["0123": "ok"])
        XCTAssertNil(read.groupName)
    }
}
