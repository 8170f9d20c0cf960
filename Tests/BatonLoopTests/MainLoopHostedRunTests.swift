#if compiler(>=6.3)
@testable import BatonLoop
import CGLib
import Dispatch
import Foundation
import Synchronization
import XCTest

/// A host that runs the loop's context itself inside `MainLoop.runHosted(_:)` (as BatonGtk's
/// `GtkApplicationMain` runs `g_application_run`): the loop counts as iterated, and main-actor
/// jobs queued from other threads wake the context directly, as under `MainLoop.run()`, never
/// going through libdispatch's main queue.
final class MainLoopHostedRunTests: XCTestCase {
    /// Installs the executor (the first `run(until:)` does) before each test.
    override func setUp() {
        MainActor.assumeIsolated { _ = MainLoop.run(until: { true }, timeout: .seconds(1)) }
    }

    func testJobsFromAnotherThreadWakeAHostedRunDirectly() {
        let executor = MainLoopExecutor.shared
        let jobs = 200
        let ran = MainActorJobCount()
        MainActor.assumeIsolated {
            XCTAssertTrue(MainLoop.run(until: { !executor.offerIsPending }, timeout: .seconds(30)))
            XCTAssertFalse(MainLoop.isIterated)
            let offersBefore = executor.mainQueueOffers.load(ordering: .relaxed)
            let wakesBefore = executor.crossThreadWakes.load(ordering: .relaxed)
            var iteratedInside = false
            let loop = g_main_loop_new(MainLoop.context.gContext, 0)!
            defer { g_main_loop_unref(loop) }
            let host = HostLoop(loop)
            // The deadline: a hosted run that never sees its jobs ends anyway, and the test fails.
            let deadline = MainLoop.after(.seconds(60)) { g_main_loop_quit(host.loop) }
            defer { deadline.cancel() }
            MainLoop.idle {
                iteratedInside = MainLoop.isIterated
                // Queued one at a time from another thread, each after the last has run: each
                // finds the queue empty and the main thread waiting in the host's poll.
                sendMainActorJobsOneAtATime(jobs, counting: ran) {
                    Task { @MainActor in g_main_loop_quit(host.loop) }
                }
            }
            MainLoop.runHosted { g_main_loop_run(loop) }
            XCTAssertTrue(iteratedInside, "the hosted run counts as iterating the loop")
            XCTAssertFalse(MainLoop.isIterated)
            XCTAssertEqual(ran.value.load(ordering: .relaxed), jobs)
            XCTAssertEqual(executor.mainQueueOffers.load(ordering: .relaxed), offersBefore,
                           "a job from another thread was offered to the main queue while the host ran the loop")
            XCTAssertGreaterThanOrEqual(executor.crossThreadWakes.load(ordering: .relaxed) - wakesBefore, jobs)
        }
    }
}

/// How many jobs ran, counted from the main thread, read after.
/// The host's `GMainLoop *`, handed to the thread that ends it.
private struct HostLoop: @unchecked Sendable {
    let loop: OpaquePointer
    init(_ loop: OpaquePointer) { self.loop = loop }
}
#endif
