@testable import BatonContinuity
import BatonTestSupport
import Crypto
import Foundation
import X509
import XCTest

/// A fresh configuration directory per test, removed afterwards.
class TrustTestCase: XCTestCase {
    var root: URL!

    override func setUpWithError() throws {
        root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-trust-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

    func config(_ name: String) -> ConfigDirectory { ConfigDirectory(url: root.appendingPathComponent(name)) }

    /// A new group (administered in `config("admin")`) and its devices `names`, each written to
    /// a folder of its own; returns the folders' paths.
    func devices(_ names: String...) throws -> [String] {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        return try names.map { name in
            let folder = root.appendingPathComponent(name)
            try authority.issueDevice(named: name).write(to: folder)
            return folder.path
        }
    }

    /// A new group (administered in `config("admin")`) and its devices `names`, each written to
    /// a folder of its own; returns the authority and the folders by name.
    func group(_ names: [String]) throws -> (GroupAuthority, [String: URL]) {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        var folders: [String: URL] = [:]
        for name in names {
            let folder = root.appendingPathComponent(name)
            try authority.issueDevice(named: name).write(to: folder)
            folders[name] = folder
        }
        return (authority, folders)
    }

    /// A device identity whose certificate the group CA signs with `extensions` (holding the
    /// group's discovery key, as whoever can have the CA sign can).
    func identity(_ name: String, extensions: Certificate.Extensions, authority: GroupAuthority) throws -> DeviceIdentity {
        let key = P256.Signing.PrivateKey()
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-300), notValidAfter: now.addingTimeInterval(86_400),
            issuer: authority.certificate.subject,
            subject: try DistinguishedName { CommonName(name) },
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(authority.privateKey))
        return try DeviceIdentity(certificate: certificate, privateKeyPEM: key.pemRepresentation,
                                  groupCertificate: authority.certificate,
                                  revocationData: try authority.revocationList().signed(with: authority.privateKey),
                                  discoveryKey: try authority.discoveryKey())
    }

    func mode(_ url: URL) -> UInt16 {
        var info = stat()
        stat(url.path, &info)
        return UInt16(info.st_mode & 0o777)
    }
}

