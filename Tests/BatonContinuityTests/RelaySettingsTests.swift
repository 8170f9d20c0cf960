@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import Crypto
import Foundation
import X509
import XCTest

/// Issue 29, relay settings (docs/PROTOCOL.md 7.3): the TURN servers, the broker and the TURN
/// shared secret travel in the group's signed list (version 4), so they are signed, versioned
/// and stored like the revocations; a forged, older or oversized list is refused with a typed
/// reason and nothing changes, in memory or on disk.
final class RelaySettingsTests: TrustTestCase {
    private let secret = Data("0123456789abcdef0123456789abcdef".utf8)

    private func settings() throws -> RelaySettings {
        RelaySettings(turn: [try TURNServer(uri: "turn:turn.example.net:3478"), try TURNServer(uri: "turn:turn.example.net?transport=tcp")],
                      broker: try BrokerAddress(uri: "mqtts://broker.example.net"), turnSecret: secret)
    }

    /// The version field of a signed list's body.
    private func bodyVersion(_ data: Data) throws -> UInt32? {
        guard case .tuple(let parts) = try Variant(serialized: data, type: "(ayay)"), case .bytes(let body) = parts[0] else { return nil }
        return body.prefix(4).withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
    }

    func testSettingsAreSignedIntoTheListAndReadBackFromTheDevicesFolder() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let own = config("admin").deviceDirectory
        _ = try authority.issueDevice(named: "laptop", writingTo: own)
        XCTAssertNil(try RelaySettings.load(from: own))
        XCTAssertEqual(try bodyVersion(try Data(contentsOf: own.appendingPathComponent("revocations"))), 3,
                       "a list without relay settings stays version 3, which older devices read")
        let before = try authority.revocationList().sequence

        let written = try authority.setRelaySettings(try settings(), updating: [own])
        XCTAssertEqual(written.version, 1)
        XCTAssertEqual(try JSONDecoder().decode(RelaySettings.self, from: try JSONEncoder().encode(written)), written, "Codable")
        XCTAssertEqual(try RelaySettings.load(from: own), written)
        XCTAssertEqual(try authority.relaySettings(), written)
        XCTAssertEqual(try authority.revocationList().sequence, before + 1)
        let list = own.appendingPathComponent("revocations")
        XCTAssertEqual(try bodyVersion(try Data(contentsOf: list)), 4)
        XCTAssertEqual(mode(list), 0o600, "the secret is in it")
        XCTAssertEqual(mode(config("admin").groupDirectory.appendingPathComponent("revocations")), 0o600)

