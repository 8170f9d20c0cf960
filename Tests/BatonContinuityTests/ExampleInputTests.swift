@testable import BatonContinuity
import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// The example apps as a careless user and a hostile device would try them: a bad value is
/// refused at once by name, the configured peers are the ones `baton nearby` reads, and
/// nothing another device says is followed outside the folder it is given.
final class ExampleInputTests: TrustTestCase {
    /// A private `$XDG_CONFIG_HOME`, so the machine's own peers never reach a test.
    private var isolated: [String: String] { ["XDG_CONFIG_HOME": root.appendingPathComponent("xdg").path] }

    func testBadPeerAndListenValuesEndTheAppAtOnceNamingThem() throws {
        let folders = try devices("A")
        let cases: [([String], [String: String], String)] = [
            (["--peer", "127.0.0.1:99999"], [:], "'127.0.0.1:99999' (--peer)"),
            (["--peer", ":7300"], [:], "has no host"),
            (["--listen", "127.0.0.1:99999"], [:], "'127.0.0.1:99999' (--listen)"),
            (["--listen", "localhost:http"], [:], "'localhost:http' (--listen)"),
            (["--peer"], [:], "--peer needs a value"),
            ([], ["BATON_PEERS": "127.0.0.1:7300,nonsense"], "'nonsense' (entry 2 of $BATON_PEERS)"),
        ]
        for (product, mode) in [("baton-shapes", ["--create", "circle"]), ("baton-reader", ["--read", "7"]),
                                ("baton-mapviewer", ["--continue-nearby"]), ("baton-mail", ["--continue-nearby"])] {
            for (arguments, environment, words) in cases {
                let result = try runProduct(product, ["--device", folders[0]] + mode + arguments,
                                            environment: isolated.merging(environment) { $1 }, timeout: 20)
                XCTAssertEqual(result.status, 2, "\(product) \(arguments): \(result.stdout) \(result.stderr)")
                XCTAssertTrue(result.stderr.contains(words), "\(product) \(arguments): \(result.stderr)")
                XCTAssertFalse(result.stdout.contains("listening on"), "\(product) \(arguments) started: \(result.stdout)")
            }
        }
        let peers = root.appendingPathComponent("xdg/baton/peers")
        try FileManager.default.createDirectory(at: peers.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "127.0.0.1:7300\n\n# spare\nlaptop:\n".write(to: peers, atomically: true, encoding: .utf8)
        let fromFile = try runProduct("baton-shapes", ["--device", folders[0], "--listen", "127.0.0.1:0", "--create", "circle"], environment: isolated, timeout: 20)
        XCTAssertEqual(fromFile.status, 2)
        XCTAssertTrue(fromFile.stderr.contains("'laptop:' (\(peers.path) line 4)"), fromFile.stderr)
        try FileManager.default.removeItem(at: peers)
        let page = try runProduct("baton-reader", ["--device", folders[0], "--listen", "127.0.0.1:0", "--read", "7", "--page", "three"], environment: isolated, timeout: 20)
        XCTAssertEqual(page.status, 2)
        XCTAssertTrue(page.stderr.contains("--page takes a number, not 'three'"), page.stderr)
    }

    /// An app dials the peers of `$BATON_PEERS`, as `baton nearby` does: no `--peer` needed.
    func testAnAppDialsThePeersConfiguredInTheEnvironment() throws {
        let folders = try devices("A", "B")
        let a = try RunningProcess(product: "baton-reader", ["--device", folders[0], "--listen", "127.0.0.1:0", "--read", "7", "--page", "3"], environment: isolated)
        defer { a.terminate() }
        let address = try XCTUnwrap(a.listeningAddress(), a.output).description
        let b = try RunningProcess(product: "baton-reader", ["--device", folders[1], "--listen", "127.0.0.1:0", "--continue-nearby"],
                                   environment: isolated.merging(["BATON_PEERS": address]) { $1 })
        defer { b.terminate() }
        XCTAssertEqual(b.waitForExit(timeout: 30), 0, b.output)
        XCTAssertTrue(b.output.contains("restoreUserActivityState: article 7, page 3"), b.output)
    }

    /// A device of the group names its attachment `../../victim-dir/pwned.txt`: the file lands
    /// in `--save-to` as `pwned.txt`, beside (not through) a symbolic link of that name.
    func testMailKeepsAHostileAttachmentNameInsideTheSaveFolder() throws {
        let folders = try devices("A", "B")
        let attachment = root.appendingPathComponent("report.txt")
        let bytes = Data((0..<300_000).map { UInt8($0 % 251) })
        try bytes.write(to: attachment)
        let victim = root.appendingPathComponent("victim-dir"), inbox = root.appendingPathComponent("mail/inbox")
        for folder in [victim, inbox] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        try FileManager.default.createSymbolicLink(at: inbox.appendingPathComponent("pwned-2.txt"),
                                                   withDestinationURL: victim.appendingPathComponent("through-link.txt"))
        try Data("mine".utf8).write(to: inbox.appendingPathComponent("pwned.txt"))
        let a = try RunningProcess(product: "baton-mail", ["--device", folders[0], "--listen", "127.0.0.1:0", "--compose", "--to", "ada@example.org", "--subject", "Report",
                                                           "--body", "Attached.", "--attach", attachment.path, "--as", "../../victim-dir/pwned.txt"],
                                   environment: isolated)
        defer { a.terminate() }
        let address = try XCTUnwrap(a.listeningAddress(), a.output).description
        let b = try RunningProcess(product: "baton-mail", ["--device", folders[1], "--listen", "127.0.0.1:0", "--peer", address, "--continue-nearby", "--save-to", inbox.path],
                                   environment: isolated)
        defer { b.terminate() }
        XCTAssertEqual(b.waitForExit(timeout: 60), 0, b.output)
        XCTAssertEqual(a.waitForExit(), 0, a.output)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: victim.path), [], "nothing written outside --save-to")
        XCTAssertEqual(try Data(contentsOf: inbox.appendingPathComponent("pwned.txt")), Data("mine".utf8), "no file replaced")
        XCTAssertEqual(try Data(contentsOf: inbox.appendingPathComponent("pwned-3.txt")), bytes)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: inbox.path).sorted(), ["pwned-2.txt", "pwned.txt", "pwned-3.txt"].sorted())
        XCTAssertTrue(b.output.contains("received pwned.txt over continuation streams: \(bytes.count) bytes, checksum matches"), b.output)
    }

    /// A name with nothing usable left is refused before anything is written.
    func testMailRefusesAnAttachmentNameWithNothingUsableLeft() throws {
        let folders = try devices("A", "B")
        let attachment = root.appendingPathComponent("report.txt")
        try Data("x".utf8).write(to: attachment)
        let inbox = root.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let a = try RunningProcess(product: "baton-mail", ["--device", folders[0], "--listen", "127.0.0.1:0", "--compose", "--to", "a@b", "--subject", "S", "--body", "B",
                                                           "--attach", attachment.path, "--as", "../..\u{1B}[2J/.."], environment: isolated)
        defer { a.terminate() }
        let address = try XCTUnwrap(a.listeningAddress(), a.output).description
        let b = try RunningProcess(product: "baton-mail", ["--device", folders[1], "--listen", "127.0.0.1:0", "--peer", address, "--continue-nearby", "--save-to", inbox.path],
                                   environment: isolated)
        defer { b.terminate() }
        XCTAssertEqual(b.waitForExit(timeout: 60), 1, b.output)
        XCTAssertTrue(b.output.contains("'../..\\u{1B}[2J/..' is not a usable file name"), b.output)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: inbox.path), [])
    }

    /// A transfer that fails half way (the disk fills up) leaves no partial file behind.
    func testMailRemovesAPartialAttachmentWhenTheTransferFails() throws {
        guard getuid() == 0 else { throw XCTSkip("needs root to mount a small tmpfs in a private mount namespace") }
        let folders = try devices("A", "B")
        let attachment = root.appendingPathComponent("big.raw")
        try Data(repeating: 7, count: 4 << 20).write(to: attachment)
        let inbox = root.appendingPathComponent("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let a = try RunningProcess(product: "baton-mail", ["--device", folders[0], "--listen", "127.0.0.1:0", "--compose", "--to", "a@b", "--subject", "S", "--body", "B",
                                                           "--attach", attachment.path], environment: isolated)
        defer { a.terminate() }
        let address = try XCTUnwrap(a.listeningAddress(), a.output).description
        // B sees a 1 MiB tmpfs at the inbox, in a mount namespace of its own; after B ends, the
        // shell lists what B left there. Ending the shell ends B.
        let script = """
            mount -t tmpfs -o size=1m tmpfs "$1" || exit 9
            "$2" --device "$3" --peer "$4" --continue-nearby --save-to "$1" & app=$!
            trap 'kill $app; exit 143' TERM
            wait $app; status=$?
            echo "left in the inbox: [$(ls -A "$1" | tr '\\n' ' ')]"
            exit $status
            """
        let b = try RunningProcess(executable: URL(fileURLWithPath: "/usr/bin/unshare"),
                                   ["--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh",
                                    inbox.path, productURL("baton-mail").path, folders[1], address], environment: isolated)
        defer { b.terminate() }
        XCTAssertEqual(b.waitForExit(timeout: 60), 1, b.output)
        XCTAssertTrue(b.output.contains("error: the attachment did not arrive: cannot write"), b.output)
        XCTAssertTrue(b.output.contains("left in the inbox: []"), b.output)
    }
}
