// make bench: each figure beside a baseline measured in this same process, as a ratio.
// Times are medians of 5 runs; the idle figure is CPU time, not wall time.
//
//     BatonBench [--idle-seconds N]     (default 10)
//     BatonBench --agent-only [--idle-seconds N]   (the agent's figures alone: of their baselines, only the embedded warm continuation)
//     BatonBench --relay   (warm continuations and streams through agents, beside embedded nodes: issue 10's speed aims,
//                           with each process's thread wake-ups per warm continuation; BATON_BENCH_THREADS=1 splits them by thread)
//     BatonBench --relay-runs N   (--relay N times, each in its own process: per figure the median and range of value,
//                                  baseline and ratio over the runs, and in how many runs the ratio met its aim)
//     BatonBench --gtk-only  (the GTK focus figure alone: a child on the bench's own Xvfb; built only with GTK 4)
//     BatonBench --inspection-only (a warm continuation through agents while `baton inspect --watch` runs, beside none: issue 28)
//     BatonBench --exit-only (batond's exit after SIGTERM, linked to a peer, beside a plain process's: issue 31)
//     BatonBench --cold-start-only (a restarted batond to linked and to the other device's activity listed, beside the
//                             same activity seen over a warm link, and a device resumed from suspend to linked again,
//                             on two namespace hosts with Avahi: issue 31; needs root)
//     BatonBench --ice-only  (issue 29: payload fetch over an ICE host path and through coturn on loopback, and a 20 MB
//                             continuation stream through it, each beside the LAN's; two nodes in this process)
//     BatonBench --nat-only  (issue 29: a warm continuation between two batonds in two homes behind NATs, direct
//                             across them and through coturn, each beside two agents on one LAN in the same run,
//                             and both agents started to linked; namespace hosts (NatTopology): needs root)
//     BatonBench --memory-only (batond's private memory with 1, 8 and 32 links beside none: issue 26)
//     BatonBench --streams   (the continuity figures' run, printing only the two continuation stream rows)
//     BatonBench --warm      (issue 26's warm continuation between two embedded nodes alone, in 9 blocks beside the bare
//                             TLS round trip, with each block's ratio and the thread wake-ups per continuation)
//     BatonBench --agent-warm [BLOCKS]  (issue 26: the warm continuation through two agents alone, in BLOCKS pairs of
//                             blocks (default 20) beside embedded nodes, with the bare D-Bus call to batond, the same hop
//                             as bare C processes (a round trip direct and through a relay: the agents' floor) and the wake-ups)
//     BatonBench --warm-loop S (warm continuations for S seconds, for perf/strace attached to either process; no figures)
//     BatonBench --coding    (the payload coding rows alone: encode and decode a 3 KB userInfo, beside binary plists)
//     BatonBench --handshake (issue 30's rows alone: a mutual TLS 1.3 handshake through GIO beside OpenSSL's, and the
//                             cold continuation beside GIO's handshake + one round trip, with its two parts)
//     BatonBench --loop      (the loop's rows alone: one-shot idle, the main actor's and the main queue's chains, beside dispatchMain())
//     BatonBench --dispatch-main-tasks N (the Task { @MainActor } chain's baseline child: a chain of N tasks under
//                                         dispatchMain())
//     BatonBench --dispatch-main-hops N  (the MainActor.run row's baseline child: N round trips under dispatchMain())
//     BatonBench --dispatch-main-chain N (the DispatchQueue.main chain's baseline child: a chain of N blocks under
//                                         dispatchMain())
//     BatonBench --hops-loop N  (N MainActor.run round trips on the GLib loop and nothing else, for perf/strace)
//     BatonBench --chain-loop N (ten DispatchQueue.main chains of N blocks on the GLib loop and nothing else, for perf/strace)
//     BatonBench --quick     (issue 30's rows in under two minutes: payload coding, GIO's handshake beside OpenSSL's,
//                             cold continuation, then --loop's rows)
import Baton
import Foundation

let idleSeconds = CommandLine.arguments.firstIndex(of: "--idle-seconds")
    .flatMap { Int(CommandLine.arguments[$0 + 1]) } ?? 10

if let index = CommandLine.arguments.firstIndex(of: "--peer-mode") {  // the other process of the continuity figures
    MainActor.assumeIsolated { PeerMode.run(device: URL(fileURLWithPath: CommandLine.arguments[index + 1])) }
}

