import BatonContinuity
import BatonTestSupport
import Foundation
import XCTest

/// A FIFO, a socket or a device where Baton expects a regular file is refused at once, naming
/// it: nothing waits for a writer that never comes.
final class SpecialFileTests: TrustTestCase {
    private func fifo(_ url: URL) throws {
        try? FileManager.default.removeItem(at: url)
        XCTAssertEqual(mkfifo(url.path, 0o600), 0, String(cString: strerror(errno)))
    }

    func testAFIFOHandoffFileIsRefusedAtOnce() throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let file = root.appendingPathComponent("x.handoff")
        try fifo(file)
        let result = try runProduct("baton-shapes", ["--continue", file.path], timeout: 30)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue((result.stdout + result.stderr).contains(file.path), result.stdout + result.stderr)
        XCTAssertTrue((result.stdout + result.stderr).contains("not a regular file"), result.stdout + result.stderr)
        XCTAssertThrowsError(try ActivityFile.read(from: file))
    }

    func testAFIFOOrDeviceInTheIdentityFolderIsRefusedNamingIt() throws {
        let admin = root.appendingPathComponent("admin")
        let authority = try GroupAuthority.create(name: "Ada", in: ConfigDirectory(url: admin))
        let device = ConfigDirectory(url: admin).deviceDirectory
        try authority.issueDevice(named: "A").write(to: device)
        for name in ["revocations", "key.pem"] {
            let file = device.appendingPathComponent(name)
            let saved = try Data(contentsOf: file)
            try fifo(file)
            let result = try runProduct("baton", ["identity", "--config", admin.path], timeout: 30)
            XCTAssertNotEqual(result.status, 0, name)
            XCTAssertTrue(result.stderr.contains(file.path), "\(name): \(result.stderr)")
            try FileManager.default.removeItem(at: file)
            try saved.write(to: file)
            chmod(file.path, 0o600)
        }
        // A character device (/dev/zero would read forever; /dev/tty blocks) as agent.conf.
        let conf = admin.appendingPathComponent("agent.conf")
        try FileManager.default.createSymbolicLink(atPath: conf.path, withDestinationPath: "/dev/zero")
        let agent = try runProduct("batond", ["--config", admin.path, "--local", "--socket", root.appendingPathComponent("s.sock").path], timeout: 30)
        XCTAssertEqual(agent.status, 2)
        XCTAssertTrue(agent.stderr.contains(conf.path) && agent.stderr.contains("not a regular file"), agent.stderr)
    }
}
