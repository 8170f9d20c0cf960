@testable import BatonContinuity
import BatonTestSupport
import Crypto
import DeviceTestSupport
import Foundation
import SwiftASN1
import X509
import XCTest

/// Issue 29: a revoked device is refused by the group's servers too. `baton device revoke`
/// writes the group's list also as an X.509 CRL signed by the group CA; a real mosquitto on
/// `baton relay server-config`'s files refuses the revoked device's certificate once it holds
/// that CRL, and still admits the others. The revoke replaces the TURN shared secret in the
/// relay settings: a real coturn on the new turnserver.conf refuses credentials made from the
/// old secret; the remaining devices get the new settings over their links, the revoked one
/// does not. A revoke that cannot write a file changes nothing and names the file.
final class RevocationAtRelayServersTests: ProcessTestCase {
    private var admin: URL { root.appendingPathComponent("admin") }
    private var phoneFolder: URL { root.appendingPathComponent("phone-id") }
    private var out: URL { root.appendingPathComponent("server") }

    @discardableResult
    private func baton(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        let run = try runProduct("baton", arguments + ["--config", admin.path], timeout: 60)
        return (run.status, run.stdout, run.stderr)
    }

    /// A group made with the command: this machine's device "laptop", a device "phone" in
    /// `phoneFolder`, relay settings on loopback ports (`turn`), and `baton relay server-config`'s files in `out`.
    private func configuredGroup(turn: Bool = true) throws -> (turnPort: UInt16, brokerPort: UInt16) {
        XCTAssertEqual(try baton("group", "create", "Ada").status, 0)
        XCTAssertEqual(try baton("device", "add", "laptop", "--install").status, 0)
        XCTAssertEqual(try baton("device", "add", "phone", "--out", phoneFolder.path).status, 0)
        let turnPort = try FreePort.tcpAndUDP(), brokerPort = try FreePort.tcpAndUDP()
        let setup = try runProduct("baton", ["relay", "setup", "--broker", "mqtts://127.0.0.1:\(brokerPort)", "--config", admin.path]
                                   + (turn ? ["--turn", "turn:127.0.0.1:\(turnPort)"] : []), timeout: 60)
        XCTAssertEqual(setup.status, 0, setup.stderr)
        let config = try baton("relay", "server-config", "--out", out.path)
        XCTAssertEqual(config.status, 0, config.stderr)
        XCTAssertTrue(config.stdout.contains("\(out.path)/\(RelayServerConfig.crlFileName) "), "the CRL is installed: \(config.stdout)")
        XCTAssertTrue(config.stdout.contains("after each `baton device revoke`"), config.stdout)
        return (turnPort, brokerPort)
    }

    // MARK: - The CRL

    /// DER children of a constructed node.
    private func children(_ node: ASN1Node) -> [ASN1Node] {
        if case .constructed(let nodes) = node.content { Array(nodes) } else { [] }
    }