if let index = CommandLine.arguments.firstIndex(of: "--fleet-mode") {  // many devices in one process
    MainActor.assumeIsolated { FleetMode.run(devices: CommandLine.arguments[(index + 1)...].map { URL(fileURLWithPath: $0) }) }
}

// The other processes of the agent figures (AgentBenchmarks).
for (mode, run) in [("--agent-app-mode", AgentAppMode.run), ("--agent-mode", AgentMode.run), ("--node-mode", NodeMode.run),
                    ("--continuer-mode", ContinuerMode.run)] as
    [(String, @MainActor ([String]) -> Never)] {
    if let index = CommandLine.arguments.firstIndex(of: mode) {
        MainActor.assumeIsolated { run(Array(CommandLine.arguments[(index + 1)...])) }
    }
}

if let index = CommandLine.arguments.firstIndex(of: "--dispatch-main-hops") {  // the MainActor.run row's baseline, one block
    MainActor.assumeIsolated { MainActorHopBenchmarks.runChild(Array(CommandLine.arguments[(index + 1)...])) }
}

if let index = CommandLine.arguments.firstIndex(of: "--dispatch-main-tasks") {  // the Task { @MainActor } chain's baseline, one block
    MainActor.assumeIsolated { TaskChainBenchmarks.runChild(Array(CommandLine.arguments[(index + 1)...])) }
}

if let index = CommandLine.arguments.firstIndex(of: "--dispatch-main-chain") {  // the main queue chain's baseline, one block
    MainActor.assumeIsolated { DispatchChainBenchmarks.runChild(Array(CommandLine.arguments[(index + 1)...])) }
}

if let index = CommandLine.arguments.firstIndex(of: "--hops-loop") {  // N MainActor.run round trips alone, for perf/strace
    let count = CommandLine.arguments.dropFirst(index + 1).first.flatMap { Int($0) } ?? LoopBenchmarks.hops
    MainActor.assumeIsolated { say("\(LoopBenchmarks.mainActorHops(count: count)) ns per round trip") }
    exit(0)
}

if let index = CommandLine.arguments.firstIndex(of: "--chain-loop") {  // N-block DispatchQueue.main chains alone, for perf/strace
    let count = CommandLine.arguments.dropFirst(index + 1).first.flatMap { Int($0) } ?? LoopBenchmarks.hops
    MainActor.assumeIsolated { for _ in 0..<10 { say("\(LoopBenchmarks.dispatchChain(count: count)) ns per block") } }
    exit(0)
}

if CommandLine.arguments.contains("--quick") { MainActor.assumeIsolated { QuickBenchmarks.run() } }  // issue 30's rows, < 2 min

if CommandLine.arguments.contains("--loop") {  // the loop's rows alone
    say("Baton loop benchmarks (release build, \(ProcessInfo.processInfo.activeProcessorCount) cores); lower is better")
    MainActor.assumeIsolated { LoopBenchmarks.runAlone() }
}

#if canImport(BatonGtk)
if CommandLine.arguments.contains("--gtk-mode") {  // the GTK figure's child, on the bench's own Xvfb
    MainActor.assumeIsolated { GtkBenchmarks.runMode() }
}
if CommandLine.arguments.contains("--gtk-only") {  // the GTK figure alone
    MainActor.assumeIsolated { if let figure = GtkBenchmarks.figure() { say(figure.line()) } }
    exit(0)
}
#endif

if CommandLine.arguments.contains("--profile-payload") {  // a loop for perf/callgrind, no figures
    MainActor.assumeIsolated { for _ in 0..<20 { _ = ActivityBenchmarks.payloadCoding() } }
    exit(0)
}

if let index = CommandLine.arguments.firstIndex(of: "--tls-server") {  // the GIO side's server of the handshake figure
    MainActor.assumeIsolated { HandshakeBenchmarks.runServer(Array(CommandLine.arguments[(index + 1)...])) }
}

if CommandLine.arguments.contains("--handshake") {  // issue 30's rows alone: handshakes, and the cold continuation
    MainActor.assumeIsolated {
        do { for figure in try HandshakeBenchmarks.figures() { say(figure.line()) } } catch {
            say("handshake benchmarks failed: \(error)")
            exit(1)
        }
    }
    exit(0)
}

if CommandLine.arguments.contains("--warm") {  // issue 26's warm continuation alone, in blocks beside the bare round trip
    MainActor.assumeIsolated {
        do { try WarmBenchmarks.run() } catch { say("warm benchmarks failed: \(error)"); exit(1) }
    }
    exit(0)
}

