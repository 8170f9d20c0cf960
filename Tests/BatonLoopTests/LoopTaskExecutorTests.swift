import BatonLoop
import BatonTestSupport
import Foundation
import Synchronization
import XCTest

/// Tasks awaiting a continuation that a loop callback resumes (`withLoopContinuation`,
/// `LoopTaskExecutor`): they continue on the main thread, on the main actor, with what they were
/// resumed with, within the loop's next iteration (no other thread is waited for); cancellation
/// reaches `onCancel`; a task resumed while a main-queue job runs waits for that job, as any
/// main-actor work does; nothing of the waits is left.
final class LoopTaskExecutorTests: XCTestCase {
    /// Resumed from a GLib callback, the task has run to its next suspension after one more
    /// iteration of the loop that does not block: it was queued on the main queue by the
    /// resumption itself, not handed to a thread of Swift's pool first.
    func testAResumedTaskRunsInTheLoopsNextIterationWithoutAnotherThread() {
        MainActor.assumeIsolated {
            for _ in 0..<20 {
                let waiter = Waiter()
                var iterations: Int?
                MainLoop.idle {
                    waiter.resume()
                    var count = 0
                    while !waiter.resumed && count < 3 {
                        MainLoop.context.iterate(mayBlock: false)
                        count += 1
                    }
                    iterations = waiter.resumed ? count : nil
                }
                spin(until: { waiter.resumed })
                XCTAssertEqual(iterations, 1, "the resumed task did not run in the loop's next iteration")
            }
        }
    }

    func testAnAwaitResumedByTheLoopContinuesOnTheMainActorWithItsValue() {
        MainActor.assumeIsolated {
            let boxesBefore = LoopDiagnostics.liveCallbackBoxes
            var values: [Int] = []
            var onMainThread = true
            var thrown: (any Error)?
            var finished = false
            Task { @MainActor in
                for index in 0..<100 {
                    values.append(await withLoopContinuation { resume in MainLoop.idle { resume.resume(returning: index) } })
                    onMainThread = onMainThread && Thread.isMainThread
                }
                do {
                    _ = try await withThrowingLoopContinuation { (resume: CheckedContinuation<Int, any Error>) in
                        MainLoop.idle { resume.resume(throwing: CocoaError(.fileNoSuchFile)) }
                    }
                } catch {
                    thrown = error
                }
                onMainThread = onMainThread && Thread.isMainThread
                finished = true
            }
            spin(until: { finished })
            XCTAssertEqual(values, Array(0..<100))
            XCTAssertTrue(onMainThread, "a resumed task ran off the main thread")
            XCTAssertEqual((thrown as? CocoaError)?.code, .fileNoSuchFile)
            XCTAssertLessThanOrEqual(LoopDiagnostics.liveCallbackBoxes, boxesBefore, "an idle source of these waits is left")
        }
    }

    /// Cancelling the waiting task runs `onCancel`, which ends the wait as GIO's cancellation does.
    func testCancellingTheWaitingTaskRunsOnCancel() {
        MainActor.assumeIsolated {
            let waiting = Slot<CheckedContinuation<Int, any Error>>()
            var outcome: Result<Int, any Error>?
            let task = Task { @MainActor in
                do {
                    outcome = .success(try await withThrowingLoopContinuation(onCancel: {
                        waiting.value.withLock { $0.take() }?.resume(throwing: CancellationError())
                    }) { resume in waiting.value.withLock { $0 = resume } })
                } catch {
                    outcome = .failure(error)
                }
            }
            spin(until: { waiting.value.withLock { $0 != nil } })
            task.cancel()
            spin(until: { outcome != nil })
            guard case .failure(let error)? = outcome else { return XCTFail("the wait was not ended: \(String(describing: outcome))") }
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
    }

    /// A task resumed while a main-queue job runs a nested iteration of the loop does not run
    /// inside that job (the main actor is busy with it); it runs once the job has returned.
    func testATaskResumedDuringAMainQueueJobWaitsForThatJob() {
        MainActor.assumeIsolated {
            let waiter = Waiter()
            var resumedDuringTheJob: Bool?
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    waiter.resume()
                    // Iterates the loop inside this job; the main queue is not drained here.
                    _ = MainLoop.run(until: { waiter.resumed }, timeout: .milliseconds(200))
                    resumedDuringTheJob = waiter.resumed
                }
            }
            spin(until: { resumedDuringTheJob != nil && waiter.resumed })
            XCTAssertEqual(resumedDuringTheJob, false, "the task ran on the main actor inside another main-actor job")
        }
    }
}

