import BatonLoop
import CGLib
import Dispatch
import XCTest

/// The GLib default context runs the main actor on the main thread (docs/ARCHITECTURE.md, "The loop").
/// XCTest runs these on the process's main thread, so this is the real bridge, not a stand-in.
final class MainLoopTests: XCTestCase {
    func testTaskOnMainActorRunsFromTheGLibLoop() {
        MainActor.assumeIsolated {
            var ranOnMainThread = false
            Task { @MainActor in ranOnMainThread = MainThreadRules.isInitialThread }
            XCTAssertTrue(MainLoop.run(until: { ranOnMainThread }, timeout: .seconds(10)))
        }
    }

    func testAwaitResumesOnTheMainActorThroughTheLoop() {
        MainActor.assumeIsolated {
            var result: Int?
            Task { @MainActor in
                let value = await Task.detached { 6 * 7 }.value
                XCTAssertTrue(MainThreadRules.isInitialThread)
                result = value
            }
            XCTAssertTrue(MainLoop.run(until: { result != nil }, timeout: .seconds(10)))
            XCTAssertEqual(result, 42)
        }
    }

    func testDispatchMainAsyncRunsFromTheGLibLoop() {
        MainActor.assumeIsolated {
            var order: [String] = []
            DispatchQueue.main.async { order.append("first") }
            DispatchQueue.main.async { order.append("second") }
            XCTAssertTrue(MainLoop.run(until: { order.count == 2 }, timeout: .seconds(10)))
            XCTAssertEqual(order, ["first", "second"])
        }
    }

    func testAssumeIsolatedWorksInsideARawGLibCallback() {
        MainActor.assumeIsolated {
            rawCallbackSawMainActor = nil
            g_idle_add({ _ in
                rawCallbackSawMainActor = MainActor.assumeIsolated { MainThreadRules.isInitialThread }
                return baton_source_remove()
            }, nil)
            XCTAssertTrue(MainLoop.run(until: { rawCallbackSawMainActor != nil }, timeout: .seconds(10)))
            XCTAssertEqual(rawCallbackSawMainActor, true)
        }
    }

    func testIdleAfterAndEveryRunAndStop() {
        MainActor.assumeIsolated {
            let boxesBefore = LoopDiagnostics.liveCallbackBoxes
            var events: [String] = []
            MainLoop.idle { events.append("idle") }
            MainLoop.after(.milliseconds(5)) { events.append("after") }
            var ticks = 0
            MainLoop.every(.milliseconds(1)) {
                ticks += 1
                return ticks == 3 ? .stop : .again
            }
            XCTAssertTrue(MainLoop.run(until: { events.count == 2 && ticks == 3 }, timeout: .seconds(10)))
            XCTAssertEqual(events.first, "idle")
            XCTAssertLessThanOrEqual(LoopDiagnostics.liveCallbackBoxes, boxesBefore, "no box of this test is left (an earlier test's may go meanwhile)")
        }
    }

    func testCancelledSourceNeverRunsAndReleasesItsBox() {
        MainActor.assumeIsolated {
            let boxesBefore = LoopDiagnostics.liveCallbackBoxes
            var cancelledRan = false
            let handle = MainLoop.after(.milliseconds(1)) { cancelledRan = true }
            XCTAssertEqual(LoopDiagnostics.liveCallbackBoxes, boxesBefore + 1)
            handle.cancel()
            handle.cancel()  // twice is harmless
            XCTAssertTrue(handle.isCancelled)
            XCTAssertLessThanOrEqual(LoopDiagnostics.liveCallbackBoxes, boxesBefore, "no box of this test is left (an earlier test's may go meanwhile)")
            var later = false
            MainLoop.after(.milliseconds(20)) { later = true }
            XCTAssertTrue(MainLoop.run(until: { later }, timeout: .seconds(10)))
            XCTAssertFalse(cancelledRan)
        }
    }

    func testFileDescriptorSourcesSeeReadableAndWritable() {
        MainActor.assumeIsolated {
            var fds: [Int32] = [0, 0]
            XCTAssertEqual(pipe(&fds), 0)
            defer { close(fds[0]); close(fds[1]) }
            var received: [UInt8] = []
            var writable = false
            MainLoop.whenWritable(fds[1]) { writable = true; return .stop }
            MainLoop.whenReadable(fds[0]) {
                var byte: UInt8 = 0
                _ = read(fds[0], &byte, 1)
                received.append(byte)
                return received.count == 2 ? .stop : .again
            }
            XCTAssertTrue(MainLoop.run(until: { writable }, timeout: .seconds(10)))
            var bytes: [UInt8] = [7, 9]
            XCTAssertEqual(write(fds[1], &bytes, 2), 2)
            XCTAssertTrue(MainLoop.run(until: { received.count == 2 }, timeout: .seconds(10)))
            XCTAssertEqual(received, [7, 9])
        }
    }

    func testRunUntilReturnsFalseWhenTheConditionNeverHolds() {
        MainActor.assumeIsolated {
            XCTAssertFalse(MainLoop.run(until: { false }, timeout: .milliseconds(20)))
        }
    }

    func testNestedRunQuitsInnermostFirst() {
        MainActor.assumeIsolated {
            var log: [String] = []
            MainLoop.idle {
                MainLoop.idle {
                    log.append("inner")
                    MainLoop.quit()
                }
                MainLoop.run()
                log.append("after inner")
                MainLoop.quit()
            }
            MainLoop.run()
            XCTAssertEqual(log, ["inner", "after inner"])
        }
    }
}

nonisolated(unsafe) var rawCallbackSawMainActor: Bool?
