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
    private var service: URL { xdg.dataHome.appendingPathComponent("dbus-1/services/com.example.mail.service") }

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
        try makeUnwritable(folderOf: manifest)
        result = try baton(["install", mailManifest.path, "--exec", "/bin/true"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("cannot write \(manifest.deletingLastPathComponent().path)"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: entry.path), "both or neither")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: entry.deletingLastPathComponent().path), [],
                       "no temporary file left")
    }

    /// `--dbus-activatable`: the desktop entry says `DBusActivatable=true`, and the session
    /// bus's service file (Desktop Entry Specification, "D-Bus Activation": a service at the
    /// name the desktop file is named after) runs the Exec line — field codes expanded as for a
    /// launch without files, the program found on PATH — with `--gapplication-service`.
    /// Removing takes all three files away.
    func testDBusActivatableInstallWritesTheServiceFileAndRemoveTakesAllThree() throws {
        let installed = try baton(["install", mailManifest.path, "--exec", "true --title %c --device 'B dir' --ratio 100%% %U",
                                   "--name", "Mail", "--dbus-activatable"])
        XCTAssertEqual(installed.status, 0, installed.stderr)
        XCTAssertTrue(installed.stdout.contains("installed com.example.mail: \(entry.path), \(manifest.path), \(service.path)"),
                      installed.stdout)
        XCTAssertTrue(try DesktopEntry(contentsOf: entry).isDBusActivatable)
        let path = try XCTUnwrap(ProcessInfo.processInfo.environment["PATH"]).split(separator: ":")
            .map { "\($0)/true" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        XCTAssertEqual(try String(contentsOf: service, encoding: .utf8), """
            # X-Baton-Installed=true (written by baton app install)
            [D-BUS Service]
            Name=com.example.mail
            Exec='\(try XCTUnwrap(path))' '--title' 'Mail' '--device' 'B dir' '--ratio' '100%' '--gapplication-service'

            """)

        let removed = try baton(["remove", "com.example.mail"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        for file in [entry, manifest, service] { XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), file.path) }
    }

    /// The service file is one a real session bus reads: a private `dbus-daemon` whose
    /// `XDG_DATA_HOME` is the test's finds it and starts its command line, each argument as
    /// given (quotes, a backslash, a literal `%`), with `--gapplication-service` last.
    func testTheServiceFileIsOneTheSessionBusStarts() throws {
        for tool in ["/usr/bin/dbus-daemon", "/usr/bin/dbus-send"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("no \(tool) (Debian packages dbus, dbus-bin)")
        }
        let started = xdg.root.appendingPathComponent("started")
        // It ends with a status of its own, which the bus answers at once (ChildExited).
        let exec = "/bin/sh -c 'printf \"%%s|\" \"$@\" > \(started.path); exit 3' sh \"it's\" 'a\\b' %F"
        let installed = try baton(["install", mailManifest.path, "--exec", exec, "--dbus-activatable"])
        XCTAssertEqual(installed.status, 0, installed.stderr)

        let socket = xdg.root.appendingPathComponent("bus").path
        let bus = try RunningProcess(executable: URL(fileURLWithPath: "/usr/bin/dbus-daemon"),
                                     ["--session", "--nofork", "--print-address", "--address=unix:path=\(socket)"],
                                     environment: xdg.environment)
        defer {
            bus.terminate()
            bus.waitForExit(timeout: 10)
        }
        let address = try XCTUnwrap(bus.waitForLine(containing: "unix:", timeout: 30), bus.output).trimmingCharacters(in: .whitespaces)
        // Answered once the service has exited (it never takes the name): its file is written by then.
        let start = try runProcess(URL(fileURLWithPath: "/usr/bin/dbus-send"),
                           ["--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                            "org.freedesktop.DBus.StartServiceByName", "string:com.example.mail", "uint32:0"],
                           environment: ["DBUS_SESSION_BUS_ADDRESS": address], timeout: 30)
        XCTAssertTrue(start.stderr.contains("Process com.example.mail exited with status 3"), start.stdout + start.stderr)
        XCTAssertTrue(bus.output.contains("Activating service name='com.example.mail'"), bus.output)
        XCTAssertEqual(try String(contentsOf: started, encoding: .utf8), "it's|a\\b|--gapplication-service|")
    }

    /// A service file that is not Baton's is never replaced (nothing is written, the error
    /// names it) nor removed; reinstalling without the flag removes the one Baton wrote.
    func testAServiceFileNotBatonsIsLeftAloneAndAStaleOneOfBatonsIsRemoved() throws {
        try FileManager.default.createDirectory(at: service.deletingLastPathComponent(), withIntermediateDirectories: true)
        let foreign = "[D-BUS Service]\nName=com.example.mail\nExec=/usr/bin/mail-daemon\n"
        try Data(foreign.utf8).write(to: service)
        var result = try baton(["install", mailManifest.path, "--exec", "/bin/true", "--dbus-activatable"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("\(service.path) is there and was not installed by baton"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: entry.path), "nothing written")
        XCTAssertFalse(FileManager.default.fileExists(atPath: manifest.path), "nothing written")
        XCTAssertEqual(try String(contentsOf: service, encoding: .utf8), foreign)
        // Installed without the flag, and removed: the user's service file stays as it was.
        result = try baton(["install", mailManifest.path, "--exec", "/bin/true"])
        XCTAssertEqual(result.status, 0, result.stderr)
        result = try baton(["remove", "com.example.mail"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try String(contentsOf: service, encoding: .utf8), foreign)
        try FileManager.default.removeItem(at: service)

        // Baton's own, from an install with the flag, goes with a reinstall without it.
        result = try baton(["install", mailManifest.path, "--exec", "/bin/true", "--dbus-activatable"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: service.path))
        result = try baton(["install", mailManifest.path, "--exec", "/bin/true"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("updated com.example.mail: \(entry.path), \(manifest.path)\n"), result.stdout)
        XCTAssertFalse(FileManager.default.fileExists(atPath: service.path), "the stale service file is removed")
        XCTAssertFalse(try DesktopEntry(contentsOf: entry).isDBusActivatable)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: service.deletingLastPathComponent().path), [],
                       "nothing left aside")

        // A failed install leaves Baton's service file where it was: both or neither.
        result = try baton(["install", mailManifest.path, "--exec", "/bin/true", "--dbus-activatable"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let written = try Data(contentsOf: service)
        try FileManager.default.removeItem(at: manifest)
        try makeUnwritable(folderOf: manifest)
        result = try baton(["install", mailManifest.path, "--exec", "/bin/true"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("cannot write \(manifest.deletingLastPathComponent().path)"), result.stderr)
        XCTAssertEqual(try Data(contentsOf: service), written, "the service file is put back")
        XCTAssertTrue(try DesktopEntry(contentsOf: entry).isDBusActivatable, "the entry is unchanged")
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

    /// Replaces the folder that holds `file` with an empty file of its name, so that nothing
    /// can be written there.
    private func makeUnwritable(folderOf file: URL) throws {
        try FileManager.default.removeItem(at: file.deletingLastPathComponent())
        try Data().write(to: file.deletingLastPathComponent())
    }
}