extension LoopTaskExecutorTests {
    /// A task awaiting another's value with `loopValue()` goes on within the loop's next few
    /// iterations (at most 4, none blocking) once the other ends, on the main thread: it is not
    /// resumed on a thread of Swift's pool first, as `await task.value` resumes it (with
    /// `.value` this test fails: the iterations find nothing to run).
    func testATaskAwaitingAnothersLoopValueGoesOnInTheLoopsNextIterations() {
        MainActor.assumeIsolated {
            for round in 0..<20 {
                var release: CheckedContinuation<Void, Never>?
                let awaited = Task { @MainActor in
                    await withLoopContinuation { release = $0 }
                    return round
                }
                var waiting = false, got: Int?, onMainThread = false
                Task { @MainActor in
                    waiting = true
                    got = await awaited.loopValue()
                    onMainThread = Thread.isMainThread
                }
                spin(until: { waiting && release != nil })
                while MainLoop.context.iterate(mayBlock: false) {}  // both wait; nothing else is pending
                var iterations: Int?
                MainLoop.idle {
                    release?.resume()
                    var count = 0
                    while got == nil && count < 4 {
                        MainLoop.context.iterate(mayBlock: false)
                        count += 1
                    }
                    iterations = got == nil ? 0 : count
                }
                spin(until: { iterations != nil && got != nil })
                XCTAssertEqual(got, round)
                XCTAssertTrue(onMainThread)
                XCTAssertNotEqual(iterations, 0, "round \(round): the waiting task did not go on within 4 iterations of the loop")
            }
        }
    }

    /// `loopSleep` ends once its time has passed, not before; cancelling the task ends it at
    /// once; nothing of either wait is left.
    func testLoopSleepEndsAfterItsTimeOrWhenCancelled() {
        MainActor.assumeIsolated {
            let boxesBefore = LoopDiagnostics.liveCallbackBoxes
            var slept: Duration?
            Task { @MainActor in
                let start = ContinuousClock.now
                await loopSleep(for: .milliseconds(30))
                slept = ContinuousClock.now - start
            }
            spin(until: { slept != nil })
            XCTAssertGreaterThanOrEqual(slept ?? .zero, .milliseconds(30), "the sleep ended before its time")

            var ended = false
            let long = Task { @MainActor in
                await loopSleep(for: .seconds(3600))
                ended = true
            }
            MainLoop.idle { long.cancel() }
            spin(until: { ended })  // fails the test if the hour-long sleep is still waiting after 20 s
            // Cancelled before it starts: it does not wait at all.
            var endedAtOnce = false
            Task { @MainActor in
                withUnsafeCurrentTask { $0?.cancel() }
                await loopSleep(for: .seconds(3600))
                endedAtOnce = true
            }
            spin(until: { endedAtOnce })
            spin(until: { true })  // one more turn: the cancellations' main-queue jobs have run
            XCTAssertLessThanOrEqual(LoopDiagnostics.liveCallbackBoxes, boxesBefore, "a sleep's timer is left")
        }
    }
}

/// A main-actor task waiting in `withLoopContinuation` (it is waiting once `init` returns),
/// and whether it has run on since `resume()`.
@MainActor
final class Waiter {
    private var continuation: CheckedContinuation<Void, Never>?
    private(set) var resumed = false

    init() {
        Task { @MainActor in
            await withLoopContinuation { self.continuation = $0 }
            self.resumed = true
        }
        spin(until: { continuation != nil })
    }

    func resume() { continuation?.resume() }
}

/// A value shared between threads (a noncopyable `Mutex` cannot be captured by an escaping closure).
final class Slot<Value: Sendable>: Sendable {
    let value = Mutex<Value?>(nil)
}
