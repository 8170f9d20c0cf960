import BatonLoop
import BatonTestSupport
import XCTest
@testable import BatonAgent

/// The protocol by which an app starts the agent (`AgentAutostart`), against stand-in agent
/// programs: shell scripts that do what a batond would (become ready, find another agent
/// running, fail, hang). The real batond is started this way in the agent's own tests.
final class AgentAutostartTests: XCTestCase {
    private let base = FileManager.default.temporaryDirectory.appendingPathComponent("baton-autostart-\(UUID().uuidString)")
    private var directory: AgentRuntimeDirectory { AgentRuntimeDirectory(url: base.appendingPathComponent("baton")) }

    override func setUpWithError() throws {
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        // A stand-in that stayed (it detached into its own session) is ended here.
        if let pid = try? String(contentsOf: base.appendingPathComponent("pid"), encoding: .utf8), let value = Int32(pid.trimmingCharacters(in: .whitespacesAndNewlines)) {
            kill(value, SIGKILL)
        }
        try? FileManager.default.removeItem(at: base)
    }

    /// A stand-in agent: `body` runs in sh with the ready descriptor as fd 3.
    private func standIn(_ body: String) throws -> String {
        let script = base.appendingPathComponent("agent.sh")
        try "#!/bin/sh\necho $$ > '\(base.path)/pid'\necho \"args: $*\" >&2\n\(body)\n".write(to: script, atomically: true, encoding: .utf8)
        chmod(script.path, 0o755)
        return script.path
    }

    private func start(_ program: String, timeout: Duration = .seconds(10)) -> AgentHostError?? {
        let directory = directory
        return MainActor.assumeIsolated { Self.startOnLoop(program, in: directory, timeout: timeout) }
    }

    @MainActor
    private static func startOnLoop(_ program: String, in directory: AgentRuntimeDirectory, timeout: Duration) -> AgentHostError?? {
        var outcome: AgentHostError??
        Task { @MainActor in
            do {
                try await AgentAutostart.start(in: directory, program: program, timeout: timeout)
                outcome = .some(nil)
            } catch let error as AgentHostError {
                outcome = .some(error)
            } catch {
                XCTFail("\(error)")
            }
        }
        spin(until: { outcome != nil })
        return outcome ?? nil
    }

    func testItReturnsOnceTheAgentSaysItListensAndTheAgentRunsInASessionOfItsOwn() throws {
        let program = try standIn("printf . >&3; exec 3>&-; exec sleep 60")
        XCTAssertEqual(start(program), .some(nil))
        let pid = try XCTUnwrap(Int32(String(contentsOf: base.appendingPathComponent("pid"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)))
        XCTAssertEqual(getsid(pid), pid, "the agent leads a session of its own")
        XCTAssertNotEqual(getpgid(pid), getpgid(0))
        let log = try String(contentsOf: base.appendingPathComponent("baton/agent.socket.log"), encoding: .utf8)
        XCTAssertTrue(log.contains("args: --ready-fd 3"), log)
    }

    func testAnotherAgentAlreadyRunningCountsAsStarted() throws {
        XCTAssertEqual(start(try standIn("exit \(AgentAutostart.alreadyRunningStatus)")), .some(nil))
    }

    func testAnAgentThatFailsIsReportedWithItsLog() throws {
        let program = try standIn("echo 'no identity' >&2; exit 1")
        guard case .cannotStart(let name, let reason)?? = start(program) else { return XCTFail("expected cannotStart") }
        XCTAssertEqual(name, program)
        XCTAssertTrue(reason.contains("status 1") && reason.contains("agent.socket.log"), reason)
        XCTAssertTrue(try String(contentsOf: base.appendingPathComponent("baton/agent.socket.log"), encoding: .utf8).contains("no identity"))
    }

    func testAnAgentThatNeverBecomesReadyFailsAtTheBound() throws {
        let program = try standIn("exec sleep 60")
        XCTAssertEqual(start(program, timeout: .milliseconds(500)), .some(.notReady(program: program, within: .milliseconds(500))))
    }

    func testAMissingProgramIsNamed() {
        guard case .cannotStart(let name, _)?? = start(base.appendingPathComponent("no-such-batond").path) else {
            return XCTFail("expected cannotStart")
        }
        XCTAssertTrue(name.hasSuffix("no-such-batond"))
    }
}
