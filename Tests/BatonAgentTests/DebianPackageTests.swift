import BatonAgent
import BatonTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// `make deb` (scripts/deb.sh), run on the debug build's products: the package's files and
/// control fields, and — as root, where apt-get is (CI) — that it installs, its programs run
/// from /usr/bin, and purging it leaves none of its files.
///
/// The debug products link the Swift runtime from the toolchain's folder (no Debian package has
/// it; `make deb` builds with --static-swift-stdlib instead), so the package is built with
/// DEB_ALLOW_UNPACKAGED=1, and its programs run here only because the toolchain is on this machine.
final class DebianPackageTests: XCTestCase {
    private let work = FileManager.default.temporaryDirectory.appendingPathComponent("baton-deb-\(UUID().uuidString)")

    override func setUpWithError() throws {
        for tool in ["/usr/bin/dpkg-deb", "/usr/bin/dpkg-shlibdeps"] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("\(tool) is not installed (Debian packages dpkg and dpkg-dev; scripts/install-deps.sh)")
        }
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: work) }

    private static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private static let environment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"]

    private func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
                     timeout: TimeInterval = 120) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProcess(URL(fileURLWithPath: executable), arguments,
                       environment: Self.environment.merging(environment) { _, new in new }, timeout: timeout)
    }

    /// Builds the package from the debug products into `work`; returns its path.
    private func buildPackage() throws -> String {
        let binaries = productURL("batond").deletingLastPathComponent()
        let result = try run("/bin/bash", [Self.repository.appendingPathComponent("scripts/deb.sh").path, binaries.path, work.path],
                             environment: ["DEB_ALLOW_UNPACKAGED": "1", "DEB_VERSION": ""], timeout: 180)
        XCTAssertEqual(result.status, 0, result.stderr)
        let path = result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), "\(path): \(result.stderr)")
        return path
    }

    /// The paths of the package's regular files, as `dpkg-deb -c` lists them (`/usr/bin/baton`).
    private func files(of package: String) throws -> [String] {
        let listing = try run("/usr/bin/dpkg-deb", ["-c", package])
        XCTAssertEqual(listing.status, 0, listing.stderr)
        return listing.stdout.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("-") || line.hasPrefix("l"), let path = line.split(separator: " ").last(where: { $0.hasPrefix("./") })
            else { return nil }
            return String(path.dropFirst())
        }
    }

    private func field(_ name: String, of package: String) throws -> String {
        let result = try run("/usr/bin/dpkg-deb", ["-f", package, name])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testThePackageHasTheProgramsTheUnitsAndTheDocsAndNamesItsDependencies() throws {
        let package = try buildPackage()
        let version = BatonVersion.current  // what `baton --version` says too
        let arch = try run("/usr/bin/dpkg", ["--print-architecture"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual((package as NSString).lastPathComponent, "baton_\(version)_\(arch).deb")

        let contents = Set(try files(of: package))
        for path in ["/usr/bin/baton", "/usr/bin/batond", "/usr/lib/systemd/user/batond.service", "/usr/lib/systemd/user/batond.socket",
                     "/usr/share/doc/baton/copyright", "/usr/share/doc/baton/README.md", "/usr/share/doc/baton/PROTOCOL.md"] {
            XCTAssertTrue(contents.contains(path), "\(path) in \(contents.sorted())")
        }
        // No examples, no install manifest (dpkg keeps the list), LICENSE only as the copyright file.
        XCTAssertEqual(contents.filter { $0.hasPrefix("/usr/bin/") }.sorted(), ["/usr/bin/baton", "/usr/bin/batond"])
        XCTAssertFalse(contents.contains { $0.contains("/share/baton/") || $0.hasSuffix("/LICENSE") || $0.contains("/local/") }, "\(contents.sorted())")

        XCTAssertEqual(try field("Package", of: package), "baton")
        XCTAssertEqual(try field("Version", of: package), version)
        XCTAssertEqual(try field("Architecture", of: package), arch)
        let depends = try field("Depends", of: package)
        let names = Set(depends.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).split(separator: " ")[0] }.map(String.init))
        XCTAssertTrue(names.contains { $0.hasPrefix("libglib2.0-0") }, depends)
        // libnice for links across NATs (ICE), libmosquitto for the broker that signals them.
        for name in ["glib-networking", "libavahi-client3", "libavahi-glib1", "libsoup-3.0-0", "libc6", "libnice10", "libmosquitto1"] {
            XCTAssertTrue(names.contains(name), "\(name) in Depends: \(depends)")
        }
        XCTAssertFalse(depends.contains("swift"), depends)

        // The unit starts the program where the package puts it.
        let unpacked = work.appendingPathComponent("unpacked")
        XCTAssertEqual(try run("/usr/bin/dpkg-deb", ["-x", package, unpacked.path]).status, 0)
        let service = try String(contentsOf: unpacked.appendingPathComponent("usr/lib/systemd/user/batond.service"), encoding: .utf8)
        XCTAssertTrue(service.contains("ExecStart=/usr/bin/batond") && service.contains("file:///usr/share/doc/baton/README.md"), service)
    }

    func testAWrongVersionIsRefusedNamingIt() throws {
        let binaries = productURL("batond").deletingLastPathComponent()
        let result = try run("/bin/bash", [Self.repository.appendingPathComponent("scripts/deb.sh").path, binaries.path, work.path],
                             environment: ["DEB_ALLOW_UNPACKAGED": "1", "DEB_VERSION": "v1 beta"])
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("'v1 beta' is not a Debian version"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path), [])
    }

    /// apt-get installs it (its dependencies are Debian's), the installed programs run, and
    /// `apt-get purge` leaves none of its files. The package is purged whatever happens.
    func testItInstallsRunsAndPurgesCleanlyWithApt() throws {
        guard getuid() == 0 else { throw XCTSkip("installing the package with apt-get needs root (CI runs as root)") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/apt-get") else { throw XCTSkip("apt-get is not installed") }
        guard try !isKnownToDpkg() else {
            throw XCTSkip("dpkg already has a package named baton here: the test does not replace it")
        }
        let package = try buildPackage()
        let files = try files(of: package)
        XCTAssertFalse(files.isEmpty)

        // apt waits (bounded) for another apt or dpkg run to let go of the lock rather than run beside it.
        let lock = ["-o", "DPkg::Lock::Timeout=120"]
        defer {
            // Only if the test stopped before its own purge: apt-get purge of a package dpkg does not know fails.
            if (try? isKnownToDpkg()) != false {
                let purge = try? run("/usr/bin/apt-get", lock + ["purge", "-y", "-q", "baton"], timeout: 300)
                XCTAssertEqual(purge?.status, 0, purge?.stderr ?? "apt-get purge did not run")
            }
        }
        let install = try run("/usr/bin/apt-get", lock + ["install", "-y", "-q", "--no-install-recommends", package], timeout: 300)
        XCTAssertEqual(install.status, 0, install.stdout + install.stderr)
        guard install.status == 0 else { return }

        for program in ["baton", "batond"] {
            let help = try run("/usr/bin/\(program)", ["--help"], timeout: 30)
            XCTAssertEqual(help.status, 0, "\(program) --help: \(help.stderr)")
            XCTAssertTrue(help.stdout.lowercased().contains("usage"), "\(program) --help: \(help.stdout)")
        }

        try handOffThroughInstalledAgents(in: URL(fileURLWithPath: "/usr/bin"))

        let purge = try run("/usr/bin/apt-get", lock + ["purge", "-y", "-q", "baton"], timeout: 300)
        XCTAssertEqual(purge.status, 0, purge.stdout + purge.stderr)
        for file in files { XCTAssertFalse(FileManager.default.fileExists(atPath: file), "\(file) is left after the purge") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/usr/share/doc/baton"))
        XCTAssertFalse(try isKnownToDpkg(), "dpkg still has baton after the purge")
    }

    /// Whether dpkg has a package named baton in any state but "not installed" (installed,
    /// half-installed, or removed with its configuration files left).
    private func isKnownToDpkg() throws -> Bool {
        let status = try run("/usr/bin/dpkg-query", ["-W", "-f=${db:Status-Status}", "baton"])
        let state = status.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return status.status == 0 && !state.isEmpty && state != "not-installed"
    }
}
