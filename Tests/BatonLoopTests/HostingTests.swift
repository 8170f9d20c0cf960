import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import Synchronization
import XCTest

/// Hosting Baton without `Application.main()`: a service's own context, or a loop thread.
final class HostingTests: XCTestCase {
    func testAHostsOwnContextRunsTheMainActorAfterEmbed() {
        MainActor.assumeIsolated {
            let host = HostLoop()
            MainLoop.embed(in: host.context)
            defer { MainLoop.embed(in: .default) }
            var ran = false
            Task { @MainActor in
                ran = true
                host.quit()
            }
            // The host's own loop, as a service would run it, bounded in time.
            XCTAssertTrue(host.run(limit: .seconds(10)))
            XCTAssertTrue(ran)
            XCTAssertTrue(MainLoop.context === host.context)
        }
    }

    /// A GIO call started by code that is not on the main actor — a nonisolated async
    /// function in a detached task, as library code is — while a host runs its own context:
    /// it completes through the host's loop. GLib's global default context, which nothing
    /// iterates here, is never needed: a canary source on it never runs.
    func testAGIOCallStartedOffTheMainActorCompletesThroughTheHostsContext() throws {
        let path = try temporaryFile(containing: "hosted")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try MainActor.assumeIsolated {
            let host = HostLoop()
            MainLoop.embed(in: host.context)
            defer { MainLoop.embed(in: .default) }
            let canary = DefaultContextCanary()
            defer { canary.remove() }
            let outcome = LockedResult<Data>()
            Task.detached {
                outcome.set(await Result { try await loadOffTheMainActor(path) })
                host.quit()
            }
            XCTAssertTrue(host.run(limit: .seconds(20)), "the GIO call never called back")
            XCTAssertEqual(try outcome.value?.get(), Data("hosted".utf8))
            XCTAssertFalse(canary.iterated, "GLib's global default context was iterated")
        }
    }

    /// A GIO call started on the main actor while a host runs its own context and has made yet
    /// another context the main thread's thread-default one (for work of its own): GIO calls
    /// back on the main thread, from a source of the context Baton was embedded in.
    func testAGIOCallCallsBackOnTheMainThreadFromTheHostsContext() throws {
        let path = try temporaryFile(containing: "seen")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try MainActor.assumeIsolated {
            let host = HostLoop()
            MainLoop.embed(in: host.context)
            defer { MainLoop.embed(in: .default) }
            let hostsOwn = LoopContext()
            g_main_context_push_thread_default(hostsOwn.gContext)
            defer { g_main_context_pop_thread_default(hostsOwn.gContext) }
            let canary = DefaultContextCanary()
            defer { canary.remove() }
            let sighting = CallbackSighting()
            let outcome = LockedResult<Data>()
            Task { @MainActor in
                do {
                    outcome.set(.success(try await loadRecordingTheCallback(path, in: sighting)))
                } catch {
                    outcome.set(.failure(error))
                }
                host.quit()
            }
            XCTAssertTrue(host.run(limit: .seconds(20)), "the GIO call never called back")
            XCTAssertEqual(try outcome.value?.get(), Data("seen".utf8))
            XCTAssertEqual(sighting.onMainThread, true)
            XCTAssertEqual(sighting.dispatchingContext, Int(bitPattern: host.context.gContext),
                           "not dispatched by a source of the host's context")
            XCTAssertFalse(canary.iterated, "GLib's global default context was iterated")
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
            XCTAssertLessThanOrEqual(LoopDiagnostics.liveCallbackBoxes, boxesBefore, "no box of this test is left (an earlier test's may go meanwhile)")
        }
    }
}

/// Not on the main actor: a plain async function called from a detached task, as library code is.
func loadOffTheMainActor(_ path: String) async throws -> Data {
    try await GIOCalls.contents(ofFile: path)
}

/// Loads `path` with `GIOAsync.call`, noting in `sighting` where GIO calls back.
@MainActor
func loadRecordingTheCallback(_ path: String, in sighting: CallbackSighting) async throws -> Data {
    let file = g_file_new_for_path(path)!
    defer { g_object_unref(UnsafeMutableRawPointer(file)) }
    return try await GIOAsync.call { cancellable, callback, userData in
        g_file_load_contents_async(file, cancellable, callback, userData)
    } finish: { result, error in
        sighting.record()
        var bytes: UnsafeMutablePointer<CChar>?
        var length: gsize = 0
        guard g_file_load_contents_finish(file, result, &bytes, &length, nil, error) != 0, let bytes else { return nil }
        defer { g_free(bytes) }
        return Data(bytes: bytes, count: Int(length))
    }
}

/// Where a GLib callback ran: on which thread, dispatched by which context's source.
final class CallbackSighting: Sendable {
    private let seen = Mutex<(onMainThread: Bool, context: Int)?>(nil)

    func record() {
        let context = g_main_current_source().map { Int(bitPattern: g_source_get_context($0)) } ?? 0
        let onMainThread = MainThreadRules.isInitialThread
        seen.withLock { $0 = (onMainThread, context) }
    }

    var onMainThread: Bool? { seen.withLock { $0?.onMainThread } }
    /// The `GMainContext *` (as an integer) whose source was dispatching; 0 if none was.
    var dispatchingContext: Int? { seen.withLock { $0?.context } }
}

/// A result handed from one task to another.
final class LockedResult<T: Sendable>: Sendable {
    private let stored = Mutex<Result<T, Error>?>(nil)
    func set(_ result: Result<T, Error>) { stored.withLock { $0 = result } }
    var value: Result<T, Error>? { stored.withLock { $0 } }
}

extension Result where Failure == Error {
    /// The outcome of `body`, thrown errors included.
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// A new temporary file holding `text`; returns its path.
func temporaryFile(containing text: String) throws -> String {
    let path = NSTemporaryDirectory() + "baton-hosting-\(UUID().uuidString)"
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
}