if let index = CommandLine.arguments.firstIndex(of: "--agent-warm") {  // issue 26: through agents beside embedded nodes, alone
    MainActor.assumeIsolated {
        let blocks = CommandLine.arguments.dropFirst(index + 1).first.flatMap { Int($0) } ?? 20
        do {
            let results = try AgentBenchmarks.run(idleSeconds: 0, warmOnly: true, warmBlocks: max(1, blocks))
            if results.failures > 0 { say("\(results.failures) continuations through the agents failed") }
            for line in AgentBenchmarks.warmLines(results) { say(line) }
        } catch { say("agent warm benchmarks failed: \(error)"); exit(1) }
    }
    exit(0)
}

if let index = CommandLine.arguments.firstIndex(of: "--warm-loop") {  // warm continuations for a profiler, no figures
    MainActor.assumeIsolated {
        let seconds = CommandLine.arguments.dropFirst(index + 1).first.flatMap { Int($0) } ?? 20
        do { try WarmBenchmarks.loop(seconds: seconds) } catch { say("warm loop failed: \(error)"); exit(1) }
    }
    exit(0)
}

if CommandLine.arguments.contains("--coding") {  // the payload coding rows alone
    MainActor.assumeIsolated { for figure in ActivityBenchmarks.codingFigures() { say(figure.line()) } }
    exit(0)
}

if let index = CommandLine.arguments.firstIndex(of: "--relay-runs") {
    RelayRuns.run(CommandLine.arguments.dropFirst(index + 1).first.flatMap { Int($0) }.map { max(1, $0) } ?? 5)
}

if CommandLine.arguments.contains("--streams") {
    MainActor.assumeIsolated {
        do {
            let continuity = try ContinuityBenchmarks.run()
            say(Figure(name: "continuation stream, 100 MB", value: percentile(continuity.streamThroughput, 50),
                       baselineName: "bare GIO TLS stream", baseline: percentile(continuity.bareThroughput, 50), unit: "MB/s",
                       aim: "higher is better").line())
            say(Figure(name: "getContinuationStreams to first byte", value: percentile(continuity.streamFirstByte, 50),
                       baselineName: "bare TLS round trip", baseline: percentile(continuity.firstByteRTT, 50), unit: "ms", aim: "").line())
            let runs = { (values: [Double]) in values.map { String(format: "%.3f", $0) }.joined(separator: ", ") }
            say("each run: stream MB/s \(runs(continuity.streamThroughput)); bare MB/s \(runs(continuity.bareThroughput)); "
                + "first byte ms \(runs(continuity.streamFirstByte)); round trip ms \(runs(continuity.firstByteRTT)); "
                + "continuationStreams() returned after ms \(runs(ContinuityBenchmarks.streamOpened))")
        } catch {
            say("stream benchmarks failed: \(error)")
        }
    }
    exit(0)
}

if CommandLine.arguments.contains("--relay") {
    MainActor.assumeIsolated {
        do {
            let continuity = try ContinuityBenchmarks.run()
            let embeddedOpened = ContinuityBenchmarks.streamOpened
            ContinuityBenchmarks.streamOpened = []
            let agent = try AgentBenchmarks.run(idleSeconds: 0, relayOnly: true)
            if agent.failures > 0 { say("\(agent.failures) continuations through the agents failed") }
            say(Figure(name: "embedded: warm continuation p50", value: percentile(continuity.warm, 50), baselineName: "bare TLS round trip p50",
                       baseline: percentile(continuity.rtt, 50), unit: "µs", aim: "aim ≤ 2×").line())
            say(Figure(name: "embedded: warm continuation p99", value: percentile(continuity.warm, 99), baselineName: "bare TLS round trip p99",
                       baseline: percentile(continuity.rtt, 99), unit: "µs", aim: "").line())
            for figure in AgentBenchmarks.figures(agent, continuity: continuity, idleSeconds: 0).prefix(8) { say(figure.line()) }
            say(MachineBenchmarks.figure().line())
            say(Figure(name: "continuation stream, 100 MB", value: percentile(continuity.streamThroughput, 50),
                       baselineName: "bare GIO TLS stream", baseline: percentile(continuity.bareThroughput, 50), unit: "MB/s",
                       aim: "higher is better").line())
            say(Figure(name: "getContinuationStreams to first byte", value: percentile(continuity.streamFirstByte, 50),
                       baselineName: "bare TLS round trip", baseline: percentile(continuity.firstByteRTT, 50), unit: "ms", aim: "").line())
            say(Figure(name: "agent: continuationStreams() returns", value: percentile(ContinuityBenchmarks.streamOpened, 50),
                       baselineName: "the same through embedded nodes", baseline: percentile(embeddedOpened, 50), unit: "ms",
                       aim: "part of the first byte").line())
            say(AgentBenchmarks.streamCPUNote(agent))
            say(AgentBenchmarks.cpuNote(agent))
            say(wakeupNote("agent", agent.warmWakeups) + "; " + wakeupNote("embedded", continuity.warmWakeups))
        } catch {
            say("relay benchmarks failed: \(error)")
        }
    }
    exit(0)
}

