import BatonTestSupport
import XCTest

/// `make install` and `make uninstall` (scripts/install.sh and scripts/uninstall.sh, run on the
/// debug build's products here): what lands where under `DESTDIR` + `PREFIX` — the user units
/// where the systemd user manager looks — that a missing program stops it before anything is
/// copied, and that uninstall takes back exactly what install put there.
final class InstallTests: XCTestCase {
    private let stage = FileManager.default.temporaryDirectory.appendingPathComponent("baton-install-\(UUID().uuidString)")

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: stage) }

    private static let scripts = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts")

    private var binaries: URL { productURL("batond").deletingLastPathComponent() }

    private func run(_ script: String, _ arguments: [String] = [], prefix: String, destdir: String?,
                     extra: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        let environment = ["PATH": "/usr/bin:/bin", "PREFIX": prefix, "DESTDIR": destdir ?? "", "UNITDIR": ""]
            .merging(extra) { _, new in new }
        return try runProcess(URL(fileURLWithPath: "/bin/bash"), [Self.scripts.appendingPathComponent(script).path] + arguments,
                              environment: environment, timeout: 60)
    }

    private func install(from binaries: URL, prefix: String = "/opt/baton", destdir: String? = nil,
                         extra: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
        try run("install.sh", [binaries.path], prefix: prefix, destdir: destdir ?? stage.path, extra: extra)
    }

    private func uninstall(prefix: String = "/opt/baton", destdir: String? = nil) throws -> (status: Int32, stdout: String, stderr: String) {
        try run("uninstall.sh", prefix: prefix, destdir: destdir ?? stage.path)
    }

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: stage.appendingPathComponent(path).path) }

    /// Every path under the stage, folders included, relative to it.
    private func entries() -> Set<String> {
        let walker = FileManager.default.enumerator(atPath: stage.path)
        var paths = Set<String>()
        while let path = walker?.nextObject() as? String { paths.insert(path) }
        return paths
    }

    /// Installed for real (no DESTDIR) into a prefix of its own, as `make install
    /// PREFIX=$HOME/.local` does: the installed programs hand off, `baton status` names the
    /// installed agent, and uninstall leaves the prefix empty.
    func testWhatIsInstalledHandsOffAndUninstallTakesItBack() throws {
        let prefix = stage.appendingPathComponent("home/.local")
        let result = try run("install.sh", [binaries.path], prefix: prefix.path, destdir: nil,
                             extra: ["HOME": stage.appendingPathComponent("home").path])
        XCTAssertEqual(result.status, 0, result.stderr)
        try handOffThroughInstalledAgents(in: prefix.appendingPathComponent("bin"))
        let removed = try run("uninstall.sh", prefix: prefix.path, destdir: nil)
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: prefix.path), "uninstall took back the prefix it made")
    }

    func testItInstallsTheProgramsTheUnitsAndTheDocsUnderDestdirAndPrefix() throws {
        let result = try install(from: binaries)
        XCTAssertEqual(result.status, 0, result.stderr)
        let root = stage.appendingPathComponent("opt/baton")
        for program in ["bin/baton", "bin/batond"] {
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: root.appendingPathComponent(program).path), program)
        }
        // Not /usr: $PREFIX/share/systemd/user, where the user manager looks for /usr/local and ~/.local.
        XCTAssertFalse(exists("opt/baton/lib/systemd/user/batond.service"))
        let service = try String(contentsOf: root.appendingPathComponent("share/systemd/user/batond.service"), encoding: .utf8)
        XCTAssertTrue(service.contains("ExecStart=/opt/baton/bin/batond"), service)
        XCTAssertFalse(service.contains("@"), "every placeholder is filled in: \(service)")
        XCTAssertTrue(service.contains("KillMode=process"))
        let socket = try String(contentsOf: root.appendingPathComponent("share/systemd/user/batond.socket"), encoding: .utf8)
        XCTAssertTrue(socket.contains("ListenStream=%t/baton/agent.socket") && socket.contains("SocketMode=0600"), socket)
        XCTAssertTrue(exists("opt/baton/share/doc/baton/README.md"))
        XCTAssertTrue(exists("opt/baton/share/doc/baton/PROTOCOL.md"))
        // The manifest lists, without DESTDIR, every file installed (itself too) and the folders made.
        let manifest = try String(contentsOf: root.appendingPathComponent("share/baton/installed-files"), encoding: .utf8)
        let lines = Set(manifest.split(separator: "\n").map(String.init))
        for path in ["/opt/baton/bin/baton", "/opt/baton/bin/batond", "/opt/baton/share/systemd/user/batond.service",
                     "/opt/baton/share/systemd/user/batond.socket", "/opt/baton/share/doc/baton/README.md",
                     "/opt/baton/share/baton/installed-files", "/opt/", "/opt/baton/bin/", "/opt/baton/share/systemd/user/"] {
            XCTAssertTrue(lines.contains(path), "\(path) in \(manifest)")
        }
        XCTAssertFalse(manifest.contains(stage.path), manifest)
    }

    func testPrefixUsrPutsTheUnitsInUsrLibSystemdUser() throws {
        let result = try install(from: binaries, prefix: "/usr")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(exists("usr/lib/systemd/user/batond.socket"))
        let service = try String(contentsOf: stage.appendingPathComponent("usr/lib/systemd/user/batond.service"), encoding: .utf8)
        XCTAssertTrue(service.contains("ExecStart=/usr/bin/batond"), service)
        XCTAssertFalse(exists("usr/share/systemd/user"))
    }

    func testUnitdirOverridesWhereTheUnitsGo() throws {
        let result = try install(from: binaries, extra: ["UNITDIR": "/etc/systemd/user"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(exists("etc/systemd/user/batond.socket"))
        XCTAssertTrue(exists("etc/systemd/user/batond.service"))
        XCTAssertFalse(exists("opt/baton/share/systemd"))
        XCTAssertEqual(try uninstall().status, 0)
        XCTAssertEqual(entries(), [])
    }

    /// `make install PREFIX=$HOME/.local` with no DESTDIR: the units go where the user manager
    /// finds them (it looks in ~/.local/share/systemd/user), so there is no warning; a prefix it
    /// does not search gets a warning naming UNITDIR, and still installs.
    func testAHomeLocalPrefixIsFoundByTheUserManagerAndAnotherIsWarnedAbout() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze") else {
            throw XCTSkip("systemd-analyze is not installed: install.sh cannot check the user unit paths")
        }
        let home = stage.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        // The user manager's paths follow $HOME and the XDG variables; the runner's own must not leak in.
        let user = ["HOME": home.path, "XDG_DATA_HOME": home.path + "/.local/share", "XDG_CONFIG_HOME": home.path + "/.config"]
        let local = home.appendingPathComponent(".local").path
        let result = try install(from: binaries, prefix: local, destdir: "", extra: user)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("warning"), result.stderr)
        XCTAssertTrue(exists("home/.local/share/systemd/user/batond.socket"))
        let service = try String(contentsOf: home.appendingPathComponent(".local/share/systemd/user/batond.service"), encoding: .utf8)
        XCTAssertTrue(service.contains("ExecStart=\(local)/bin/batond"), service)

        let elsewhere = stage.appendingPathComponent("elsewhere").path
        let warned = try install(from: binaries, prefix: elsewhere, destdir: "", extra: user)
        XCTAssertEqual(warned.status, 0, warned.stderr)
        XCTAssertTrue(warned.stderr.contains("warning") && warned.stderr.contains("\(elsewhere)/share/systemd/user")
                      && warned.stderr.contains("UNITDIR="), warned.stderr)
        XCTAssertTrue(exists("elsewhere/share/systemd/user/batond.socket"))

        XCTAssertEqual(try uninstall(prefix: local, destdir: "").status, 0)
        XCTAssertEqual(try uninstall(prefix: elsewhere, destdir: "").status, 0)
        XCTAssertEqual(entries(), ["home"], "only the folder the test made is left")
    }

    func testAMissingProgramStopsItBeforeAnythingIsCopied() throws {
        let binaries = stage.appendingPathComponent("bin-without-batond")
        try FileManager.default.createDirectory(at: binaries, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: productURL("baton"), to: binaries.appendingPathComponent("baton"))
        let result = try install(from: binaries)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("batond is missing"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stage.appendingPathComponent("opt").path))
    }

    /// Uninstall removes each file install listed and the folders it made, and nothing else: a
    /// file of another package in a shared folder (share/doc) stays, with that folder.
    func testUninstallTakesBackExactlyWhatWasInstalled() throws {
        let other = stage.appendingPathComponent("opt/baton/share/doc/other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data("not Baton's\n".utf8).write(to: other.appendingPathComponent("README"))
        let before = try FolderSnapshot(stage), beforeEntries = entries()

        XCTAssertEqual(try install(from: binaries).status, 0)
        // A second install over the first (an upgrade) must not lose what the first recorded.
        let again = try install(from: binaries)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertNotEqual(try FolderSnapshot(stage), before)

        let result = try uninstall()
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(try FolderSnapshot(stage), before)
        XCTAssertEqual(entries(), beforeEntries)
    }

    func testUninstallWithoutAManifestRefusesAndRemovesNothing() throws {
        let bin = stage.appendingPathComponent("opt/baton/bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try Data("#!/bin/sh\n".utf8).write(to: bin.appendingPathComponent("baton"))
        let before = try FolderSnapshot(stage)
        let result = try uninstall()
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("\(stage.path)/opt/baton/share/baton/installed-files"), result.stderr)
        XCTAssertEqual(try FolderSnapshot(stage), before)
    }
}
