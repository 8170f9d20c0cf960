#if compiler(>=6.3)
@_spi(ExperimentalCustomExecutors) import _Concurrency
@testable import BatonLoop
import BatonTestSupport
import CGLib
import Dispatch
import Foundation
import Synchronization
import XCTest

/// The main actor's executor on the GLib loop (`MainLoopExecutor`): main-actor jobs are one
/// dispatch of a GLib source on `MainLoop.context`, on the main thread.
final class MainLoopExecutorTests: XCTestCase {
    /// Installs the executor (the first `run(until:)` does) before each test.
    override func setUp() {
        MainActor.assumeIsolated { _ = MainLoop.run(until: { true }, timeout: .seconds(1)) }
    }

    func testTheMainActorsExecutorIsTheGLibOne() {
        XCTAssertEqual(MainLoop.mainActorExecutor, .glibSource)
        XCTAssertTrue(type(of: MainActor.executor) == MainLoopExecutor.self, "\(type(of: MainActor.executor))")
        XCTAssertEqual(MainLoopExecutor.shared.attachedContext, MainLoop.context.gContext)
    }

    /// A main-actor task queued on the loop thread runs in the next non-blocking iteration of
    /// the context: its job is in the context itself, nothing needs to wake it.
    func testATaskOnTheMainActorRunsInOneIterationOnTheMainThread() {
        MainActor.assumeIsolated {
            var ranOnMainThread: Bool?
            Task { @MainActor in ranOnMainThread = MainThreadRules.isInitialThread }
            XCTAssertTrue(MainLoop.context.iterate(mayBlock: false))
            XCTAssertEqual(ranOnMainThread, true)
        }
    }

    func testAwaitsResumeOnTheMainActorThroughTheLoop() {
        MainActor.assumeIsolated {
            var results: [Int] = []
            var everyOnMain = true
            Task { @MainActor in
                for round in 0..<200 {
                    let value = await Task.detached { round * 2 }.value
                    everyOnMain = everyOnMain && MainThreadRules.isInitialThread
                    results.append(value)
                }
            }
            spin(until: { results.count == 200 })
            XCTAssertEqual(results, (0..<200).map { $0 * 2 })
            XCTAssertTrue(everyOnMain)
        }
    }

    /// Tasks started on other threads wake the loop, run on the main thread, and keep each
    /// thread's order.
    func testTasksEnqueuedFromOtherThreadsWakeTheLoopAndKeepTheirOrder() {
        let threads = 4, perThread = 500
        let record = OrderRecord(threads: threads)
        for thread in 0..<threads {
            Thread {
                for index in 0..<perThread {
                    Task { @MainActor in
                        if !MainThreadRules.isInitialThread { record.offMain.add(1, ordering: .relaxed) }
                        record.seen.withLock { $0[thread].append(index) }
                    }
                }
            }.start()
        }
        MainActor.assumeIsolated {
            spin(until: { record.seen.withLock { $0.allSatisfy { $0.count == perThread } } })
        }
        XCTAssertEqual(record.offMain.load(ordering: .relaxed), 0)
        for order in record.seen.withLock({ $0 }) { XCTAssertEqual(order, Array(0..<perThread)) }
    }

    /// A main-actor job that iterates the loop itself sees other sources run, but not another
    /// main-actor job (the main actor is busy with it); that one runs once the job returns.
    func testANestedRunUntilInsideAJobRunsOtherSourcesButNoOtherJob() {
        MainActor.assumeIsolated {
            var idleRan = false
            var otherJobRan = false
            var otherRanDuringTheJob: Bool?
            var nestedReturned: Bool?
            Task { @MainActor in
                Task { @MainActor in otherJobRan = true }
                MainLoop.idle { idleRan = true }
                nestedReturned = MainLoop.run(until: { idleRan }, timeout: .seconds(20))
                otherRanDuringTheJob = otherJobRan
            }
            spin(until: { nestedReturned != nil && otherJobRan })
            XCTAssertEqual(nestedReturned, true)
            XCTAssertEqual(otherRanDuringTheJob, false, "a main-actor job ran inside another")
        }
    }

