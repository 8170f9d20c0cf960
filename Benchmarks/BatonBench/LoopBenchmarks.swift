import Baton
import CGLib
import Foundation

/// Layer 1: one-shot callbacks through the GLib loop, main-actor hops, and the idle cost.
@MainActor
enum LoopBenchmarks {
    static let callbacks = 200_000

    /// `MainLoop.idle` scheduling the next one-shot from inside each callback.
    static func batonIdleChain() -> Double {
        var remaining = callbacks
        func next() {
            remaining -= 1
            if remaining > 0 { MainLoop.idle(next) } else { MainLoop.quit() }
        }
        let start = ContinuousClock.now
        MainLoop.idle(next)
        MainLoop.run()
        return nanosPerOp(ContinuousClock.now - start, callbacks)
    }

    /// The same chain with raw `g_idle_add` and a C callback: the floor.
    static func rawIdleChain() -> Double {
        rawRemaining = callbacks
        let loop = g_main_loop_new(nil, 0)!
        rawLoop = loop
        defer { g_main_loop_unref(loop) }
        let start = ContinuousClock.now
        g_idle_add(rawIdle, nil)
        g_main_loop_run(loop)
        return nanosPerOp(ContinuousClock.now - start, callbacks)
    }

    nonisolated static let hops = 100_000

    /// `Task { @MainActor in }`, each task starting the next, run by the GLib loop.
    static func mainActorTasks() -> Double {
        let start = ContinuousClock.now
        mainActorTaskChain(hops) { MainLoop.quit() }
        MainLoop.run()
        return nanosPerOp(ContinuousClock.now - start, hops)
    }

    /// A task off the main actor hopping onto it and back, `hops` times, the loop running it.
    static func mainActorHops() -> Double {
        let start = ContinuousClock.now
        Task.detached {
            for _ in 0..<hops { await MainActor.run {} }
            await MainActor.run { MainLoop.quit() }
        }
        MainLoop.run()
        return nanosPerOp(ContinuousClock.now - start, hops)
    }

    nonisolated static let resumptions = 20_000

    /// A main-actor task awaiting a continuation that a one-shot idle resumes, `resumptions`
    /// times: with `withLoopContinuation` (the task stays on the loop thread), or with
    /// `withCheckedContinuation` (it resumes through Swift's global pool).
    static func resumedFromTheLoop(preferringTheLoop: Bool) -> Double {
        var done = false
        let start = ContinuousClock.now
        Task { @MainActor in
            for _ in 0..<resumptions {
                if preferringTheLoop {
                    await withLoopContinuation { (resume: CheckedContinuation<Void, Never>) in MainLoop.idle { resume.resume() } }
                } else {
                    await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in MainLoop.idle { resume.resume() } }
                }
            }
            done = true
        }
        MainLoop.run(until: { done }, timeout: .seconds(120))
        return nanosPerOp(ContinuousClock.now - start, resumptions)
    }

    /// `DispatchQueue.main.async` blocks, each queuing the next, run by the GLib loop.
    static func dispatchChain() -> Double {
        let start = ContinuousClock.now
        dispatchChainStep(hops) { DispatchQueue.main.async { MainActor.assumeIsolated { MainLoop.quit() } } }
        MainLoop.run()
        return nanosPerOp(ContinuousClock.now - start, hops)
    }

    /// CPU used by an app idling for `seconds` in `Application`-style `MainLoop.run()`.
    static func idleCPU(seconds: Int) -> Double {
        let before = cpuMilliseconds()
        MainLoop.after(.seconds(seconds)) { MainLoop.quit() }
        MainLoop.run()
        return cpuMilliseconds() - before
    }

    /// The floor: a raw `g_main_loop_run` with one timeout, no Baton.
    static func rawIdleCPU(seconds: Int) -> Double {
        let loop = g_main_loop_new(nil, 0)!
        rawLoop = loop
        defer { g_main_loop_unref(loop) }
        let before = cpuMilliseconds()
        g_timeout_add_seconds(UInt32(seconds), rawQuit, nil)
        g_main_loop_run(loop)
        return cpuMilliseconds() - before
    }
}

/// A chain of `count` main-actor tasks, each starting the next; `done` after the last.
@MainActor
func mainActorTaskChain(_ count: Int, done: @escaping @MainActor () -> Void) {
    Task { @MainActor in
        if count > 1 { mainActorTaskChain(count - 1, done: done) } else { done() }
    }
}

/// A chain of `count` main-queue blocks, each queuing the next; `done` after the last.
func dispatchChainStep(_ count: Int, done: @escaping @Sendable () -> Void) {
    DispatchQueue.main.async {
        if count > 1 { dispatchChainStep(count - 1, done: done) } else { done() }
    }
}

nonisolated(unsafe) var rawRemaining = 0
nonisolated(unsafe) var rawLoop: OpaquePointer?

let rawIdle: GSourceFunc = { _ in
    rawRemaining -= 1
    if rawRemaining > 0 { g_idle_add(rawIdle, nil) } else { g_main_loop_quit(rawLoop) }
    return baton_source_remove()
}

let rawQuit: GSourceFunc = { _ in
    g_main_loop_quit(rawLoop)
    return baton_source_remove()
}