if CommandLine.arguments.contains("--inspection-only") {  // issue 28: a warm continuation while `baton inspect --watch` runs
    MainActor.assumeIsolated {
        do {
            let results = try InspectionBenchmarks.run()
            say(InspectionBenchmarks.figure(results).line())
            say("(\(results.events) events to the watchers over \(results.watched.count) watched continuations)")
        } catch {
            say("inspection benchmarks failed: \(error)")
        }
    }
    exit(0)
}

if CommandLine.arguments.contains("--exit-only") {  // issue 31: batond's exit after SIGTERM, beside a plain process's
    MainActor.assumeIsolated {
        do { for figure in AgentExitBenchmarks.figures(try AgentExitBenchmarks.run()) { say(figure.line()) } } catch {
            say("agent exit benchmarks failed: \(error)")
        }
    }
    exit(0)
}

if CommandLine.arguments.contains("--cold-start-only") {  // issue 31: a restarted agent to linked, beside its start to listening
    MainActor.assumeIsolated { for line in ColdStartBenchmarks.lines() { say(line) } }
    exit(0)
}

if CommandLine.arguments.contains("--ice-only") {  // issue 29: links beyond the LAN, beside the LAN
    MainActor.assumeIsolated { for line in IceBenchmarks.lines() { say(line) } }
    exit(0)
}

if CommandLine.arguments.contains("--nat-only") {  // issue 29: agents across NATs, direct and relayed, beside the LAN
    MainActor.assumeIsolated { for line in NatBenchmarks.lines() { say(line) } }
    exit(0)
}

if CommandLine.arguments.contains("--memory-only") {  // issue 26: batond's private memory with N links, beside none
    MainActor.assumeIsolated { for line in AgentMemoryBenchmarks.lines() { say(line) } }
    exit(0)
}

if CommandLine.arguments.contains("--agent-only") {
    MainActor.assumeIsolated {
        do {
            let agent = try AgentBenchmarks.run(idleSeconds: idleSeconds)
            if agent.failures > 0 { say("\(agent.failures) continuations through the agents failed") }
        for failure in agent.launchFailures { say("a launched app (not measured): \(failure)") }
            for figure in AgentBenchmarks.figures(agent, continuity: ContinuityBenchmarks.Results(), idleSeconds: idleSeconds) {
                say(figure.line())
            }
            say(AgentBenchmarks.streamCPUNote(agent))
        } catch {
            say("agent benchmarks failed: \(error)")
        }
    }
    exit(0)
}

nonisolated(unsafe) var continuityFigures: [Figure] = []
nonisolated(unsafe) var agentFigures: [Figure] = []
nonisolated(unsafe) var agentNotes: [String] = []
nonisolated(unsafe) var coldStartLines: [String] = []
nonisolated(unsafe) var handshakeFigures: [Figure] = []
nonisolated(unsafe) var memoryLines: [String] = []
nonisolated(unsafe) var iceLines: [String] = []
nonisolated(unsafe) var natLines: [String] = []
nonisolated(unsafe) var taskFigure = TaskChainBenchmarks.Result()
nonisolated(unsafe) var hopFigure = MainActorHopBenchmarks.Result()
nonisolated(unsafe) var chainFigure = DispatchChainBenchmarks.Result()