    /// A `DispatchQueue.main` block that iterates the loop does not see a main-actor job run
    /// inside it, nor the other way round: both are the main actor's, and one GLib source
    /// runs both, which GLib does not re-enter.
    func testMainQueueBlocksAndMainActorJobsNeverRunInsideEachOther() {
        MainActor.assumeIsolated {
            var taskRan = false, blockRan = false
            var taskRanInsideTheBlock: Bool?, blockRanInsideTheTask: Bool?
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    Task { @MainActor in taskRan = true }
                    _ = MainLoop.run(until: { taskRan }, timeout: .milliseconds(100))
                    taskRanInsideTheBlock = taskRan
                }
            }
            spin(until: { taskRanInsideTheBlock != nil && taskRan })
            XCTAssertEqual(taskRanInsideTheBlock, false)
            Task { @MainActor in
                DispatchQueue.main.async { MainActor.assumeIsolated { blockRan = true } }
                _ = MainLoop.run(until: { blockRan }, timeout: .milliseconds(100))
                blockRanInsideTheTask = blockRan
            }
            spin(until: { blockRanInsideTheTask != nil && blockRan })
            XCTAssertEqual(blockRanInsideTheTask, false)
        }
    }

    /// While nothing of Baton's iterates the loop, a main-actor job also runs from the main
    /// queue: XCTest's `wait(for:)` (and its async set-up) spin Foundation's run loop, which
    /// drains only the main queue.
    func testMainActorJobsRunWhileFoundationsRunLoopWaits() {
        let ran = expectation(description: "a main-actor job from another thread")
        Task.detached { await MainActor.run { ran.fulfill() } }
        wait(for: [ran], timeout: 20)
    }

    /// `Task.sleep` on the main actor still ends, back on the main thread, and a cancelled
    /// sleep ends at once with `CancellationError`.
    func testTaskSleepOnTheMainActorEndsOnTheMainThreadOrWhenCancelled() {
        MainActor.assumeIsolated {
            var slept: Bool?
            Task { @MainActor in
                try? await Task.sleep(for: .milliseconds(5))
                slept = MainThreadRules.isInitialThread
            }
            spin(until: { slept != nil })
            XCTAssertEqual(slept, true)

            var outcome: (any Error)??
            let sleeper = Task { @MainActor in
                do {
                    try await Task.sleep(for: .seconds(600))
                    outcome = .some(nil)
                } catch {
                    outcome = .some(error)
                }
            }
            _ = MainLoop.run(until: { false }, timeout: .milliseconds(20))
            sleeper.cancel()
            spin(until: { outcome != nil })
            XCTAssertTrue(outcome!! is CancellationError, "\(String(describing: outcome))")
        }
    }

    /// After `embed(in:)` the executor's source is on the host's context: main-actor jobs run
    /// when the host iterates it, and GLib's default context no longer runs them.
    func testEmbedMovesTheExecutorsSourceToTheHostsContext() {
        MainActor.assumeIsolated {
            let host = HostLoop()
            MainLoop.embed(in: host.context)
            defer { MainLoop.embed(in: .default) }
            XCTAssertEqual(MainLoopExecutor.shared.attachedContext, host.context.gContext)
            var ran = false
            Task { @MainActor in ran = true }
            while LoopContext.default.iterate(mayBlock: false) {}
            XCTAssertFalse(ran, "the default context ran a main-actor job after embed(in:)")
            XCTAssertTrue(host.iterate(until: { ran }, limit: .seconds(20)))
        }
        MainActor.assumeIsolated {
            XCTAssertEqual(MainLoopExecutor.shared.attachedContext, LoopContext.default.gContext)
            var ranAgain = false
            Task { @MainActor in ranAgain = true }
            spin(until: { ranAgain })
        }
    }

    /// The main actor's isolation is the main thread's: `assumeIsolated` holds in a raw GLib
    /// callback (no job running), and the executor says no on another thread.
    func testIsolationIsTheMainThreads() {
        XCTAssertEqual(MainLoopExecutor.shared.isIsolatingCurrentContext(), true)
        MainActor.preconditionIsolated()
        let offMain = OptionalFlags()
        let answered = DispatchSemaphore(value: 0)
        Thread {
            offMain.offMain.withLock { $0 = MainLoopExecutor.shared.isIsolatingCurrentContext() }
            answered.signal()
        }.start()
        XCTAssertEqual(answered.wait(timeout: .now() + 20), .success)
        MainActor.assumeIsolated {
            MainLoop.context.idle {
                let isolated = MainActor.assumeIsolated { MainThreadRules.isInitialThread }
                offMain.rawCallback.withLock { $0 = isolated }
            }
            spin(until: { offMain.rawCallback.withLock { $0 != nil } })
        }
        XCTAssertEqual(offMain.rawCallback.withLock { $0 }, true)
        XCTAssertEqual(offMain.offMain.withLock { $0 }, false)
    }

    /// `DispatchQueue.main.async` still runs, through the bridge, in its order, beside
    /// main-actor tasks.
    func testDispatchMainAsyncStillRunsBesideMainActorTasks() {
        MainActor.assumeIsolated {
            var blocks: [Int] = []
            var tasks: [Int] = []
            for index in 0..<100 {
                DispatchQueue.main.async { MainActor.assumeIsolated { blocks.append(index) } }
                Task { @MainActor in tasks.append(index) }
            }
            spin(until: { blocks.count == 100 && tasks.count == 100 })
            XCTAssertEqual(blocks, Array(0..<100))
            XCTAssertEqual(tasks, Array(0..<100))
        }
    }
}

/// What the threads of a test record.
private final class OrderRecord: Sendable {
    let seen: Mutex<[[Int]]>
    let offMain = Atomic<Int>(0)
    init(threads: Int) { seen = Mutex(Array(repeating: [], count: threads)) }
}

/// What a raw GLib callback and another thread saw of the main actor's isolation.
private final class OptionalFlags: Sendable {
    let offMain = Mutex<Bool?>(nil)
    let rawCallback = Mutex<Bool?>(nil)
}
#endif
