import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest

/// Hosting Baton without `Application.main()`: a service's own context, or a loop thread.
final class HostingTests: XCTestCase {
    func testAHostsOwnContextRunsTheMainActorAfterEmbed() {
        MainActor.assumeIsolated {
            let hostContext = LoopContext()
            MainLoop.embed(in: hostContext)
            defer { MainLoop.embed(in: .default) }
            nonisolated(unsafe) let hostLoop = g_main_loop_new(hostContext.gContext, 0)!
            defer { g_main_loop_unref(hostLoop) }
            var ran = false
            Task { @MainActor in
                ran = true
                g_main_loop_quit(hostLoop)
            }
            // The host's own loop, as a service would run it; a timer bounds the test.
            let guardTimer = hostContext.after(.seconds(10)) { g_main_loop_quit(hostLoop) }
            g_main_loop_run(hostLoop)
            guardTimer.cancel()
            XCTAssertTrue(ran)
            XCTAssertTrue(MainLoop.context === hostContext)
        }
    }

    func testLoopThreadRunsSendableWorkOnItsOwnThread() {
        MainActor.assumeIsolated {
            let boxesBefore = LoopDiagnostics.liveCallbackBoxes
            let thread = LoopThread(name: "baton-test")
            let done = DispatchSemaphore(value: 0)
            let sawOtherThread = LockedFlag()
            thread.context.idle {
                sawOtherThread.set(!MainThreadRules.isInitialThread)
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
            thread.stop()
            thread.stop()
            XCTAssertTrue(sawOtherThread.value)
            XCTAssertEqual(LoopDiagnostics.liveCallbackBoxes, boxesBefore)
        }
    }
}