say("Baton benchmarks (release build, \(ProcessInfo.processInfo.activeProcessorCount) cores); lower is better")
let figures: [Figure] = MainActor.assumeIsolated {
    let batonIdle = median { LoopBenchmarks.batonIdleChain() }
    let rawIdle = median { LoopBenchmarks.rawIdleChain() }
    taskFigure = TaskChainBenchmarks.measure()
    hopFigure = MainActorHopBenchmarks.measure()
    chainFigure = DispatchChainBenchmarks.measure()
    say("measuring an idle app for \(idleSeconds) s, then raw GLib for \(idleSeconds) s …")
    let idle = LoopBenchmarks.idleCPU(seconds: idleSeconds)
    let rawIdleCPU = LoopBenchmarks.rawIdleCPU(seconds: idleSeconds)
    // After the idle figures: the baseline wakes Swift's pool, whose threads then linger.
    let loopResume = median { LoopBenchmarks.resumedFromTheLoop(preferringTheLoop: true) }
    let poolResume = median { LoopBenchmarks.resumedFromTheLoop(preferringTheLoop: false) }
    let dispatch = median { ChainBenchmarks.dispatch() }
    let resolution = median { ChainBenchmarks.resolution() }
    let walk = median { ChainBenchmarks.handWalk() }
    let (needsSaveNanos, saves) = ActivityBenchmarks.needsSave()
    let plain = median { ActivityBenchmarks.plainBool() }
    let few = median(runs: 3) { ActivityBenchmarks.windowSwitch(among: 100) }
    say("building 10,000 windows with 50-deep chains …")
    let many = ActivityBenchmarks.windowSwitch(among: 10_000)
    let coding = ActivityBenchmarks.payloadCoding()
    let plist = ActivityBenchmarks.propertyListCoding()
    say("1,000,000 sets of needsSave made \(saves) save\(saves == 1 ? "" : "s")")
    say("continuity: two processes, 1,000 warm handoffs …")
    let continuity = try! ContinuityBenchmarks.run()
    say("agent: two batond, apps joined, \(AgentBenchmarks.handoffs) warm handoffs, \(AgentBenchmarks.launches) launches, idle \(idleSeconds) s …")
    do {
        let agent = try AgentBenchmarks.run(idleSeconds: idleSeconds)
        if agent.failures > 0 { say("\(agent.failures) continuations through the agents failed") }
        for failure in agent.launchFailures { say("a launched app (not measured): \(failure)") }
        agentFigures = AgentBenchmarks.figures(agent, continuity: continuity, idleSeconds: idleSeconds)
        agentNotes.append(AgentBenchmarks.streamCPUNote(agent))
        agentNotes.append(AgentBenchmarks.cpuNote(agent))
    } catch {
        say("agent benchmarks failed: \(error)")
    }
    do { agentFigures += AgentExitBenchmarks.figures(try AgentExitBenchmarks.run()) } catch {
        say("agent exit benchmarks failed: \(error)")
    }
    say("cold start: two namespace hosts, \(2 * ColdStartBenchmarks.runs) restarts of one agent …")
    coldStartLines = ColdStartBenchmarks.lines()
    do { agentFigures.append(InspectionBenchmarks.figure(try InspectionBenchmarks.run())) } catch {
        say("inspection benchmarks failed: \(error)")
    }
    say("memory: batond with \(AgentMemoryBenchmarks.linkCounts.map(String.init).joined(separator: ", ")) links …")
    memoryLines = AgentMemoryBenchmarks.lines()
    say("beyond the LAN: two nodes linked over TCP, an ICE host path and a loopback coturn …")
    iceLines = IceBenchmarks.lines()
    say("beyond the LAN: two agents in homes behind NATs, direct and through coturn, beside two on one LAN …")
    natLines = NatBenchmarks.lines()
    do { handshakeFigures = [try HandshakeBenchmarks.handshakeFigure(count: HandshakeBenchmarks.handshakes)] } catch {
        say("handshake benchmarks failed: \(error)")
    }
    continuityFigures = [
        Figure(name: "warm continuation p50", value: percentile(continuity.warm, 50), baselineName: "bare TLS round trip p50",
               baseline: percentile(continuity.rtt, 50), unit: "µs", aim: "aim ≤ 3×"),
        Figure(name: "warm continuation p99", value: percentile(continuity.warm, 99), baselineName: "bare TLS round trip p99",
               baseline: percentile(continuity.rtt, 99), unit: "µs", aim: ""),
        Figure(name: "warm continuation p50", value: percentile(continuity.warm, 50), baselineName: "bare D-Bus call over TLS p50",
               baseline: percentile(continuity.dbusRTT, 50), unit: "µs", aim: "GDBus's own floor"),
    ] + handshakeFigures + ContinuityBenchmarks.coldFigures(continuity) + [
        Figure(name: "advertisement propagation p50", value: percentile(continuity.propagation, 50),
               baselineName: "bare TLS round trip p50", baseline: percentile(continuity.propagationRTT, 50), unit: "µs", aim: ""),
        Figure(name: "memory per mutual-TLS link", value: continuity.bytesPerLink / 1024, baselineName: "(no baseline)",
               baseline: .nan, unit: "KiB", aim: ""),
        Figure(name: "continuation stream, 100 MB", value: percentile(continuity.streamThroughput, 50),
               baselineName: "bare GIO TLS stream", baseline: percentile(continuity.bareThroughput, 50), unit: "MB/s",
               aim: "aim ≥ 80% (higher is better)"),
        Figure(name: "getContinuationStreams to first byte", value: percentile(continuity.streamFirstByte, 50),
               baselineName: "bare TLS round trip", baseline: percentile(continuity.firstByteRTT, 50), unit: "ms", aim: ""),
        Figure(name: "heap per advertised activity, on a peer", value: continuity.bytesPerAdvertised,
               baselineName: "its metadata on the wire", baseline: continuity.advertisedWireBytes, unit: "B", aim: ""),
    ]
    return [
        Figure(name: "MainLoop.idle one-shot", value: batonIdle, baselineName: "raw g_idle_add C callback",
               baseline: rawIdle, unit: "ns/op", aim: "aim ≤ 1.5×"),
        Figure(name: "await resumed by a loop callback", value: loopResume, baselineName: "withCheckedContinuation, same",
               baseline: poolResume, unit: "ns/op", aim: "GIO calls and the agent connection"),
        Figure(name: "idle app CPU over \(idleSeconds) s", value: idle, baselineName: "raw g_main_loop_run, one timeout",
               baseline: max(rawIdleCPU, 0.001), unit: "ms", aim: "aim < 5 ms"),
        Figure(name: "sendAction, 100-deep chain", value: dispatch, baselineName: "hand-written walk + cast",
               baseline: walk, unit: "ns/op", aim: ""),
        Figure(name: "target(forAction:), 100-deep chain", value: resolution, baselineName: "hand-written walk + cast",
               baseline: walk, unit: "ns/op", aim: ""),
        Figure(name: "needsSave = true", value: needsSaveNanos, baselineName: "storing a plain Bool",
               baseline: plain, unit: "ns/op", aim: ""),
        Figure(name: "main window change, 10,000 windows", value: many, baselineName: "same among 100 windows",
               baseline: few, unit: "ns/op", aim: "aim ≈ 1× (independent of count)"),
        Figure(name: "encode 3 KB userInfo (GVariant)", value: coding.encode / 1000, baselineName: "binary plist (Foundation)",
               baseline: plist.encode / 1000, unit: "µs", aim: "aim < 20 µs"),
        Figure(name: "decode 3 KB userInfo (GVariant)", value: coding.decode / 1000, baselineName: "binary plist (Foundation)",
               baseline: plist.decode / 1000, unit: "µs", aim: "aim < 20 µs"),
        Figure(name: "payload bytes", value: Double(coding.bytes), baselineName: "binary plist bytes",
               baseline: Double(plist.bytes), unit: "B", aim: ""),
    ]
}
for figure in figures { say(figure.line()) }
#if canImport(BatonGtk)
MainActor.assumeIsolated { if let figure = GtkBenchmarks.figure() { say(figure.line()) } }
#endif
for figure in continuityFigures { say(figure.line()) }
for figure in agentFigures { say(figure.line()) }
for note in agentNotes { say(note) }
for line in coldStartLines { say(line) }
for line in memoryLines { say(line) }
for line in iceLines { say(line) }
for line in natLines { say(line) }
if !agentFigures.isEmpty {
    say(MachineBenchmarks.figure().line())
    say("(the launch figure's agent is BatonBench --agent-mode: the same Agent, AgentServer and DesktopAppLauncher as batond,"
        + " launching the bench app from the desktop entry the bench installed, and ending it after)")
}

// The rows alternated with their dispatchMain() baselines (in child processes) come last.
for figure in LoopBenchmarks.dispatchMainFigures(tasks: taskFigure.figure, hops: hopFigure.figure, blocks: chainFigure.figures) {
    say(figure.line())
}
for note in [taskFigure.note, hopFigure.note, chainFigure.note] { say(note) }
