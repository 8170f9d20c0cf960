import BatonTestSupport
import DeviceTestSupport
import Foundation
import XCTest

/// A handoff from installed files (`make install`, the Debian package): a group made by the
/// installed `baton` in `bin`, two devices each with the installed `batond` (on loopback, as
/// tests listen), Shapes (from the build: neither installs the examples) handing a shape from
/// one to the other through them, and the installed `baton status` naming the installed agent.
func handOffThroughInstalledAgents(in bin: URL, file: StaticString = #filePath, line: UInt = #line) throws {
    let home = URL(fileURLWithPath: "/tmp").appendingPathComponent("baton-installed-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    chmod(home.path, 0o700)
    defer { try? FileManager.default.removeItem(at: home) }
    let admin = home.appendingPathComponent("admin").path
    for command in [["group", "create", "Ada"], ["device", "add", "A", "--out", "\(home.path)/A"], ["device", "add", "B", "--out", "\(home.path)/B"]] {
        let step = try runProcess(bin.appendingPathComponent("baton"), command + ["--config", admin], environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
        XCTAssertEqual(step.status, 0, "\(command): \(step.stderr)")
    }
    var running: [RunningProcess] = []
    defer {
        for process in running { process.terminate() }
        for process in running { process.waitForExit(timeout: 10) }
    }
    func start(_ executable: String, _ arguments: [String]) throws -> RunningProcess {
        let process = try RunningProcess(executable: URL(fileURLWithPath: executable), arguments,
                                         environment: ["HOME": home.path, "XDG_CONFIG_HOME": "\(home.path)/none", "PATH": "/usr/bin:/bin"])
        running.append(process)
        return process
    }
    let agentA = try start("\(bin.path)/batond", ["--device", "\(home.path)/A", "--local", "--socket", "\(home.path)/a.sock"])
    let address = try XCTUnwrap(agentA.listeningAddress(), agentA.output).description
    let agentB = try start("\(bin.path)/batond", ["--device", "\(home.path)/B", "--local", "--socket", "\(home.path)/b.sock", "--peer", address])
    XCTAssertTrue(agentB.waitForLink(with: "A"), agentB.output)
    let shapes = productURL("baton-shapes").path
    let creator = try start(shapes, ["--agent", "\(home.path)/a.sock", "--create", "triangle"])
    XCTAssertTrue(agentA.waitForAppJoined(processID: creator.processIdentifier), creator.output + agentA.output)
    let continuer = try start(shapes, ["--agent", "\(home.path)/b.sock", "--continue-nearby"])
    // What Shapes shows its user: the shape restored.
    XCTAssertNotNil(continuer.waitForLine(containing: "restoreUserActivityState: created a triangle"), continuer.output + agentB.output)
    XCTAssertTrue(agentA.waitForContinuedElsewhere(), creator.output + agentA.output)
    let status = try runProcess(bin.appendingPathComponent("baton"), ["status", "--agent", "\(home.path)/b.sock"], environment: ["PATH": "/usr/bin:/bin"], timeout: 30)
    XCTAssertTrue(status.stdout.contains("program: \(bin.appendingPathComponent("batond").resolvingSymlinksInPath().path)"), status.stdout, file: file, line: line)
    XCTAssertTrue(status.stdout.contains("link: A at 127.0.0.1"), status.stdout)
}
