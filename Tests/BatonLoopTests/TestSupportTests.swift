import BatonTestSupport
import Foundation
import XCTest

/// The test helpers that start children: output never deadlocks, every wait is bounded, and
/// no child outlives its test.
final class TestSupportTests: XCTestCase {
    /// A process naming the test's folder on its command line (as an agent a test's app
    /// autostarted, in a session of its own, does) is ended by
    /// `DetachedProcesses.end(naming:)`; one naming another folder is left alone.
    func testDetachedProcessesNamingTheFolderAreEnded() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("detached-\(UUID().uuidString.prefix(8))")
        let other = FileManager.default.temporaryDirectory.appendingPathComponent("other-\(UUID().uuidString.prefix(8))")
        // The child says it runs (its command line then names the folder) before the scan:
        // `Process.run()` may return before the child has exec'd, when /proc still shows this
        // test's own command line.
        func started(_ name: URL) throws -> Process {
            try FileManager.default.createDirectory(at: name, withIntermediateDirectories: true)
            let file = name.appendingPathComponent("log")
            _ = FileManager.default.createFile(atPath: file.path, contents: nil)
            let process = Process()
            let said = Pipe()
            process.executableURL = shell
            process.arguments = ["-c", "echo running; exec /usr/bin/tail -f \"$0\"", file.path]
            process.standardOutput = said
            try process.run()
            _ = said.fileHandleForReading.availableData  // blocks until the child has written
            return process
        }
        let named = try started(folder), unnamed = try started(other)
        defer {
            for process in [named, unnamed] where process.isRunning && !isGone(process.processIdentifier) {
                process.terminate()
            }
            unnamed.waitUntilExit()
            for name in [folder, other] { try? FileManager.default.removeItem(at: name) }
        }
        DetachedProcesses.end(naming: folder)
        guard isGone(named.processIdentifier) else { return XCTFail("the process naming the folder still runs") }
        named.waitUntilExit()
        XCTAssertEqual(named.terminationReason, .uncaughtSignal)
        XCTAssertEqual(named.terminationStatus, SIGKILL)
        XCTAssertFalse(isGone(unnamed.processIdentifier), "the process naming another folder runs on")
    }

    private let shell = URL(fileURLWithPath: "/bin/sh")

    /// Whether process `pid` is gone (or a zombie about to be reaped).
    private func isGone(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return true }
        return stat[stat.index(close, offsetBy: 2)] == "Z"
    }

    /// A child writing 1 MiB to stderr (far over a pipe's 64 KiB) before anything to stdout:
    /// read one after the other, it would block for ever.
    func testAChildWritingMuchToStderrBeforeStdoutCompletes() throws {
        let run = try runProcess(shell, ["-c", "head -c 1048576 /dev/zero | tr '\\0' x >&2; echo done"], timeout: 60)
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.stdout, "done\n")
        XCTAssertEqual(run.stderr.utf8.count, 1_048_576)
    }

    func testRunProcessEndsAChildThatIgnoresSIGTERMAfterItsTimeout() throws {
        let started = Date()
        let run = try runProcess(shell, ["-c", "trap '' TERM; echo waiting; exec sleep 600"], timeout: 1)
        XCTAssertEqual(run.status, SIGKILL)
        XCTAssertEqual(run.stdout, "waiting\n")
        XCTAssertLessThan(Date().timeIntervalSince(started), 120, "bounded by the timeout and the grace, not the child")
    }

    func testWaitForExitEndsAChildThatIgnoresSIGTERMWithinItsBound() throws {
        let child = try RunningProcess(executable: shell, ["-c", "trap '' TERM; echo waiting; exec sleep 600"])
        XCTAssertNotNil(child.waitForLine(containing: "waiting"), child.output)
        let started = Date()
        XCTAssertEqual(child.waitForExit(timeout: 1), SIGKILL)
        XCTAssertFalse(child.isRunning)
        XCTAssertLessThan(Date().timeIntervalSince(started), 120, "bounded by the timeout and the grace, not the child")
    }

    /// A child that exits but leaves a process holding its output: the wait still ends, and
    /// so does what it left (it is in the child's process group).
    func testWaitForExitEndsWhatTheChildLeftHoldingItsOutput() throws {
        let child = try RunningProcess(executable: shell, ["-c", "sleep 600 & echo left $!"])
        let line = try XCTUnwrap(child.waitForLine(containing: "left"), child.output)
        let left = try XCTUnwrap(Int32(line.split(separator: " ").last ?? ""))
        XCTAssertEqual(child.waitForExit(timeout: 30), 0)
        let deadline = Date(timeIntervalSinceNow: 10)
        while !isGone(left) && Date() < deadline { usleep(10_000) }  // the kernel delivering SIGKILL: a deadline, not an event
        XCTAssertTrue(isGone(left), "the process the child left is still running")
    }

    /// A child started from a thread that then ends keeps running: children are started from
    /// one long-lived thread, so their parent-death signal (SIGKILL) fires only when the test
    /// runner itself dies.
    func testAChildOutlivesTheThreadThatStartedIt() throws {
        let started = NSCondition()
        nonisolated(unsafe) var child: RunningProcess?
        nonisolated(unsafe) var failure: Error?
        let thread = Thread {
            do { child = try RunningProcess(executable: URL(fileURLWithPath: "/bin/cat"), []) } catch { failure = error }
            started.lock(); started.signal(); started.unlock()
        }
        started.lock()
        thread.start()
        while child == nil && failure == nil { started.wait() }
        started.unlock()
        if let failure { throw failure }
        let cat = try XCTUnwrap(child)
        while !thread.isFinished { usleep(1000) }  // the thread's own end has no event to wait on
        cat.send("still here")
        XCTAssertNotNil(cat.waitForLine(containing: "still here", timeout: 10), "the child died with the thread that started it")
        cat.terminate()
        XCTAssertEqual(cat.waitForExit(), SIGTERM)
    }

    /// What a test leaves running is ended when the test case finishes; `endAll` is that step.
    func testEveryChildStillRunningIsEndedWithItsTest() throws {
        let stubborn = try RunningProcess(executable: shell, ["-c", "trap '' TERM; echo waiting; exec sleep 600"])
        XCTAssertNotNil(stubborn.waitForLine(containing: "waiting"), stubborn.output)
        XCTAssertTrue(TestChildren.shared.stillRunning.contains { $0.pid == stubborn.processIdentifier })
        TestChildren.shared.endAll(grace: 1)
        XCTAssertFalse(stubborn.isRunning)
        XCTAssertTrue(TestChildren.shared.stillRunning.isEmpty)
    }
}
