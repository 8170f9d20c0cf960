@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Crypto
import Foundation
import XCTest

/// The `baton` command under a careless user's mistakes: nothing it does loses a key or
/// leaves a group half changed, and what it says names the file and the problem in words.
final class CommandLineTests: TrustTestCase {
    private var admin: String { root.appendingPathComponent("admin").path }

    @discardableResult
    private func baton(_ arguments: String..., environment: [String: String]? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProduct("baton", arguments + ["--config", admin], environment: environment, timeout: 30)
    }

    /// Every file under `folder`: its bytes and mode, by path relative to `folder`.
    private func snapshot(_ folder: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        while let relative = enumerator?.nextObject() as? String {
            let url = folder.appendingPathComponent(relative)
            let contents = (try? Data(contentsOf: url)) ?? Data("<folder>".utf8)
            files[relative] = contents + Data(" mode \(mode(url))".utf8)
        }
        return files
    }

    /// Internals that must never reach the user: Swift's, swift-certificates' and Foundation's.
    private func assertInWords(_ text: String, _ line: UInt = #line) {
        for leak in ["invalidPEMDocument", "UTF8View", "_slice", "Code=", "UserInfo", "(null)", "Error Domain", "NSCocoaErrorDomain"] {
            XCTAssertFalse(text.contains(leak), "\(leak) in: \(text)", line: line)
        }
    }

