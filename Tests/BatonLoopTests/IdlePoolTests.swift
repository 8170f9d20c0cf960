import BatonLoop
import BatonTestSupport
import CGLib
import Dispatch
import XCTest

/// `MainLoop.idle`'s one-shots (one shared GLib source per priority) keep `g_idle_add`'s
/// semantics: priority order, cancellation, and nested loops.
final class IdlePoolTests: XCTestCase {
    func testHigherPriorityOneShotsRunFirstAndEachOnceInOrder() {
        MainActor.assumeIsolated {
            var log: [String] = []
            MainLoop.idle { log.append("idle 1") }
            MainLoop.idle(priority: .high) { log.append("high") }
            MainLoop.idle { log.append("idle 2") }
            MainLoop.idle(priority: .low) { log.append("low") }
            spin(until: { log.count == 4 })
            XCTAssertEqual(log, ["high", "idle 1", "idle 2", "low"])
        }
    }

    /// An idle one-shot waits while a source of higher priority stays ready, as GLib's does:
    /// a chain of main-actor tasks (default priority) ends before it.
    func testAnIdleOneShotWaitsForReadyDefaultPriorityWork() {
        MainActor.assumeIsolated {
            let counter = TaskCounter()
            var tasksDoneWhenIdleRan: Int?
            counter.chain(100)
            MainLoop.idle { tasksDoneWhenIdleRan = counter.done }
            spin(until: { tasksDoneWhenIdleRan != nil })
            XCTAssertEqual(tasksDoneWhenIdleRan, 100)
        }
    }

    func testACancelledOneShotNeverRunsAndAFinishedOneSaysSo() {
        MainActor.assumeIsolated {
            var cancelledRan = false
            let cancelled = MainLoop.idle { cancelledRan = true }
            XCTAssertFalse(cancelled.isCancelled)
            cancelled.cancel()
            cancelled.cancel()  // twice is harmless
            XCTAssertTrue(cancelled.isCancelled)
            var ran = false
            let finished = MainLoop.idle { ran = true }
            spin(until: { ran })
            XCTAssertFalse(cancelledRan)
            XCTAssertTrue(finished.isCancelled)
        }
    }

    /// A one-shot that iterates the loop sees the one-shots queued before and after it run,
    /// as separate idle sources would.
    func testAOneShotIteratingTheLoopSeesTheOthersRun() {
        MainActor.assumeIsolated {
            var secondRan = false, thirdRan = false
            var nested: Bool?
            MainLoop.idle {
                MainLoop.idle { thirdRan = true }
                nested = MainLoop.run(until: { secondRan && thirdRan }, timeout: .seconds(20))
            }
            MainLoop.idle { secondRan = true }
            spin(until: { nested != nil })
            XCTAssertEqual(nested, true)
        }
    }
}

/// A chain of main-actor tasks, each starting the next, counting those that ran.
@MainActor
private final class TaskCounter {
    var done = 0
    func chain(_ remaining: Int) {
        Task { @MainActor in
            self.done += 1
            if remaining > 1 { self.chain(remaining - 1) }
        }
    }
}
