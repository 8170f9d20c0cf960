import Foundation
import XCTest

/// The children tests have started and that still run. When a test case finishes — passed,
/// failed or thrown — each is ended with its process group (SIGTERM, then SIGKILL), so no
/// process outlives the test that started it; the same once more when the bundle finishes.
public final class TestChildren: NSObject, XCTestObservation, @unchecked Sendable {
    public static let shared = TestChildren()

    private let lock = NSLock()
    private var running: [pid_t: ChildProcess] = [:]
    /// The process groups of children started since the last test case finished, ended or not:
    /// what a child left behind in its group is ended too.
    private var groups: Set<pid_t> = []
    private var observing = false

    func started(_ child: ChildProcess) {
        lock.lock()
        running[child.pid] = child
        groups.insert(child.pid)
        let observe = !observing
        observing = true
        lock.unlock()
        if observe { XCTestObservationCenter.shared.addTestObserver(self) }
    }

    func ended(_ child: ChildProcess) {
        lock.lock()
        if running[child.pid] === child { running[child.pid] = nil }
        lock.unlock()
    }

    /// The children started by tests that still run.
    public var stillRunning: [ChildProcess] {
        lock.lock(); defer { lock.unlock() }
        return Array(running.values)
    }

    /// Ends every child still running: SIGTERM to each group, SIGKILL to those left after
    /// `grace`. Returns once each has been reaped (bounded).
    public func endAll(grace: TimeInterval = 3) {
        let children = stillRunning
        for child in children { child.signalGroup(SIGTERM) }
        let deadline = Date(timeIntervalSinceNow: grace)
        for child in children { child.wait(until: deadline) }
        for child in children { child.end(grace: 0) }
        lock.lock()
        let started = groups
        groups = []
        lock.unlock()
        // A group outlives its leader while something it started runs. Only processes of this
        // runner's session are signalled: a group id can be reused once its group is empty.
        for group in started where ChildProcess.groupHasMembersInThisSession(group) { kill(-group, SIGKILL) }
    }

    public func testCaseDidFinish(_ testCase: XCTestCase) { endAll() }
    public func testBundleDidFinish(_ testBundle: Bundle) { endAll() }
}
