#if compiler(>=6.3)
@testable import BatonLoop
import BatonTestSupport
import CGLib
import Dispatch
import Foundation
import Synchronization
import XCTest

/// How many iterations of the loop the executor's source costs: a dispatch does not wake the
/// context again (the source stays in the poll set, as a source that may recurse), and a loop
/// iterated inside a dispatch neither runs the main queue inside it nor spins on its eventfd.
final class MainLoopExecutorIterationTests: XCTestCase {
    /// Installs the executor (the first `run(until:)` does) before each test.
    override func setUp() {
        MainActor.assumeIsolated { _ = MainLoop.run(until: { true }, timeout: .seconds(1)) }
    }

    /// Jobs queued one at a time from another thread, each after the last ran, take one
    /// iteration each: the other thread's wake-up, the dispatch, then a poll that waits. A
    /// source GLib takes out of the poll around its dispatch wakes the context twice in it, so
    /// each job took two iterations, the second finding nothing to do.
    func testAJobFromAnotherThreadTakesOneIteration() {
        MainActor.assumeIsolated {
            let jobs = 300
            let ran = MainActorJobCount()
            let probe = LoopIterationCounter(on: MainLoop.context)
            defer { probe.remove() }
            sendMainActorJobsOneAtATime(jobs, counting: ran)
            XCTAssertTrue(MainLoop.run(until: { ran.value.load(ordering: .relaxed) == jobs }, timeout: .seconds(60)))
            let iterations = probe.iterations
            XCTAssertLessThan(Double(iterations), 1.5 * Double(jobs), "\(iterations) iterations for \(jobs) jobs")
        }
    }

    /// A main-actor job that iterates the loop while a `DispatchQueue.main` block waits: the
    /// block runs after the job, and the nested loop waits in its poll meanwhile rather than
    /// finding the main queue's eventfd readable at every iteration.
    func testALoopInsideAJobNeitherRunsNorSpinsOnTheMainQueue() {
        MainActor.assumeIsolated {
            var blockRan = false
            var blockRanInside: Bool?
            var nestedIterations = 0
            Task { @MainActor in
                DispatchQueue.main.async { MainActor.assumeIsolated { blockRan = true } }
                let probe = LoopIterationCounter(on: MainLoop.context)
                _ = MainLoop.run(until: { blockRan }, timeout: .milliseconds(300))
                nestedIterations = probe.iterations
                probe.remove()
                blockRanInside = blockRan
            }
            spin(until: { blockRanInside != nil && blockRan })
            XCTAssertEqual(blockRanInside, false, "a main-queue block ran inside a main-actor job")
            XCTAssertLessThan(nestedIterations, 20, "the loop inside the job spun on the main queue's eventfd")
        }
    }
}
#endif