    /// A UTCTime as a date (UTC).
    private func date(_ time: UTCTime) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: time.year, month: time.month, day: time.day,
                                                  hour: time.hours, minute: time.minutes, second: time.seconds))!
    }

    func testTheCRLListsTheRevokedSerialsSignedByTheGroupCA() throws {
        let (authority, folders) = try group(["laptop", "phone", "tablet"])
        let crlFile = config("admin").groupDirectory.appendingPathComponent(GroupAuthority.crlFileName)
        XCTAssertFalse(FileManager.default.fileExists(atPath: crlFile.path), "written with a revocation")
        try authority.revokeDevice(named: "phone")
        try authority.revokeDevice(named: "tablet")
        let list = try authority.revocationList()
        XCTAssertEqual(mode(crlFile), 0o644, "serials only")

        let pem = try String(contentsOf: crlFile, encoding: .utf8)
        let document = try PEMDocument(pemString: pem)
        XCTAssertEqual(document.discriminator, "X509 CRL")
        let top = children(try DER.parse(document.derBytes))
        XCTAssertEqual(top.count, 3, "tbsCertList, signatureAlgorithm, signatureValue")
        let tbs = children(top[0])
        XCTAssertEqual(try Int(derEncoded: tbs[0]), 1, "a version-2 CRL")
        XCTAssertEqual(try DistinguishedName(derEncoded: tbs[2]), authority.certificate.subject, "issued by the group CA")
        let thisUpdate = try UTCTime(derEncoded: tbs[3]), nextUpdate = try UTCTime(derEncoded: tbs[4])
        XCTAssertLessThan(date(thisUpdate), list.issued, "set back for a server whose clock is behind")
        XCTAssertEqual(date(nextUpdate).timeIntervalSince1970, authority.certificate.notValidAfter.timeIntervalSince1970, accuracy: 1,
                       "valid as long as the CA")
        let serials = try children(tbs[5]).map { entry in
            Certificate.SerialNumber(bytes: try ArraySlice<UInt8>(derEncoded: children(entry)[0])).bytes.map { String(format: "%02x", $0) }.joined()
        }
        let revoked = try [folders["phone"]!, folders["tablet"]!].map { try DeviceIdentity.load(from: $0).certificate.serialHex }
        XCTAssertEqual(Set(serials), Set(revoked))
        XCTAssertEqual(Set(serials), list.revokedSerials)
        let extensions = children(children(tbs[6])[0]).map { try? Certificate.Extension(derEncoded: $0) }
        let number = try XCTUnwrap(extensions.first { $0?.oid == [2, 5, 29, 20] } ?? nil, "a CRL number")
        XCTAssertEqual(try Int(derEncoded: Array(number.value)), Int(list.sequence))

        let signature = try P256.Signing.ECDSASignature(derRepresentation: try ASN1BitString(derEncoded: top[2]).bytes)
        let key = try XCTUnwrap(P256.Signing.PublicKey(authority.certificate.publicKey))
        XCTAssertTrue(key.isValidSignature(signature, for: Data(top[0].encodedBytes)), "signed with the group CA's key")

        // The CA the broker trusts: the group's key and name, with cRLSign.
        let brokerCA = try authority.brokerClientAuthority()
        XCTAssertEqual(brokerCA.publicKey, authority.certificate.publicKey)
        XCTAssertEqual(brokerCA.subject, authority.certificate.subject)
        XCTAssertEqual(try brokerCA.extensions.keyUsage, KeyUsage(keyCertSign: true, cRLSign: true))
        XCTAssertTrue(brokerCA.publicKey.isValidSignature(brokerCA.signature, for: brokerCA), "self-signed with the group's key")
    }

    // MARK: - The broker

    /// mosquitto on `baton.conf` in `out` (`startMosquitto(configuredIn:port:)`).
    private func startBroker(port: UInt16) throws -> RunningProcess { try startMosquitto(configuredIn: out, port: port) }

    private func stop(_ process: RunningProcess) {
        process.terminate()
        process.waitForExit(timeout: 10)
    }

    /// What the broker answers an MQTT CONNECT from the identity in `folder` (`mqttConnect`).
    private func connect(port: UInt16, from folder: URL) throws -> String {
        try mqttConnect(port: port, ca: out.appendingPathComponent("baton-group-ca.pem"), from: folder)
    }

    func testTheBrokerRefusesARevokedDeviceOnceItHoldsTheGroupsCRL() throws {
        try requireRelayServers()
        let (_, port) = try configuredGroup(turn: false)
        let laptop = config("admin").deviceDirectory
        XCTAssertTrue(try String(contentsOf: out.appendingPathComponent("baton.conf"), encoding: .utf8)
            .contains("crlfile \(RelayServerConfig.mosquittoCertificateFolder)/\(RelayServerConfig.crlFileName)\n"))
        XCTAssertEqual(mode(out.appendingPathComponent(RelayServerConfig.crlFileName)), 0o644)
        var broker = try startBroker(port: port)
        XCTAssertEqual(try connect(port: port, from: laptop), "20 02 00 00", broker.output)
        XCTAssertEqual(try connect(port: port, from: phoneFolder), "20 02 00 00", "not revoked yet: " + broker.output)

        let revoke = try baton("device", "revoke", "phone")
        XCTAssertEqual(revoke.status, 0, revoke.stderr)
        let crl = config("admin").groupDirectory.appendingPathComponent(GroupAuthority.crlFileName)
        let copy = "scp -p \(crl.path) root@127.0.0.1:\(RelayServerConfig.mosquittoCertificateFolder)/\(RelayServerConfig.crlFileName)"
        XCTAssertTrue(revoke.stdout.contains(copy), "says to copy the CRL to the broker: \(revoke.stdout)")
        XCTAssertEqual(try connect(port: port, from: phoneFolder), "20 02 00 00", "the broker still holds the old CRL: " + broker.output)

        // What the command says: the CRL copied to the broker's folder, mosquitto restarted.
        stop(broker)
        try FileManager.default.removeItem(at: out.appendingPathComponent(RelayServerConfig.crlFileName))
        try FileManager.default.copyItem(at: crl, to: out.appendingPathComponent(RelayServerConfig.crlFileName))
        broker = try startBroker(port: port)
        XCTAssertEqual(try connect(port: port, from: phoneFolder), "", "the revoked device is refused in the handshake: " + broker.output)
        XCTAssertEqual(try connect(port: port, from: laptop), "20 02 00 00", "the others still connect: " + broker.output)
    }

    // MARK: - The TURN secret

    func testRevokeReplacesTheTURNSecretAndCoturnRefusesTheOldOne() throws {
        try requireRelayServers()
        let (port, _) = try configuredGroup()
        let laptop = config("admin").deviceDirectory
        let before = try XCTUnwrap(try RelaySettings.load(from: laptop))
        let revoke = try baton("device", "revoke", "phone")
        XCTAssertEqual(revoke.status, 0, revoke.stderr)
        let after = try XCTUnwrap(try RelaySettings.load(from: laptop), "this machine's device holds the new list")
        XCTAssertEqual(try GroupAuthority.load(from: config("admin")).relaySettings(), after)
        let old = try XCTUnwrap(before.turnSecret), new = try XCTUnwrap(after.turnSecret)
        XCTAssertNotEqual(old, new, "a new secret")
        XCTAssertEqual(after.version, before.version + 1)
        XCTAssertEqual(after.turn, before.turn)
        XCTAssertEqual(after.broker, before.broker)
        XCTAssertTrue(revoke.stdout.contains("static-auth-secret="), "names coturn's line to change: \(revoke.stdout)")
        XCTAssertTrue(revoke.stdout.contains("scp baton-relay-server/turnserver.conf root@127.0.0.1:/etc/turnserver.conf"), revoke.stdout)
        for secret in [old, new] { XCTAssertFalse(revoke.stdout.contains(String(decoding: secret, as: UTF8.self)), "no secret printed") }

        // The new turnserver.conf, as the command says, on a real coturn.
        let config = try baton("relay", "server-config", "--out", out.path)
        XCTAssertEqual(config.status, 0, config.stderr)
        let conf = try String(contentsOf: out.appendingPathComponent("turnserver.conf"), encoding: .utf8)
        XCTAssertTrue(conf.contains("static-auth-secret=\(String(decoding: new, as: UTF8.self))\n"))
        try startCoturn(configuredIn: out, port: port)
        let phone = try DeviceIdentity.load(from: phoneFolder).identifier
        let stale = try allocateTURN(port: port, before.turnCredentials(for: phone, validFor: .seconds(600), now: Date()))
        XCTAssertTrue(stale.contains("Cannot complete Allocation"), "credentials from the old secret are refused: \(stale)")
        let identifier = try DeviceIdentity.load(from: laptop).identifier
        let current = try allocateTURN(port: port, after.turnCredentials(for: identifier, validFor: .seconds(600), now: Date()))
        XCTAssertFalse(current.contains("Cannot complete Allocation"), "the remaining devices' credentials work: \(current)")
    }

    func testTheRemainingDevicesGetTheNewSecretAndTheRevokedOneDoesNot() throws {
        let authority = try GroupAuthority.create(name: "Ada", in: config("admin"))
        let folders = ["A", "B", "C"].map { root.appendingPathComponent($0) }
        for (index, name) in ["A", "B", "C"].enumerated() {
            try authority.issueDevice(named: name, updating: Array(folders[..<index])).write(to: folders[index])
        }
        let settings = try authority.setRelaySettings(
            RelaySettings(turn: [try TURNServer(uri: "turn:turn.example.net")], broker: try BrokerAddress(uri: "mqtts://broker.example.net"),
                          turnSecret: RelaySettings.generatedSecret()), updating: folders)
        func probe(_ folder: URL, _ arguments: [String] = []) throws -> (RunningProcess, String) {
            let process = try RunningProcess(product: "DeviceProbe", [folder.path, "--ok"] + arguments)
            processes.append(process)
            return (process, try XCTUnwrap(process.listeningAddress(), process.output).description)
        }
        let (a, aAddress) = try probe(folders[0])
        let (b, bAddress) = try probe(folders[1], ["--peer", aAddress])
        let (c, _) = try probe(folders[2], ["--peer", bAddress])
        XCTAssertTrue(b.waitForLink(with: "A"), b.output)
        XCTAssertTrue(b.waitForLink(with: "C"), b.output)

        try authority.revokeDevice(named: "C", updating: [folders[1]])
        let sequence = try authority.revocationList().sequence
        XCTAssertTrue(b.waitFor(.revocationsAdopted(sequence: sequence, from: nil)), b.output)
        XCTAssertTrue(a.waitFor(.revocationsAdopted(sequence: sequence, from: "B")), a.output)
        XCTAssertTrue(b.waitFor(.unlinked(peer: "C", reason: .revoked)), b.output)
        let rotated = try XCTUnwrap(try RelaySettings.load(from: folders[0]))
        XCTAssertNotEqual(rotated.turnSecret, settings.turnSecret, "A, linked to B only, got the new secret")
        XCTAssertEqual(rotated, try RelaySettings.load(from: folders[1]))
        XCTAssertTrue(c.waitForUnlink(from: "B"), c.output)
        XCTAssertEqual(try RelaySettings.load(from: folders[2]), settings, "the revoked device keeps only the old secret")
    }

    // MARK: - All or nothing

    func testARevokeThatCannotWriteTheCRLChangesNothing() throws {
        XCTAssertEqual(try baton("group", "create", "Ada").status, 0)
        XCTAssertEqual(try baton("device", "add", "laptop", "--install").status, 0)
        XCTAssertEqual(try baton("device", "add", "phone", "--out", phoneFolder.path).status, 0)
        XCTAssertEqual(try baton("relay", "setup", "--turn", "turn:turn.example.net", "--broker", "mqtts://broker.example.net").status, 0)
        let group = config("admin").groupDirectory, own = config("admin").deviceDirectory
        let crl = group.appendingPathComponent(GroupAuthority.crlFileName)
        try FileManager.default.createDirectory(at: crl, withIntermediateDirectories: false)  // cannot be replaced by a file
        let files = ["roster", "revocations", "discovery.key"].map(group.appendingPathComponent)
            + ["revocations", "discovery.key"].map(own.appendingPathComponent)
        let before = files.map { try? Data(contentsOf: $0) }  // nil: not there (no discovery key before a first revocation)
        XCTAssertNotNil(before[1])

        XCTAssertThrowsError(try GroupAuthority.load(from: config("admin")).revokeDevice(named: "phone", updating: [own])) {
            guard case TrustError.cannotWrite(let path, _) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(path, crl.path)
        }
        let run = try baton("device", "revoke", "phone")
        XCTAssertNotEqual(run.status, 0)
        XCTAssertTrue(run.stderr.contains(crl.path), run.stderr)
        XCTAssertEqual(files.map { try? Data(contentsOf: $0) }, before, "nothing changed")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: group.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(leftovers, [], "no temporary file left")
        XCTAssertFalse(try GroupAuthority.load(from: config("admin")).loadRoster().devices.contains { $0.revoked })
    }
}
