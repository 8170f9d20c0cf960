import BatonTestSupport
import XCTest

/// `make install` (scripts/install.sh, run on the debug build's products here): what lands
/// where under `DESTDIR` + `PREFIX`, and that a missing program stops it before anything is copied.
final class InstallTests: XCTestCase {
    private let stage = FileManager.default.temporaryDirectory.appendingPathComponent("baton-install-\(UUID().uuidString)")

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: stage) }

    private var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/install.sh")
    }

    private func install(from binaries: URL) throws -> (status: Int32, stdout: String, stderr: String) {
        try runProcess(URL(fileURLWithPath: "/bin/bash"), [script.path, binaries.path],
                       environment: ["PATH": "/usr/bin:/bin", "PREFIX": "/opt/baton", "DESTDIR": stage.path])
    }

    func testItInstallsTheProgramsTheUnitsAndTheDocsUnderDestdirAndPrefix() throws {
        let result = try install(from: productURL("batond").deletingLastPathComponent())
        XCTAssertEqual(result.status, 0, result.stderr)
        let root = stage.appendingPathComponent("opt/baton")
        for program in ["bin/baton", "bin/batond"] {
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: root.appendingPathComponent(program).path), program)
        }
        let service = try String(contentsOf: root.appendingPathComponent("lib/systemd/user/batond.service"), encoding: .utf8)
        XCTAssertTrue(service.contains("ExecStart=/opt/baton/bin/batond"), service)
        XCTAssertFalse(service.contains("@"), "every placeholder is filled in: \(service)")
        XCTAssertTrue(service.contains("KillMode=process"))
        let socket = try String(contentsOf: root.appendingPathComponent("lib/systemd/user/batond.socket"), encoding: .utf8)
        XCTAssertTrue(socket.contains("ListenStream=%t/baton/agent.socket") && socket.contains("SocketMode=0600"), socket)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("share/doc/baton/README.md").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("share/doc/baton/PROTOCOL.md").path))
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
}