        // Later lists (a device added, one revoked) carry the settings on, a revocation with a new
        // TURN secret (RevocationAtRelayServersTests); a new setting is the next version.
        let phone = try authority.issueDevice(named: "phone", updating: [own])
        XCTAssertEqual(phone.revocations.relay, written, "a new device gets them with its identity")
        try authority.revokeDevice(named: "phone", updating: [own])
        var rotated = written
        rotated.turnSecret = try RelaySettings.load(from: own)?.turnSecret
        rotated.version += 1
        XCTAssertEqual(try RelaySettings.load(from: own), rotated)
        XCTAssertNotEqual(rotated.turnSecret, written.turnSecret)
        var next = try settings()
        next.turn.removeLast()
        next.broker = nil
        let second = try authority.setRelaySettings(next, updating: [own])
        XCTAssertEqual(second.version, 3)
        XCTAssertEqual(try RelaySettings.load(from: own), second)
        XCTAssertNil(second.broker)
    }

    /// A list with relay settings carries the revoked devices' identifiers (version 5), for the
    /// relay connector, which knows devices by identifier; one without settings stays version 3
    /// and carries none; setting relays after a revocation names the devices revoked before.
    func testAListWithRelaySettingsCarriesTheRevokedDevicesIdentifiers() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let own = config("admin").deviceDirectory
        _ = try authority.issueDevice(named: "laptop", writingTo: own)
        let phone = try authority.issueDevice(named: "phone", updating: [own])
        let tablet = try authority.issueDevice(named: "tablet", updating: [own])
        let list = own.appendingPathComponent("revocations")

        try authority.revokeDevice(named: "phone", updating: [own])
        XCTAssertEqual(try bodyVersion(try Data(contentsOf: list)), 3, "no relay settings: version 3, older devices read it")
        XCTAssertEqual(try DeviceIdentity.load(from: own).revocations.revokedDevices, [])

        try authority.setRelaySettings(try settings(), updating: [own])
        XCTAssertEqual(try bodyVersion(try Data(contentsOf: list)), 5)
        XCTAssertEqual(try DeviceIdentity.load(from: own).revocations.revokedDevices, [phone.identifier],
                       "the device revoked before the settings is named")
        try authority.revokeDevice(named: "tablet", updating: [own])
        let held = try DeviceIdentity.load(from: own).revocations
        XCTAssertEqual(held.revokedDevices, [phone.identifier, tablet.identifier])
        XCTAssertEqual(held.revokedSerials, [phone.certificate.serialHex, tablet.certificate.serialHex])
        XCTAssertEqual(held.relay?.broker, try settings().broker, "the settings read as in version 4")
        XCTAssertEqual(held.deviceNames[tablet.identifier], "tablet", "the names read as in version 3")
        _ = try authority.issueDevice(named: "watch", updating: [own])
        XCTAssertEqual(try DeviceIdentity.load(from: own).revocations.revokedDevices, [phone.identifier, tablet.identifier],
                       "later lists carry them on")
    }

    /// The credentials are the TURN REST API's, checked against openssl's HMAC-SHA1.
    func testTURNCredentialsAreTheRESTAPIsCheckedAgainstOpenSSL() throws {
        let settings = try settings()
        let now = Date(timeIntervalSince1970: 1_800_000_000.7)
        let credentials = settings.turnCredentials(for: "0123abcd", validFor: .seconds(3600), now: now)
        XCTAssertEqual(credentials.username, "1800003600:0123abcd")
        XCTAssertEqual(credentials.expires, Date(timeIntervalSince1970: 1_800_003_600))
        let script = "printf %s '\(credentials.username)' | openssl dgst -sha1 -hmac '\(String(decoding: secret, as: UTF8.self))' -binary | base64"
        let run = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script], timeout: 30)
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(credentials.password, run.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    func testURIsAreReadAndRefusedNamingTheValue() throws {
        XCTAssertEqual(try TURNServer(uri: "turn:turn.example.net"), TURNServer(host: "turn.example.net", port: 3478, transport: .udp))
        XCTAssertEqual(try TURNServer(uri: "turn:198.51.100.7:3479?transport=tcp"), TURNServer(host: "198.51.100.7", port: 3479, transport: .tcp))
        XCTAssertEqual(try TURNServer(uri: "turns:[2001:db8::1]"), TURNServer(host: "2001:db8::1", port: 5349, transport: .tls))
        XCTAssertEqual(try TURNServer(uri: "turns:[2001:db8::1]").uri, "turns:[2001:db8::1]:5349?transport=tcp")
        XCTAssertEqual(try BrokerAddress(uri: "mqtts://Broker.Example.net/"), BrokerAddress(host: "broker.example.net", port: 8883))
        XCTAssertEqual(try BrokerAddress(uri: "mqtts://10.0.0.2:18883").uri, "mqtts://10.0.0.2:18883")
        for bad in ["stun:turn.example.net", "turn://turn.example.net", "turn:turn.example.net:0", "turn:turn.example.net:99999",
                    "turns:h.example?transport=udp", "turn:h.example?transport=sctp", "turn::3478", "turn:[::1"] {
            XCTAssertThrowsError(try TURNServer(uri: bad), bad) {
                guard case .invalidTURNServer(let value, _) = $0 as? RelaySettingsError else { return XCTFail("\($0)") }
                XCTAssertEqual(value, bad)
            }
        }
        for bad in ["turn:bad_host", "turn:-x.example", "turn:a..b", "turn:999.1.1.1", "turn:h\u{202E}.example", "turn:h;rm.example"] {
            XCTAssertThrowsError(try TURNServer(uri: bad), bad) {
                guard case .invalidHost = $0 as? RelaySettingsError else { return XCTFail("\(bad): \($0)") }
            }
        }
        XCTAssertThrowsError(try BrokerAddress(uri: "mqtt://broker.example.net")) {
            guard case .invalidBroker("mqtt://broker.example.net", _) = $0 as? RelaySettingsError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try BrokerAddress(uri: "mqtts://user@broker.example.net")) {
            guard case .invalidBroker = $0 as? RelaySettingsError else { return XCTFail("\($0)") }
        }
        var noSecret = try settings()
        noSecret.turnSecret = nil
        XCTAssertThrowsError(try noSecret.validate()) { XCTAssertEqual($0 as? RelaySettingsError, .missingSecret) }
        XCTAssertThrowsError(try RelaySettings.checkSecret(Data("short".utf8))) {
            guard case .invalidSecret = $0 as? RelaySettingsError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try RelaySettings.checkSecret(Data("0123456789abcdef #comment".utf8)))
        XCTAssertNoThrow(try RelaySettings.checkSecret(RelaySettings.generatedSecret()))
        XCTAssertThrowsError(try RelaySettings().validate()) { XCTAssertEqual($0 as? RelaySettingsError, .nothingToSet) }
    }

    /// A list signed by another group, an older one, and one the group signed whose settings
    /// are over the caps: each refused with its typed reason, by `adopt` and by a node a peer
    /// relays it to; the settings held and the file beside the identity stay as they were.
    func testForgedOlderAndOversizedSettingsAreRefusedAndNothingChanges() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let folder = root.appendingPathComponent("phone")
        try authority.issueDevice(named: "phone").write(to: folder)
        let olderList = try authority.revocationList().signed(with: authority.privateKey)
        try authority.setRelaySettings(try settings(), updating: [folder])
        var device = try DeviceIdentity.load(from: folder)
        let held = try XCTUnwrap(device.revocations.relay)
        let onDisk = try Data(contentsOf: folder.appendingPathComponent("revocations"))

        // Another group's authority (a stranger's key) signs settings pointing at its own relay.
        var forged = device.revocations
        forged.sequence += 5
        forged.relay?.turn = [TURNServer(host: "evil.example", port: 3478, transport: .udp)]
        let forgedData = try forged.signed(with: P256.Signing.PrivateKey())
        XCTAssertThrowsError(try device.adopt(revocationData: forgedData)) {
            XCTAssertEqual($0 as? TrustError, .revocationListNotSigned(path: "offered revocation list"))
        }
        XCTAssertThrowsError(try device.adopt(revocationData: olderList)) {
            XCTAssertEqual($0 as? TrustError, .revocationListOlder(have: 2, offered: 1))
        }
        // Signed by the group itself (bypassing `setRelaySettings`' checks), but over the caps.
        func signedByGroup(_ change: (inout RelaySettings) -> Void) throws -> Data {
            var list = device.revocations
            list.sequence += 1
            change(&list.relay!)
            return try list.signed(with: authority.privateKey)
        }
        var long = held
        long.turn[0].host = String(repeating: "a", count: 5000)
        let longSize = try long.variant.serialized().count
        let oversized: [(Data, TrustError)] = [
            (try signedByGroup { $0.turn = (1...9).map { TURNServer(host: "t\($0).example", port: 3478) } },
             .relaySettingsRefused(.tooManyTURNServers(count: 9, limit: 8))),
            (try signedByGroup { $0.turn[0].host = String(repeating: "a", count: 5000) },
             .relaySettingsRefused(.tooLarge(size: longSize, limit: RelaySettings.maximumEncodedSize))),
            (try signedByGroup { $0.turnSecret = Data(repeating: 0x61, count: 300) },
             .relaySettingsRefused(.invalidSecret(problem: "it has 300 characters; it needs 16–256"))),
            (try signedByGroup { $0.broker?.host = "broker\n.example" }, .relaySettingsRefused(.invalidHost("broker\n.example"))),
        ]
        for (data, reason) in oversized {
            XCTAssertThrowsError(try device.adopt(revocationData: data)) { XCTAssertEqual($0 as? TrustError, reason) }
        }
        XCTAssertEqual(device.revocations.relay, held)

        try MainActor.assumeIsolated {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: folder), identityDirectory: folder)
            for data in [forgedData, olderList] + oversized.map(\.0) { node.consider(revocationData: data, from: "a peer") }
            XCTAssertEqual(node.identity.revocations.relay, held)
            XCTAssertEqual(node.identity.revocations.sequence, 2)
        }
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("revocations")), onDisk, "nothing saved")
        XCTAssertEqual(try RelaySettings.load(from: folder), held)
    }

    /// The broker's certificate is the group's, for the broker's host and serverAuth alone: it
    /// verifies against the group CA but can never pass for a device.
    func testTheBrokersCertificateCannotPassForADevice() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let issued = try authority.issueBrokerCertificate(host: "broker.example.net")
        let certificate = try Certificate(pemEncoded: issued.certificatePEM)
        XCTAssertEqual(certificate.issuer, authority.certificate.subject)
        XCTAssertNotNil(DeviceIdentity.deviceProfileDefect(of: certificate), "serverAuth alone is not a device's profile")
        XCTAssertThrowsError(try authority.issueBrokerCertificate(host: "bad host"))
        let long = String(repeating: "b", count: 60) + ".example.net"
        let longName = try Certificate(pemEncoded: try authority.issueBrokerCertificate(host: long).certificatePEM)
        XCTAssertTrue(OpaqueIdentifier.isOpaque(longName.commonName ?? ""), "a common name holds at most 64 characters")
        XCTAssertEqual(try longName.extensions.subjectAlternativeNames.map(Array.init), [.dnsName(long)])
    }
}
