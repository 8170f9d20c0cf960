@testable import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

/// Issue 29: `baton relay setup` on the authority's machine writes the relay settings into the
/// group (and this machine's device), checks every value first — one refused is named and
/// nothing is written — and never prints the secret; `baton relay show` neither.
final class RelayCommandTests: TrustTestCase {
    private var admin: URL { root.appendingPathComponent("admin") }

    @discardableResult
    private func baton(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProduct("baton", arguments + ["--config", admin.path], timeout: 30)
    }

    private var ownList: URL { config("admin").deviceDirectory.appendingPathComponent("revocations") }
    private var groupList: URL { config("admin").groupDirectory.appendingPathComponent("revocations") }

    func testSetupWritesTheSettingsAndShowNeverPrintsTheSecret() throws {
        XCTAssertEqual(try baton("group", "create", "Ada").status, 0)
        XCTAssertEqual(try baton("device", "add", "laptop", "--install").status, 0)
        let secretFile = root.appendingPathComponent("secret")
        let secret = "s3cret-for-the-group-turn-relay"
        try Data((secret + "\n").utf8).write(to: secretFile)
        let setup = try baton("relay", "setup", "--turn", "turn:turn.example.net:3478", "--turn", "turn:turn.example.net?transport=tcp",
                              "--broker", "mqtts://broker.example.net:8883", "--turn-secret-file", secretFile.path)
        XCTAssertEqual(setup.status, 0, setup.stderr)
        XCTAssertTrue(setup.stdout.contains("turn:turn.example.net:3478?transport=tcp"), setup.stdout)
        XCTAssertTrue(setup.stdout.contains("mqtts://broker.example.net:8883"), setup.stdout)
        XCTAssertFalse(setup.stdout.contains(secret), "the secret is never printed")
        let held = try XCTUnwrap(try RelaySettings.load(from: config("admin").deviceDirectory))
        XCTAssertEqual(held.turnSecret, Data(secret.utf8), "the file's trailing line break is not part of it")
        XCTAssertEqual(held.turn.map(\.transport), [.udp, .tcp])
        XCTAssertEqual(held.broker, BrokerAddress(host: "broker.example.net", port: 8883))

        let show = try baton("relay", "show")
        XCTAssertEqual(show.status, 0, show.stderr)
        XCTAssertTrue(show.stdout.contains("turn:turn.example.net:3478"), show.stdout)
        XCTAssertFalse(show.stdout.contains(secret), show.stdout)

        // Again without a secret file: the group's secret is kept; with --new-secret a new one.
        XCTAssertEqual(try baton("relay", "setup", "--turn", "turn:turn.example.net").status, 0)
        XCTAssertEqual(try RelaySettings.load(from: config("admin").deviceDirectory)?.turnSecret, Data(secret.utf8))
        XCTAssertEqual(try baton("relay", "setup", "--turn", "turn:turn.example.net", "--new-secret").status, 0)
        let renewed = try XCTUnwrap(try RelaySettings.load(from: config("admin").deviceDirectory))
        XCTAssertNotEqual(renewed.turnSecret, Data(secret.utf8))
        XCTAssertEqual(renewed.version, 3)
        XCTAssertNil(renewed.broker)
    }

    func testSetupRefusesABadValueNamingItAndWritesNothing() throws {
        XCTAssertEqual(try baton("group", "create", "Ada").status, 0)
        XCTAssertEqual(try baton("device", "add", "laptop", "--install").status, 0)
        let shortSecret = root.appendingPathComponent("short")
        try Data("tooshort".utf8).write(to: shortSecret)
        let before = (try Data(contentsOf: groupList), try Data(contentsOf: ownList))
        let cases: [([String], String)] = [
            (["--turn", "turn:ok.example", "--turn", "turn:bad_host.example"], "bad_host.example"),
            (["--turn", "stun:ok.example"], "stun:ok.example"),
            (["--turn", "turn:ok.example:70000"], "70000"),
            (["--broker", "mqtt://broker.example"], "mqtt://broker.example"),
            (["--turn", "turn:ok.example", "--turn-secret-file", shortSecret.path], "8 characters"),
            (["--turn", "turn:ok.example", "--turn-secret-file", root.appendingPathComponent("missing").path], "missing"),
            (["--turn", "turn:ok.example", "--turn", "turn:ok.example:3478"], "turn:ok.example:3478"),
            ([], "at least one"),
        ]
        for (arguments, named) in cases {
            let run = try runProduct("baton", ["relay", "setup"] + arguments + ["--config", admin.path], timeout: 30)
            XCTAssertNotEqual(run.status, 0, "\(arguments): \(run.stdout)")
            XCTAssertTrue(run.stderr.contains(named), "\(arguments) should name '\(named)': \(run.stderr)")
            XCTAssertEqual(try Data(contentsOf: groupList), before.0, "\(arguments): nothing written")
            XCTAssertEqual(try Data(contentsOf: ownList), before.1, "\(arguments): nothing written")
        }
        XCTAssertNil(try RelaySettings.load(from: config("admin").deviceDirectory))
        // On a device whose group is administered elsewhere: refused, naming why.
        let member = root.appendingPathComponent("member")
        try FileManager.default.createDirectory(at: member, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: config("admin").deviceDirectory, to: member.appendingPathComponent("device"))
        let elsewhere = try runProduct("baton", ["relay", "setup", "--turn", "turn:ok.example", "--config", member.path], timeout: 30)
        XCTAssertNotEqual(elsewhere.status, 0)
        XCTAssertTrue(elsewhere.stderr.contains("authority"), elsewhere.stderr)
    }
}
