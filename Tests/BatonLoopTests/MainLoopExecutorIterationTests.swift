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
            let probe = IterationProbe(on: MainLoop.context)
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
                let probe = IterationProbe(on: MainLoop.context)
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

/// A GLib source that is never ready and counts the iterations of its context (its `prepare`
/// is called once in each), from attaching to `iterations`.
@MainActor
private final class IterationProbe {
    private let source: UnsafeMutablePointer<GSource>
    private let start: Int

    init(on context: LoopContext) {
        start = probeIterations.load(ordering: .relaxed)
        source = g_source_new(&probeSourceFuncs, guint(MemoryLayout<GSource>.size))!
        g_source_set_priority(source, G_PRIORITY_HIGH)  // prepared first, whatever else is ready
        g_source_attach(source, context.gContext)
    }

    var iterations: Int { probeIterations.load(ordering: .relaxed) - start }

    func remove() {
        g_source_destroy(source)
        g_source_unref(source)
    }
}

private let probeIterations = Atomic<Int>(0)

nonisolated(unsafe) private var probeSourceFuncs = GSourceFuncs(
    prepare: { _, timeout in
        probeIterations.add(1, ordering: .relaxed)
        timeout?.pointee = -1
        return 0
    },
    check: { _ in 0 },
    dispatch: { _, _, _ in baton_source_remove() },
    finalize: nil, closure_callback: nil, closure_marshal: nil)
#endif