/// Trust (docs/PROTOCOL.md, "Trust"): each device its own key pair and certificate; membership proved
/// against the group's trust anchor; private keys 0600; revocation effective on the next connection.
final class TrustTests: TrustTestCase {
    func testAGroupIssuesDevicesThatRecogniseEachOther() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let laptop = try authority.issueDevice(named: "laptop")
        let phone = try authority.issueDevice(named: "phone")
        XCTAssertEqual(try laptop.verifyPeer(phone.certificate), phone.identifier)
        XCTAssertEqual(try phone.verifyPeer(laptop.certificate), laptop.identifier)
        XCTAssertEqual(phone.deviceName(of: laptop.identifier), "laptop", "the phone's list names the devices issued before it")
        XCTAssertEqual(laptop.deviceName(of: phone.identifier), "device \(phone.identifier.prefix(8))",
                       "the laptop's list is older than the phone: a short form until it takes a newer one")
        XCTAssertNotEqual(laptop.certificate.serialHex, phone.certificate.serialHex)
        XCTAssertEqual(try authority.loadRoster().devices.map(\.name), ["laptop", "phone"])
    }

    func testFilesAreWrittenWithPrivateKeysOnlyForTheirOwner() throws {
        let admin = config("admin")
        let authority = try GroupAuthority.create(name: "Ada", in: admin)
        XCTAssertEqual(mode(admin.groupDirectory.appendingPathComponent("authority-key.pem")), 0o600)
        XCTAssertEqual(mode(admin.groupDirectory), 0o700)
        let out = root.appendingPathComponent("phone")
        try authority.issueDevice(named: "phone").write(to: out)
        XCTAssertEqual(mode(out.appendingPathComponent("key.pem")), 0o600)
        let loaded = try DeviceIdentity.load(from: out)
        XCTAssertEqual(loaded.name, "phone")
    }

    func testAKeyFileOthersCanReadIsRefused() throws {
        let out = root.appendingPathComponent("phone")
        try GroupAuthority.create(name: "Ada", in: config("admin")).issueDevice(named: "phone").write(to: out)
        chmod(out.appendingPathComponent("key.pem").path, 0o640)
        XCTAssertThrowsError(try DeviceIdentity.load(from: out)) {
            XCTAssertEqual($0 as? TrustError, .keyFileTooOpen(path: out.appendingPathComponent("key.pem").path, mode: 0o640))
        }
    }

    func testADeviceOfAnotherGroupIsNotAPeer() throws {
        let mine = try GroupAuthority.create(name: "Ada", in: config("ada")).issueDevice(named: "laptop")
        let theirs = try GroupAuthority.create(name: "Eve", in: config("eve")).issueDevice(named: "laptop")
        XCTAssertThrowsError(try mine.verifyPeer(theirs.certificate)) {
            guard case .peerNotInGroup? = $0 as? TrustError else { return XCTFail("\($0)") }
        }
    }

    func testARevokedDeviceIsRefusedOnceTheNewListArrives() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        var laptop = try authority.issueDevice(named: "laptop")
        let phone = try authority.issueDevice(named: "phone")
        let list = try authority.revokeDevice(named: "phone")
        XCTAssertEqual(try laptop.verifyPeer(phone.certificate), phone.identifier, "not yet: the laptop holds the old list")
        try laptop.adopt(revocationData: list)
        XCTAssertThrowsError(try laptop.verifyPeer(phone.certificate)) {
            XCTAssertEqual($0 as? TrustError, .peerRevoked(device: "phone"))
        }
        XCTAssertEqual(try authority.loadRoster().devices.first { $0.name == "phone" }?.revoked, true)
    }

    func testRevocationListsMustBeSignedAndNewer() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        var laptop = try authority.issueDevice(named: "laptop")
        _ = try authority.issueDevice(named: "phone")
        _ = try authority.issueDevice(named: "tablet")
        let first = try authority.revokeDevice(named: "phone")
        var second = try authority.revokeDevice(named: "tablet")
        try laptop.adopt(revocationData: second)
        XCTAssertThrowsError(try laptop.adopt(revocationData: first)) {
            XCTAssertEqual($0 as? TrustError, .revocationListOlder(have: 5, offered: 4), "each device added and revoked made a list")
        }
        second[second.count - 10] ^= 0x01  // tamper with the signature
        XCTAssertThrowsError(try laptop.adopt(revocationData: second)) {
            XCTAssertEqual($0 as? TrustError, .revocationListNotSigned(path: "offered revocation list"))
        }
        let otherGroups = try GroupAuthority.create(name: "Eve", in: config("eve"))
        _ = try otherGroups.issueDevice(named: "x")
        XCTAssertThrowsError(try laptop.adopt(revocationData: try otherGroups.revokeDevice(named: "x")), "signed by another group")
        XCTAssertEqual(laptop.revocations.sequence, 5)
    }

    func testBadNamesAndDuplicatesAreRefusedByName() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        _ = try authority.issueDevice(named: "laptop")
        XCTAssertThrowsError(try authority.issueDevice(named: "laptop")) { XCTAssertEqual($0 as? TrustError, .deviceExists("laptop")) }
        XCTAssertThrowsError(try authority.issueDevice(named: "")) { XCTAssertEqual($0 as? TrustError, .invalidDeviceName("")) }
        XCTAssertThrowsError(try authority.issueDevice(named: "a/b")) { XCTAssertEqual($0 as? TrustError, .invalidDeviceName("a/b")) }
        XCTAssertThrowsError(try authority.revokeDevice(named: "ghost")) { XCTAssertEqual($0 as? TrustError, .noSuchDevice("ghost")) }
        XCTAssertThrowsError(try GroupAuthority.create(name: "Again", in: config("admin")))
    }

    func testTheConfigDirectoryFollowsXDG() {
        XCTAssertEqual(ConfigDirectory.standard(environment: ["XDG_CONFIG_HOME": "/x/cfg", "HOME": "/home/a"]).url.path, "/x/cfg/baton")
        XCTAssertEqual(ConfigDirectory.standard(environment: ["HOME": "/home/a"]).url.path, "/home/a/.config/baton")
    }
}

/// The `baton` command, run as a user would.
final class BatonCommandTests: TrustTestCase {
    func testProvisioningFromTheCommandLine() throws {
        let admin = root.appendingPathComponent("admin").path
        func baton(_ args: String...) throws -> (status: Int32, stdout: String, stderr: String) {
            try runProduct("baton", args + ["--config", admin])
        }
        XCTAssertEqual(try baton("group", "create", "Ada").status, 0)
        XCTAssertEqual(try baton("device", "add", "laptop", "--install").status, 0)
        let phoneDir = root.appendingPathComponent("phone-id").path
        let add = try baton("device", "add", "phone", "--out", phoneDir)
        XCTAssertEqual(add.status, 0, add.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: phoneDir + "/key.pem"))
        XCTAssertEqual(try baton("device", "revoke", "phone").status, 0)
        let list = try baton("device", "list")
        XCTAssertTrue(list.stdout.contains("laptop\t") && list.stdout.contains("\tactive"), list.stdout)
        XCTAssertTrue(list.stdout.contains("phone\t") && list.stdout.contains("\trevoked"), list.stdout)
        let identity = try baton("identity")
        XCTAssertTrue(identity.stdout.hasPrefix("device 'laptop'"), identity.stdout)
        XCTAssertTrue(identity.stdout.contains("revocation list 3: 1 revoked"), identity.stdout)
        XCTAssertTrue(identity.stdout.contains("group 'Ada'"), identity.stdout)
        let again = try baton("device", "add", "laptop")
        XCTAssertNotEqual(again.status, 0)
        XCTAssertTrue(again.stderr.contains("a device named 'laptop' is already in the group"), again.stderr)
    }
}
