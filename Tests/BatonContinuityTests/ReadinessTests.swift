import BatonContinuity
import BatonLoop
import BatonTestSupport
import Foundation
import XCTest

/// `Readiness.readable`, the wait the agent's admission, the app↔agent authentication and the
/// links' listener use before reading a peer: the waiting task goes on as soon as the loop has
/// seen the socket readable, on the loop's own thread, with nothing of the wait left.
final class ReadinessTests: XCTestCase {
    /// The loop dispatches the socket's readiness in one iteration and runs the resumed task in
    /// the next: the resumption queues the task on the main queue itself. (Resumed through
    /// Swift's global executor, as a plain `withCheckedContinuation` is, a thread of the pool
    /// would have to wake first, and the loop's non-blocking iterations would find nothing.)
    func testTheWaitingTaskGoesOnInTheLoopsNextIterationOnTheMainThread() {
        MainActor.assumeIsolated {
            var pair: [Int32] = [0, 0]
            XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
            defer { pair.forEach { close($0) } }
            spin(until: { true })  // the loop's own sources (the main-queue bridge) exist before the count
            let boxesBefore = LoopDiagnostics.liveCallbackBoxes
            for round in 0..<20 {
                var started = false, woke = false, onMainThread = false
                Task { @MainActor in
                    started = true
                    await Readiness.readable(pair[0])
                    onMainThread = Thread.isMainThread
                    woke = true
                }
                spin(until: { started })
                while MainLoop.context.iterate(mayBlock: false) {}  // the wait is set up; nothing else is pending
                XCTAssertFalse(woke, "round \(round): the wait ended before the socket was readable")

                var byte: UInt8 = 1
                XCTAssertEqual(write(pair[1], &byte, 1), 1)
                var iterations = 0
                while !woke && iterations < 4 {
                    MainLoop.context.iterate(mayBlock: false)
                    iterations += 1
                }
                XCTAssertTrue(woke, "round \(round): the task did not go on within 4 iterations of the loop")
                XCTAssertLessThanOrEqual(iterations, 2, "round \(round): the task waited for more than the loop")
                XCTAssertTrue(onMainThread)
                XCTAssertEqual(read(pair[0], &byte, 1), 1)
            }
            // At most as many as before: an earlier test's sources may have gone meanwhile.
            XCTAssertLessThanOrEqual(LoopDiagnostics.liveCallbackBoxes, boxesBefore, "a wait's source is left")
        }
    }
}
