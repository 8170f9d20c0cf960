import BatonLoop
import CGLib
import Foundation
import XCTest

/// `MainLoop.withThreadDefaultContext` while another thread holds GLib's default context for a
/// moment, as glib-networking's TLS thread does: it asks `accept-certificate` through
/// `g_main_context_invoke`, which, on a thread with no context of its own, acquires the default
/// context and runs the function on that thread. A node starting meanwhile on the main thread
/// (its `NetworkWatch`, any `GIOAsync.call`) used to fail its precondition and end the process.
final class ThreadDefaultContextTests: XCTestCase {
    /// What the worker's invoked function and the test share.
    private final class Handshake: @unchecked Sendable {
        let holding = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        var ranOnWorker = false
    }

    func testAnOperationStartsWhileAWorkerHoldsTheDefaultContext() throws {
        try MainActor.assumeIsolated {
            try XCTSkipUnless(MainLoop.context.gContext == g_main_context_default(), "the loop runs on GLib's default context")
            let handshake = Handshake()
            let worker = Thread {
                let shared = Unmanaged.passRetained(handshake).toOpaque()
                // As glib-networking's TLS thread: no thread-default context of its own.
                g_main_context_invoke(nil, { data in
                    let handshake = Unmanaged<Handshake>.fromOpaque(data!).takeUnretainedValue()
                    handshake.ranOnWorker = true  // the default context was free: acquired here
                    handshake.holding.signal()
                    _ = handshake.done.wait(timeout: .now() + 10)
                    return 0  // G_SOURCE_REMOVE
                }, shared)
                Unmanaged<Handshake>.fromOpaque(shared).release()
                handshake.finished.signal()
            }
            worker.start()
            guard handshake.holding.wait(timeout: .now() + 10) == .success else { return XCTFail("the worker never ran its function") }
            XCTAssertTrue(handshake.ranOnWorker, "g_main_context_invoke ran the function on the worker, holding the default context")
            var threadDefault: OpaquePointer?
            MainLoop.withThreadDefaultContext {
                threadDefault = g_main_context_get_thread_default() ?? g_main_context_default()
            }
            handshake.done.signal()
            XCTAssertEqual(handshake.finished.wait(timeout: .now() + 10), .success)
            XCTAssertEqual(threadDefault, MainLoop.context.gContext, "what the body starts attaches to the loop's context")
        }
    }
}
