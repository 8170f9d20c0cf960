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

    /// `BatonBench --loop`: the loop's rows alone, each beside its baseline (the `dispatchMain()`
    /// ones alternated with it in child processes), after the rows `more` measures once the loop's
    /// are taken (`--quick`'s); then exits.
    static func runAlone(then more: () -> [Figure] = { [] }) -> Never {
        let batonIdle = median { batonIdleChain() }
        let rawIdle = median { rawIdleChain() }
        let tasks = TaskChainBenchmarks.measure()
        let hops = MainActorHopBenchmarks.measure()
        let blocks = DispatchChainBenchmarks.measure()
        let loopResume = median { resumedFromTheLoop(preferringTheLoop: true) }
        let poolResume = median { resumedFromTheLoop(preferringTheLoop: false) }
        say("main actor's executor: \(MainLoop.mainActorExecutor)")
        for figure in more() { say(figure.line()) }
        say(Figure(name: "MainLoop.idle one-shot", value: batonIdle, baselineName: "raw g_idle_add C callback",
                   baseline: rawIdle, unit: "ns/op", aim: "aim ≤ 1.5×").line())
        say(Figure(name: "await resumed by a loop callback", value: loopResume, baselineName: "withCheckedContinuation, same",
                   baseline: poolResume, unit: "ns/op", aim: "GIO calls and the agent connection").line())
        for figure in dispatchMainFigures(tasks: tasks.figure, hops: hops.figure, blocks: blocks.figures) {
            say(figure.line())
        }
        for note in [tasks.note, hops.note, blocks.note] { say(note) }
        exit(0)
    }

    /// The rows measured beside `dispatchMain()`, each alternated with its baseline in a child
    /// process: the `Task { @MainActor }` chain (`TaskChainBenchmarks`), `MainActor.run`
    /// (`MainActorHopBenchmarks`) and the `DispatchQueue.main` chain beside `dispatchMain()` and
    /// beside its floor (`DispatchChainBenchmarks`, which says why the floor is the row with the aim).
    nonisolated static func dispatchMainFigures(tasks: Figure, hops: Figure, blocks: [Figure]) -> [Figure] {
        [tasks, hops] + blocks
    }

    /// `count` `Task { @MainActor in }`, each task starting the next, run by the GLib loop.
    static func mainActorTasks(count: Int = hops) -> Double {
        let start = ContinuousClock.now
        mainActorTaskChain(count) { MainLoop.quit() }
        MainLoop.run()
        return nanosPerOp(ContinuousClock.now - start, count)
    }

    /// A task off the main actor hopping onto it and back, `count` times, the loop running it.
    /// Its thread wake-ups (all threads of the process) per round trip, in `hopWakeups`.
    static func mainActorHops(count: Int = hops) -> Double {
        let before = threadRuns(of: getpid())
        let start = ContinuousClock.now
        Task.detached {
            for _ in 0..<count { await MainActor.run {} }
            await MainActor.run { MainLoop.quit() }
        }
        MainLoop.run()
        let time = nanosPerOp(ContinuousClock.now - start, count)
        hopWakeups = wakeups(of: getpid(), since: before, per: count)
        return time
    }

    /// Thread wake-ups per `MainActor.run` round trip in the last `mainActorHops()`.
    nonisolated(unsafe) static var hopWakeups = Double.nan

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

    /// `count` `DispatchQueue.main.async` blocks, each queuing the next, run by the GLib loop.
    static func dispatchChain(count: Int = hops) -> Double {
        let start = ContinuousClock.now
        dispatchChainStep(count) { DispatchQueue.main.async { MainActor.assumeIsolated { MainLoop.quit() } } }
        MainLoop.run()
        return nanosPerOp(ContinuousClock.now - start, count)
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
