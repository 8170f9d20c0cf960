@testable import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

/// Issue 26: `baton device revoke` says which files the other devices need — the new
/// revocation list and the new discovery key, by path — and those paths hold what a device
/// takes: the list that revokes the device, and the key that list commits to.
final class RevokeCommandTests: TrustTestCase {
    private var admin: URL { root.appendingPathComponent("admin") }

    @discardableResult
    private func baton(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProduct("baton", arguments + ["--config", admin.path], timeout: 30)
    }

    func testRevokeNamesTheListAndTheDiscoveryKeyToCopy() throws {
        XCTAssertEqual(try baton("group", "create", "Ada").status, 0)
        XCTAssertEqual(try baton("device", "add", "laptop", "--install").status, 0)
        XCTAssertEqual(try baton("device", "add", "phone", "--out", root.appendingPathComponent("phone-id").path).status, 0)
        let revoke = try baton("device", "revoke", "phone")
        XCTAssertEqual(revoke.status, 0, revoke.stderr)

        let group = config("admin").groupDirectory, own = config("admin").deviceDirectory
        let list = group.appendingPathComponent("revocations"), key = group.appendingPathComponent("discovery.key")
        for file in [list, key] {
            XCTAssertTrue(revoke.stdout.contains(file.path), "\(file.path) not named in: \(revoke.stdout)")
        }
        XCTAssertTrue(revoke.stdout.contains(own.path), "this machine's own device (which holds both now) not named: \(revoke.stdout)")
        // What is named is what a device needs: copied beside the phone-less laptop's identity
        // in another folder, the list revokes the phone and the key is the one it commits to.
        let other = root.appendingPathComponent("other")
        try FileManager.default.copyItem(at: own, to: other)
        for file in ["revocations", "discovery.key"] { try FileManager.default.removeItem(at: other.appendingPathComponent(file)) }
        try FileManager.default.copyItem(at: list, to: other.appendingPathComponent("revocations"))
        try FileManager.default.copyItem(at: key, to: other.appendingPathComponent("discovery.key"))
        let device = try DeviceIdentity.load(from: other)
        let phone = try DeviceIdentity.load(from: root.appendingPathComponent("phone-id"))
        XCTAssertTrue(device.revocations.revokedSerials.contains(phone.certificate.serialHex))
        XCTAssertTrue(device.discoveryKeyIsCurrent, "the key named is the one the list named commits to")
        XCTAssertNotEqual(device.discoveryKey, phone.discoveryKey)
    }
}
