@testable import BatonContinuity
import BatonLoop
import Crypto
import Foundation
import X509
import XCTest

/// Issuing a device for a key made on the device itself (pairing): the authority certifies the
/// public key it is given, and the device writes its identity from the grant beside its own key.
final class DeviceGrantTests: TrustTestCase {
    /// Every file under `folder`, with its mode and bytes.
    private func snapshot(_ folder: URL) throws -> [String: (mode: Int, data: Data)] {
        var files: [String: (mode: Int, data: Data)] = [:]
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return files }
        for case let url as URL in walker {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            guard attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            files[url.path] = ((attributes[.posixPermissions] as? Int) ?? -1, try Data(contentsOf: url))
        }
        return files
    }

    private func assertSame(_ a: [String: (mode: Int, data: Data)], _ b: [String: (mode: Int, data: Data)],
                            file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(Set(a.keys), Set(b.keys), file: file, line: line)
        for (path, entry) in a {
            XCTAssertEqual(entry.mode, b[path]?.mode, path, file: file, line: line)
            XCTAssertEqual(entry.data, b[path]?.data, path, file: file, line: line)
        }
    }

    func testTheAuthorityCertifiesTheKeyItIsGivenAndTheDeviceWritesItsIdentityBesideItsOwnKey() throws {
        let admin = config("admin")
        let authority = try GroupAuthority.create(name: "Ada", in: admin)
        _ = try authority.issueDevice(named: "A", writingTo: admin.deviceDirectory)
        let key = P256.Signing.PrivateKey()
        let grant = try authority.grantDevice(named: "B", publicKey: key.publicKey, updating: [admin.deviceDirectory])
        XCTAssertEqual(grant.certificate.publicKey, Certificate.PublicKey(key.publicKey), "the certificate is for the key given")
        XCTAssertNil(DeviceIdentity.deviceProfileDefect(of: grant.certificate))
        XCTAssertEqual(try authority.loadRoster().devices.map(\.name), ["A", "B"])
        XCTAssertEqual(try DeviceIdentity.load(from: admin.deviceDirectory).deviceName(of: grant.certificate.commonName!), "B",
                       "this machine's own device took the list naming B")

        // Across the wire and back, then written on the device.
        let received = try DeviceGrant(serialized: try grant.serialized())
        let identity = try received.identity(privateKey: key, expectedName: "B")
        let folder = root.appendingPathComponent("B")
        try identity.write(to: folder)
        let loaded = try DeviceIdentity.load(from: folder)
        XCTAssertEqual(loaded.name, "B")
        XCTAssertEqual(loaded.groupName, "Ada")
        XCTAssertEqual(loaded.discoveryKey, try authority.discoveryKey())
        XCTAssertEqual(try SecureFiles.privateKey(at: folder.appendingPathComponent("key.pem")).rawRepresentation, key.rawRepresentation)
        XCTAssertEqual(try loaded.verifyPeer(try DeviceIdentity.load(from: admin.deviceDirectory).certificate),
                       try DeviceIdentity.load(from: admin.deviceDirectory).identifier, "B takes A as a device of its group")
    }

    func testANameTakenOrNotAcceptableIsRefusedAndNothingIsWritten() throws {
        let admin = config("admin")
        let authority = try GroupAuthority.create(name: "Ada", in: admin)
        _ = try authority.issueDevice(named: "A", writingTo: admin.deviceDirectory)
        let before = try snapshot(admin.url)
        let key = P256.Signing.PrivateKey().publicKey
        XCTAssertThrowsError(try authority.grantDevice(named: "A", publicKey: key)) {
            XCTAssertEqual($0 as? TrustError, .deviceExists("A"))
        }
        XCTAssertThrowsError(try authority.checkNewDeviceName("A")) { XCTAssertEqual($0 as? TrustError, .deviceExists("A")) }
        for name in ["", "a/b", " B", "Eve\u{202E}", String(repeating: "x", count: 65)] {
            XCTAssertThrowsError(try authority.grantDevice(named: name, publicKey: key)) {
                XCTAssertEqual($0 as? TrustError, .invalidDeviceName(name))
            }
        }
        assertSame(before, try snapshot(admin.url))
    }

    func testAGrantThatDoesNotFitTheDevicesKeyOrNameOrGroupIsRefused() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let other = try GroupAuthority.create(name: "Eve", in: config("eve"))
        // A revocation rotates the discovery key: the list then commits to the current one.
        _ = try authority.issueDevice(named: "C")
        try authority.revokeDevice(named: "C")
        let key = P256.Signing.PrivateKey()
        let grant = try authority.grantDevice(named: "B", publicKey: key.publicKey)
        func refused(_ body: () throws -> Void, _ message: String, line: UInt = #line) {
            XCTAssertThrowsError(try body(), message, line: line) { error in
                guard case .grantRefused? = error as? TrustError else { return XCTFail("\(error)", line: line) }
            }
        }
        refused({ _ = try grant.identity(privateKey: P256.Signing.PrivateKey(), expectedName: "B") }, "another key")
        refused({ _ = try grant.identity(privateKey: key, expectedName: "C") }, "another name")
        let foreign = DeviceGrant(certificate: grant.certificate, groupCertificate: other.certificate,
                                  revocationData: grant.revocationData, discoveryKey: grant.discoveryKey)
        refused({ _ = try foreign.identity(privateKey: key, expectedName: "B") }, "another group's anchor")
        let unsignedList = DeviceGrant(certificate: grant.certificate, groupCertificate: grant.groupCertificate,
                                       revocationData: try other.revocationList().signed(with: other.privateKey), discoveryKey: grant.discoveryKey)
        refused({ _ = try unsignedList.identity(privateKey: key, expectedName: "B") }, "a list the group did not sign")
        let wrongKey = DeviceGrant(certificate: grant.certificate, groupCertificate: grant.groupCertificate,
                                   revocationData: grant.revocationData, discoveryKey: try other.discoveryKey())
        refused({ _ = try wrongKey.identity(privateKey: key, expectedName: "B") }, "a discovery key the list does not commit to")
        refused({ _ = try DeviceGrant(serialized: Data("not a grant".utf8)) }, "garbage")
        refused({ _ = try DeviceGrant(serialized: try Variant.tuple([.bytes(Data([1, 2])), .bytes(Data()), .bytes(Data()), .bytes(Data())]).serialized()) },
                "no certificate")
    }

    func testAGrantCarriesNoPrivateKey() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let key = P256.Signing.PrivateKey()
        let bytes = try authority.grantDevice(named: "B", publicKey: key.publicKey).serialized()
        for secret in [key.rawRepresentation, key.derRepresentation, authority.privateKey.rawRepresentation, authority.privateKey.derRepresentation] {
            XCTAssertNil(bytes.range(of: secret))
        }
        XCTAssertNil(String(decoding: bytes, as: UTF8.self).range(of: "PRIVATE KEY"))
    }
}