    func testDeviceAddNeverOverwritesAKeyAndForceMovesTheOldOneAside() throws {
        XCTAssertEqual(try baton("group", "create", "Ada").status, 0)
        let folder = root.appendingPathComponent("phone-id")
        XCTAssertEqual(try baton("device", "add", "phone", "--out", folder.path).status, 0)
        let key = try Data(contentsOf: folder.appendingPathComponent("key.pem"))

        let again = try baton("device", "add", "tablet", "--out", folder.path)
        XCTAssertNotEqual(again.status, 0, again.stdout)
        XCTAssertTrue(again.stderr.contains(folder.appendingPathComponent("key.pem").path), again.stderr)
        XCTAssertTrue(again.stderr.contains("--force"), again.stderr)
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("key.pem")), key)
        XCTAssertFalse(try baton("device", "list").stdout.contains("tablet"), "a refused device is not in the roster")

        XCTAssertEqual(try baton("device", "add", "laptop", "--install").status, 0)
        let installed = config("admin").deviceDirectory.appendingPathComponent("key.pem")
        let installedKey = try Data(contentsOf: installed)
        let reinstall = try baton("device", "add", "desktop", "--install")
        XCTAssertNotEqual(reinstall.status, 0)
        XCTAssertTrue(reinstall.stderr.contains(installed.path), reinstall.stderr)
        XCTAssertEqual(try Data(contentsOf: installed), installedKey)

        let forced = try baton("device", "add", "tablet", "--out", folder.path, "--force")
        XCTAssertEqual(forced.status, 0, forced.stderr)
        let aside = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasPrefix("replaced-") })
        XCTAssertTrue(forced.stdout.contains(folder.appendingPathComponent(aside).path), forced.stdout)
        XCTAssertEqual(mode(folder.appendingPathComponent(aside)), 0o700)
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent(aside).appendingPathComponent("key.pem")), key, "the old key is kept")
        XCTAssertNotEqual(try Data(contentsOf: folder.appendingPathComponent("key.pem")), key)
        XCTAssertEqual(try DeviceIdentity.load(from: folder).name, "tablet")
        XCTAssertEqual(try DeviceIdentity.load(from: folder.appendingPathComponent(aside)).name, "phone")
    }

    func testACommandThatFailsLeavesEveryFileAsItWas() throws {
        XCTAssertEqual(try baton("group", "create", "Ada").status, 0)
        XCTAssertEqual(try baton("device", "add", "laptop", "--install").status, 0)
        let revocations = config("admin").groupDirectory.appendingPathComponent("revocations")
        let list = try Data(contentsOf: revocations)
        try Data("not a signed list".utf8).write(to: revocations)
        var before = snapshot(config("admin").url)

        let add = try baton("device", "add", "phone", "--out", root.appendingPathComponent("phone-id").path)
        XCTAssertNotEqual(add.status, 0)
        XCTAssertTrue(add.stderr.contains(revocations.path), add.stderr)
        assertInWords(add.stderr)
        XCTAssertEqual(snapshot(config("admin").url), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("phone-id").path))
        XCTAssertFalse(try baton("device", "list").stdout.contains("phone"))

        let revoke = try baton("device", "revoke", "laptop")
        XCTAssertNotEqual(revoke.status, 0)
        XCTAssertTrue(revoke.stderr.contains(revocations.path), revoke.stderr)
        XCTAssertEqual(snapshot(config("admin").url), before)
        XCTAssertTrue(try baton("device", "list").stdout.contains("\tactive"))

        // A failure while writing: the target's parent is a file.
        try list.write(to: revocations)
        before = snapshot(config("admin").url)
        let blocker = root.appendingPathComponent("a-file")
        try Data().write(to: blocker)
        let blocked = try baton("device", "add", "tablet", "--out", blocker.appendingPathComponent("tablet-id").path)
        XCTAssertNotEqual(blocked.status, 0)
        XCTAssertTrue(blocked.stderr.contains(blocker.path), blocked.stderr)
        XCTAssertEqual(snapshot(config("admin").url), before)
    }

    /// The commit itself failing half way (a folder where the second file goes) puts the
    /// first file back as it was, and leaves no temporary file or backup behind.
    func testATransactionThatFailsHalfWayPutsEverythingBack() throws {
        let folder = root.appendingPathComponent("t")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("b/inner"), withIntermediateDirectories: true)
        try Data("old a".utf8).write(to: folder.appendingPathComponent("a"))
        do {
            let files = FileTransaction()
            try files.write(Data("new a".utf8), to: folder.appendingPathComponent("a"), mode: 0o600)
            try files.write(Data("new b".utf8), to: folder.appendingPathComponent("b"), mode: 0o600)
            XCTAssertThrowsError(try files.commit()) {
                guard case .cannotWrite(folder.appendingPathComponent("b").path, _)? = $0 as? TrustError else { return XCTFail("\($0)") }
            }
        }
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("a")), Data("old a".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["a", "b"])
    }

    func testARevocationIsWrittenToTheGroupAndThisDeviceTogether() throws {
        XCTAssertEqual(try baton("group", "create", "Ada").status, 0)
        XCTAssertEqual(try baton("device", "add", "laptop", "--install").status, 0)
        XCTAssertEqual(try baton("device", "add", "phone", "--out", root.appendingPathComponent("phone-id").path).status, 0)
        let phone = try DeviceIdentity.load(from: root.appendingPathComponent("phone-id"))
        XCTAssertEqual(try DeviceIdentity.load(from: config("admin").deviceDirectory).deviceName(of: phone.identifier), "phone",
                       "adding a device hands its name to this machine's own device, in the new signed list")
        let revoke = try baton("device", "revoke", "phone")
        XCTAssertEqual(revoke.status, 0, revoke.stderr)
        let group = try Data(contentsOf: config("admin").groupDirectory.appendingPathComponent("revocations"))
        XCTAssertEqual(try Data(contentsOf: config("admin").deviceDirectory.appendingPathComponent("revocations")), group)
        XCTAssertEqual(try DeviceIdentity.load(from: config("admin").deviceDirectory).revocations.sequence, 3, "two devices added, one revoked")
    }

    func testErrorsNameTheFileAndSayWhatIsWrongInWords() throws {
        XCTAssertEqual(try baton("group", "create", "Ada").status, 0)
        XCTAssertEqual(try baton("device", "add", "laptop", "--install").status, 0)
        let device = config("admin").deviceDirectory, group = config("admin").groupDirectory
        func expectRefusal(_ file: URL, _ words: String, _ command: String..., line: UInt = #line) throws {
            let result = try runProduct("baton", command + ["--config", admin], timeout: 30)
            XCTAssertNotEqual(result.status, 0, line: line)
            XCTAssertTrue(result.stderr.contains(file.path), "\(file.path) not named in: \(result.stderr)", line: line)
            XCTAssertTrue(result.stderr.contains(words), "'\(words)' not in: \(result.stderr)", line: line)
            assertInWords(result.stderr, line)
        }
        func replacing(_ file: URL, with contents: Data, _ check: () throws -> Void) throws {
            let saved = try Data(contentsOf: file)
            try contents.write(to: file)
            try check()
            try saved.write(to: file)
        }
        let certificate = device.appendingPathComponent("certificate.pem"), key = device.appendingPathComponent("key.pem")
        try replacing(certificate, with: Data("garbage\n".utf8)) {
            try expectRefusal(certificate, "no PEM block", "identity")
        }
        try replacing(certificate, with: Data("-----BEGIN CERTIFICATE-----\nAAAA!!!\n-----END CERTIFICATE-----\n".utf8)) {
            try expectRefusal(certificate, "damaged", "identity")
        }
        try replacing(key, with: Data("-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49\n-----END PRIVATE KEY-----\n".utf8)) {
            try expectRefusal(key, "does not decode", "identity")
        }
        try replacing(key, with: Data(P384.Signing.PrivateKey().pemRepresentation.utf8)) {
            try expectRefusal(key, "P-384", "identity")
        }
        let groupPEM = device.appendingPathComponent("group.pem")
        try replacing(groupPEM, with: Data([0xFF, 0xFE, 0x00, 0x41])) {
            try expectRefusal(groupPEM, "not text", "identity")
        }
        let authorityKey = group.appendingPathComponent("authority-key.pem")
        try replacing(authorityKey, with: Data(try String(contentsOf: groupPEM, encoding: .utf8).utf8)) {
            try expectRefusal(authorityKey, "not a PRIVATE KEY", "device", "list")
        }
        try FileManager.default.moveItem(at: groupPEM, to: root.appendingPathComponent("group.pem"))
        try expectRefusal(groupPEM, "does not exist", "identity")
        try FileManager.default.moveItem(at: root.appendingPathComponent("group.pem"), to: groupPEM)

        // A folder that may not be read, by a process without root's power to read anything.
        chmod(device.path, 0)
        defer { chmod(device.path, 0o700) }
        let unprivileged = try runProcess(URL(fileURLWithPath: "/usr/bin/setpriv"),
                                          ["--inh-caps=-all", "--bounding-set=-all", productURL("baton").path, "identity", "--config", admin],
                                          timeout: 30)
        XCTAssertNotEqual(unprivileged.status, 0)
        XCTAssertTrue(unprivileged.stderr.contains(device.path) && unprivileged.stderr.contains("Permission denied"), unprivileged.stderr)
        assertInWords(unprivileged.stderr)
    }

    /// A name with terminal escapes or bidirectional overrides would rewrite what other
    /// devices print; it is refused when issuing, and shown escaped in the refusal.
    func testNamesThatWouldRewriteATerminalAreRefused() throws {
        XCTAssertEqual(try baton("group", "create", "Ada").status, 0)
        for name in ["evil\u{1B}[2J", "ab\u{202E}cd", "x\u{2066}y", "\u{200F}", "tab\there", "nul\u{85}", " padded", "zero\u{200B}width"] {
            let add = try baton("device", "add", name, "--out", root.appendingPathComponent("id-\(UUID().uuidString)").path)
            XCTAssertNotEqual(add.status, 0, "accepted \(name.debugDescription)")
            XCTAssertFalse(add.stderr.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E || $0.value == 0x2066 },
                           "raw control characters in: \(add.stderr.debugDescription)")
            XCTAssertTrue(add.stderr.contains("is not a device name"), add.stderr)
        }
        let escaped = try baton("device", "add", "evil\u{1B}[2J")
        XCTAssertTrue(escaped.stderr.contains("evil\\u{1B}[2J"), escaped.stderr)
        XCTAssertEqual(try baton("device", "list").stdout, "no devices yet; add one with `baton device add NAME`\n")
        XCTAssertNotEqual(try runProduct("baton", ["group", "create", "Eve\u{202E}", "--config", root.appendingPathComponent("eve").path]).status, 0)
        XCTAssertEqual(try baton("device", "add", "Ada's phone ☎︎ 2", "--out", root.appendingPathComponent("ok").path).status, 0)
    }

    /// What a peer advertises is printed by `baton nearby` with its escapes made visible.
    func testNearbyShowsAPeersTitleEscaped() throws {
        XCTAssertEqual(try baton("group", "create", "Ada").status, 0)
        XCTAssertEqual(try baton("device", "add", "laptop", "--install").status, 0)
        XCTAssertEqual(try baton("device", "add", "phone", "--out", root.appendingPathComponent("phone").path).status, 0)
        let probe = try RunningProcess(product: "DeviceProbe", [root.appendingPathComponent("phone").path, "--ok",
                                                                "--title", "Report\u{1B}]0;pwned\u{07}\u{202E}fdp.exe"])
        defer { probe.terminate() }
        let line = try XCTUnwrap(probe.listeningAddress(), probe.output).description
        let nearby = try baton("nearby", "--peer", line)
        XCTAssertEqual(nearby.status, 0, nearby.stderr)
        XCTAssertTrue(nearby.stdout.contains("\"Report\\u{1B}]0;pwned\\u{7}\\u{202E}fdp.exe\""), nearby.stdout)
        XCTAssertFalse(nearby.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x202E || $0.value == 0x07 })
    }

    /// Malformed configured peers are refused by name and line; the "no peers configured"
    /// hint only ever follows an empty configuration.
    func testMalformedPeersAreRefusedByNameAndLine() throws {
        XCTAssertEqual(try baton("group", "create", "Ada").status, 0)
        XCTAssertEqual(try baton("device", "add", "laptop", "--install").status, 0)
        let peers = config("admin").url.appendingPathComponent("peers")
        try "# the office\n127.0.0.1:7300\nprinter.local 7300\n".write(to: peers, atomically: true, encoding: .utf8)
        let fromFile = try baton("nearby")
        XCTAssertNotEqual(fromFile.status, 0)
        XCTAssertTrue(fromFile.stderr.contains("\(peers.path) line 3") && fromFile.stderr.contains("printer.local 7300"), fromFile.stderr)
        XCTAssertFalse(fromFile.stdout.contains("no peers configured"), fromFile.stdout)
        try FileManager.default.removeItem(at: peers)

        let fromEnvironment = try baton("nearby", environment: ["BATON_PEERS": "127.0.0.1:7300,localhost:99999"])
        XCTAssertNotEqual(fromEnvironment.status, 0)
        XCTAssertTrue(fromEnvironment.stderr.contains("'localhost:99999' (entry 2 of $BATON_PEERS)"), fromEnvironment.stderr)
        XCTAssertTrue(fromEnvironment.stderr.contains("1 to 65535"), fromEnvironment.stderr)

        for (bad, words) in [("127.0.0.1:0", "1 to 65535"), (":7300", "no host"), ("::1:7300", "brackets"), ("host", "no port")] {
            let result = try baton("nearby", "--peer", bad)
            XCTAssertNotEqual(result.status, 0, bad)
            XCTAssertTrue(result.stderr.contains("'\(bad)'") && result.stderr.contains(words), result.stderr)
        }
    }

    func testPeerAddressesParseStrictly() throws {
        XCTAssertEqual(try PeerAddress(parsing: "[::1]:7300", from: .argument("peer")), PeerAddress(host: "::1", port: 7300))
        XCTAssertEqual(try PeerAddress(parsing: " host.example:1 ", from: .argument("peer")), PeerAddress(host: "host.example", port: 1))
        XCTAssertEqual(try PeerAddress(parsing: "7300", from: .argument("listen"), portZeroAllowed: true, defaultHost: "127.0.0.1"),
                       PeerAddress(host: "127.0.0.1", port: 7300))
        XCTAssertEqual(try PeerAddress(parsing: "0.0.0.0:0", from: .argument("listen"), portZeroAllowed: true), PeerAddress(host: "0.0.0.0", port: 0))
        XCTAssertThrowsError(try PeerAddress(parsing: "h:99999", from: .file(path: "/p", line: 4))) {
            XCTAssertEqual($0 as? PeerAddressError, .badPort(text: "h:99999", source: .file(path: "/p", line: 4), portZeroAllowed: false))
            XCTAssertEqual("\($0)", "'h:99999' (/p line 4) is not HOST:PORT: the port must be a number from 1 to 65535")
        }
        for bad in ["h:-1", "h:+80", "h:8 0", "h\u{1B}:80", "a b:80", "[::1]80", "[]:80", "h:", ""] {
            XCTAssertThrowsError(try PeerAddress(parsing: bad, from: .argument("peer")), bad)
        }
        let configured = try PeerConfiguration.read(directory: config("none"), environment: ["BATON_PEERS": " a:1 ,,b:2,a:1"],
                                                    peerArguments: ["c:3", "b:2"])
        XCTAssertEqual(configured.peers.map(\.description), ["a:1", "b:2", "c:3"])
    }
}
