import Baton
import BatonAgent
import BatonTestSupport
import Foundation
import XCTest

/// `baton app install / list / remove` as a person runs them, on the test's own XDG dirs.
final class AppCommandTests: XCTestCase {
    private var xdg: XDGFixture!
    private var mailManifest: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/Mail/Manifest/Info.plist")
    }
    private var entry: URL { xdg.dataHome.appendingPathComponent("applications/com.example.mail.desktop") }
    private var manifest: URL { xdg.dataHome.appendingPathComponent("baton/apps/com.example.mail.plist") }

    override func setUpWithError() throws { xdg = try XDGFixture() }
    override func tearDown() { xdg.remove() }

    private func baton(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProduct("baton", ["app"] + arguments, environment: xdg.environment)
    }

    func testInstallListAndRemoveTheMailExample() throws {
        let installed = try baton(["install", mailManifest.path, "--exec", "/bin/true --device 'B dir'", "--name", "Mail"])
        XCTAssertEqual(installed.status, 0, installed.stderr)
        XCTAssertTrue(installed.stdout.contains("installed com.example.mail: \(entry.path), \(manifest.path)"), installed.stdout)
        XCTAssertEqual(try Data(contentsOf: manifest), try Data(contentsOf: mailManifest), "the Info.plist, byte for byte")
        let text = try String(contentsOf: entry, encoding: .utf8)
        XCTAssertTrue(text.contains("Exec=/bin/true --device 'B dir'\n"), text)
        XCTAssertTrue(text.contains("Name=Mail\n") && text.contains("X-Baton-Installed=true\n"), text)
        let parsed = try DesktopEntry(contentsOf: entry)
        XCTAssertTrue(parsed.startupNotify)
        XCTAssertFalse(parsed.isDBusActivatable)

        let list = try baton(["list"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.contains("com.example.mail\tEXAMPLETEAM\tcom.example.mail.compose\t\(entry.path)"), list.stdout)

        let again = try baton(["install", mailManifest.path, "--exec", "/bin/true", "--dbus-activatable"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.contains("updated com.example.mail"), again.stdout)
        XCTAssertTrue(try DesktopEntry(contentsOf: entry).isDBusActivatable)

        let removed = try baton(["remove", "com.example.mail"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: entry.path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: manifest.path))
        XCTAssertTrue(try baton(["list"]).stdout.contains("no Baton apps installed"))
        let twice = try baton(["remove", "com.example.mail"])
        XCTAssertNotEqual(twice.status, 0)
        XCTAssertTrue(twice.stderr.contains("no app com.example.mail was installed by baton in \(xdg.dataHome.path)"), twice.stderr)
    }

    /// Never another app's files, and never one file without the other.
    func testInstallRefusesWhatIsNotItsOwnAndWritesBothOrNeither() throws {
        // A desktop entry of the user's own, not written by baton.
        try xdg.goodEntry("com.example.mail")
        var result = try baton(["install", mailManifest.path, "--exec", "/bin/true"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("\(entry.path) is there and was not installed by baton"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: manifest.path), "nothing written")
        XCTAssertEqual(try String(contentsOf: entry, encoding: .utf8).contains("X-Baton"), false)
        result = try baton(["remove", "com.example.mail"])
        XCTAssertNotEqual(result.status, 0, "nor removed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: entry.path))
        try FileManager.default.removeItem(at: entry)

        // Another app's manifest under that name.
        try xdg.manifest("com.example.mail", appID: "com.other.app")
        result = try baton(["install", mailManifest.path, "--exec", "/bin/true"])
        XCTAssertTrue(result.stderr.contains("\(manifest.path) is there and was not installed by baton"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: entry.path), "nothing written")
        try FileManager.default.removeItem(at: manifest)

        // The manifest cannot be written (its folder is a file): the entry is not left behind.
        try FileManager.default.removeItem(at: manifest.deletingLastPathComponent())
        try Data().write(to: manifest.deletingLastPathComponent())
        result = try baton(["install", mailManifest.path, "--exec", "/bin/true"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("cannot write \(manifest.deletingLastPathComponent().path)"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: entry.path), "both or neither")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: entry.deletingLastPathComponent().path), [],
                       "no temporary file left")
    }

    func testBadInputIsRefusedNamingTheFileOrValue() throws {
        let garbage = xdg.root.appendingPathComponent("garbage.plist")
        try Data("not a plist".utf8).write(to: garbage)
        let badID = xdg.root.appendingPathComponent("bad-id.plist")
        try PropertyListSerialization.data(fromPropertyList: ["CFBundleIdentifier": "mail", "BatonTeamIdentifier": "T"],
                                           format: .xml, options: 0).write(to: badID)
        let cases: [([String], String)] = [
            (["install", garbage.path, "--exec", "/bin/true"], "\(garbage.path) is not a property list"),
            (["install", xdg.root.appendingPathComponent("none.plist").path, "--exec", "/bin/true"], "none.plist"),
            (["install", badID.path, "--exec", "/bin/true"], "CFBundleIdentifier mail is not a valid application id"),
            (["install", mailManifest.path, "--exec", "/nonexistent/mail"], "the program /nonexistent/mail is neither"),
            (["install", mailManifest.path, "--exec", "no-such-program-on-path"], "the program no-such-program-on-path"),
            (["install", mailManifest.path, "--exec", "bin/true"], "bin/true (not an absolute path)"),
            (["install", mailManifest.path, "--exec", "/bin/true\nX-Injected=1"], "--exec"),
            (["install", mailManifest.path, "--exec", "/bin/true", "--name", ""], "--name"),
        ]
        for (arguments, expected) in cases {
            let result = try baton(arguments)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertTrue(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: xdg.dataHome.appendingPathComponent("applications").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: xdg.dataHome.appendingPathComponent("baton").path))
    }
}
