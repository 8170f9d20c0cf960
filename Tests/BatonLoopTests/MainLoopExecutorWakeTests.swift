#if compiler(>=6.3)
@testable import BatonLoop
import BatonTestSupport
import CGLib
import Dispatch
import Foundation
import Synchronization
import XCTest

/// What a main-actor job costs the executor to queue (`MainLoopExecutor`): which wake-up it
/// makes, and when it is also offered to libdispatch's main queue.
final class MainLoopExecutorWakeTests: XCTestCase {
    /// Installs the executor (the first `run(until:)` does) before each test.
    override func setUp() {
        MainActor.assumeIsolated { _ = MainLoop.run(until: { true }, timeout: .seconds(1)) }
    }

    /// A host that iterates GLib's default context itself (`g_main_context_iteration`, as
    /// `g_application_run` does), with no `MainLoop.run`: main-actor jobs queued inside its
    /// iterations run from the executor's source alone, none is offered to the main queue.
    func testAHostIteratingTheDefaultContextRunsJobsWithoutTheMainQueue() {
        MainActor.assumeIsolated {
            let executor = MainLoopExecutor.shared
            let offersBefore = executor.mainQueueOffers.load(ordering: .relaxed)
            var order: [Int] = []
            var onMain = true
            MainLoop.idle {
                mainActorChain(1000) { index in
                    order.append(index)
                    onMain = onMain && MainThreadRules.isInitialThread
                }
            }
            XCTAssertTrue(iterateDefaultContext(until: { order.count == 1000 }))
            XCTAssertEqual(order, Array(0..<1000))
            XCTAssertTrue(onMain)
            XCTAssertEqual(executor.mainQueueOffers.load(ordering: .relaxed), offersBefore,
                           "a job queued inside the host's iteration was offered to the main queue")
        }
    }

    /// While nothing iterates the context, jobs from other threads are offered to the main
    /// queue once for all of them, not once each, and all run, each thread's in its order.
    func testJobsQueuedWhileTheLoopWaitsAreOfferedToTheMainQueueOnce() {
        let executor = MainLoopExecutor.shared
        MainActor.assumeIsolated { XCTAssertTrue(iterateDefaultContext(until: { !executor.offerIsPending })) }
        let offersBefore = executor.mainQueueOffers.load(ordering: .relaxed)
        let threads = 4, perThread = 250
        let record = WakeRecord(threads: threads)
        let queued = DispatchGroup()
        for thread in 0..<threads {
            queued.enter()
            Thread {
                for index in 0..<perThread {
                    Task { @MainActor in record.seen.withLock { $0[thread].append(index) } }
                }
                queued.leave()
            }.start()
        }
        // The main thread iterates nothing until every job is queued.
        XCTAssertEqual(queued.wait(timeout: .now() + 60), .success)
        XCTAssertEqual(executor.mainQueueOffers.load(ordering: .relaxed) - offersBefore, 1)
        MainActor.assumeIsolated {
            XCTAssertTrue(iterateDefaultContext(until: { record.seen.withLock { $0.allSatisfy { $0.count == perThread } } }))
        }
        for order in record.seen.withLock({ $0 }) { XCTAssertEqual(order, Array(0..<perThread)) }
    }

    /// While the loop runs, jobs that other threads queue while the main thread is busy wake
    /// the context once, not once each.
    func testJobsFromOtherThreadsWakeTheLoopOncePerDrain() {
        let executor = MainLoopExecutor.shared
        let jobs = 1000
        let ran = Counter()
        MainActor.assumeIsolated {
            var done = false
            var wakes: Int?
            MainLoop.idle {
                // The main thread, busy in this callback, drains nothing while they are queued.
                let before = executor.crossThreadWakes.load(ordering: .relaxed)
                let queued = DispatchSemaphore(value: 0)
                Thread {
                    for _ in 0..<jobs { Task { @MainActor in ran.value.add(1, ordering: .relaxed) } }
                    queued.signal()
                }.start()
                queued.wait()
                wakes = executor.crossThreadWakes.load(ordering: .relaxed) - before
                done = true
            }
            XCTAssertTrue(MainLoop.run(until: { done && ran.value.load(ordering: .relaxed) == jobs }, timeout: .seconds(60)))
            // One wake-up for the thousand (two if a stray job from an earlier test came first).
            XCTAssertTrue((1...2).contains(wakes ?? 0), "\(String(describing: wakes)) wake-ups for \(jobs) jobs")
        }
    }

    /// `DispatchQueue.main` blocks keep their FIFO order across many drains: chains that each
    /// queue the next, interleaved with blocks queued up front, and main-actor tasks between.
    func testMainQueueBlocksKeepTheirOrderAcrossDrains() {
        MainActor.assumeIsolated {
            let record = ChainRecord()
            @Sendable func chain(_ name: String, _ remaining: Int) {
                DispatchQueue.main.async {
                    MainActor.assumeIsolated {
                        record.seen.append("\(name)\(remaining)")
                        Task { @MainActor in record.tasks += 1 }
                        if remaining > 0 { chain(name, remaining - 1) }
                    }
                }
            }
            chain("a", 299)
            chain("b", 299)
            spin(until: { record.seen.count == 600 && record.tasks == 600 })
            let seen = record.seen
            // Each chain's blocks run in its order, and the two alternate: each block is queued
            // behind the other chain's pending one.
            let expected = (0..<300).reversed().flatMap { ["a\($0)", "b\($0)"] }
            XCTAssertEqual(seen, expected)
        }
    }

    /// A main-actor job queued just before the loop quits is not lost: the next run runs it.
    func testAJobQueuedAsTheLoopQuitsRunsInTheNextRun() {
        MainActor.assumeIsolated {
            var ran = false
            MainLoop.idle {
                Task { @MainActor in ran = true }
                MainLoop.quit()
            }
            MainLoop.after(.seconds(60)) { MainLoop.quit() }
            MainLoop.run()
            XCTAssertTrue(MainLoop.run(until: { ran }, timeout: .seconds(60)))
        }
    }
}

/// Iterates GLib's default context with `g_main_context_iteration`, as a host would, until
/// `condition` holds (at most 60 s); nothing of Baton's runs the loop meanwhile.
@MainActor
private func iterateDefaultContext(until condition: () -> Bool) -> Bool {
    let deadline = LoopContext.default.after(.seconds(60)) {}
    defer { deadline.cancel() }
    let start = ContinuousClock.now
    while !condition() && ContinuousClock.now - start < .seconds(60) { g_main_context_iteration(nil, 1) }
    return condition()
}

/// A chain of `count` main-actor tasks, each starting the next; `body` gets each one's index.
@MainActor
private func mainActorChain(_ count: Int, index: Int = 0, _ body: @escaping @MainActor (Int) -> Void) {
    Task { @MainActor in
        body(index)
        if index + 1 < count { mainActorChain(count, index: index + 1, body) }
    }
}

/// What the threads of a test record.
private final class WakeRecord: Sendable {
    let seen: Mutex<[[Int]]>
    init(threads: Int) { seen = Mutex(Array(repeating: [], count: threads)) }
}
/// A count other threads add to.
private final class Counter: Sendable {
    let value = Atomic<Int>(0)
}

/// What the main-queue chains of a test saw.
@MainActor
private final class ChainRecord {
    var seen: [String] = []
    var tasks = 0
}
#endif
