import BatonAgent
import BatonContinuity
import CBenchFloor
import CGLib
import Foundation

/// The agent's figures (issue 10), from real processes on loopback: two `batond` (devices A and
/// B), bench-mode apps joined to them (`AgentAppMode`), a continuing app joined to B
/// (`ContinuerMode`) and this process joined to B for the streams and the payload alone; an
/// agent that launches an installed app (`AgentMode`, device L) for the launch figure; an app
/// with an embedded node (`NodeMode`, device D) as the idle baseline; and, as the warm
/// continuation's baseline, an embedded pair: a peer (`PeerMode`, device E) and a continuing
/// app (`ContinuerMode`, device F).
/// Every process started here is ended before `run` returns, also when it throws.
@MainActor
enum AgentBenchmarks {
    static let handoffs = 1_000
    /// Warm continuations are timed in blocks of this many, alternating between the agents and
    /// the embedded pair.
    static let warmBlock = 50
    static let launches = 20
    static let appsForMemory = 16
    static let editing = "com.example.bench.editing"
    /// One type per launch round, and spare ones for rounds that fail (counted, not measured).
    static let launchTypes = (0..<(launches + 5)).map { "com.example.bench.launch\($0)" }

    struct Results {
        /// Warm continuation through two agents, µs.
        var warm: [Double] = []
        /// Warm continuation between two apps with embedded nodes, µs, timed in blocks that
        /// alternate with `warm`'s.
        var embeddedWarm: [Double] = []
        /// The payload alone (`fetchPayload` on the app's connection to the agent), µs.
        var fetch: [Double] = []
        /// Continuation streams through both agents' relays: MB/s for 100 MB from A's app to
        /// this process, first byte to last; ms from `continuationStreams()` to the first byte.
        var streamThroughput: [Double] = [], streamFirstByte: [Double] = []
        /// CPU each process used over those transfers, ms, and their wall time, ms.
        var streamCPU: [(String, Double)] = [], streamWall = 0.0
        /// A bare D-Bus call (`Peer.Ping`) to `batond` over its Unix socket, µs: one app↔agent hop.
        var localPing: [Double] = []
        /// The same hop with none of Baton in it (`baton_bench_relay_time`): a round trip of
        /// bare C processes over loopback TCP, and the same through a relaying process, µs.
        var bareDirect: [Double] = [], bareRelayed: [Double] = []
        /// `ContinueNearby` on an agent whose app is not running, to that app's
        /// `restoreUserActivityState`, ms; the same app's start from its desktop entry to
        /// `didFinishLaunching`, ms; and the same spawned directly, without GIO, ms.
        var launchContinuation: [Double] = [], launchToFinish: [Double] = [], spawnToFinish: [Double] = []
        /// CPU over the idle window, ms: the agent (schedstat, /proc/PID/stat) and the node baseline.
        var idleCPU = 0.0, idleStatCPU = 0.0, nodeIdleCPU = 0.0, nodeIdleStatCPU = 0.0
        /// CPU over the same window, ms, of the app on A that was continued and streamed from.
        var joinedAppIdleCPU = 0.0
        /// Resident bytes: the agent with 2 apps and 2 peers; an agent with nothing joined.
        var agentResident = 0.0, emptyAgentResident = 0.0, agentPrivate = 0.0, emptyAgentPrivate = 0.0
        /// Resident bytes per joined app (`appsForMemory` apps joined to the empty agent).
        var bytesPerApp = 0.0
        var failures = 0
        /// Thread wake-ups per warm continuation, by process.
        var warmWakeups: [(String, Double)] = []
        /// CPU per warm continuation (the `Continued` that ends it included), µs, by process: the
        /// agents' path, then the embedded pair's.
        var warmCPU: [(String, Double)] = [], embeddedWarmCPU: [(String, Double)] = []
        /// Launched apps that were handed their continuation and failed it (`didFailToContinue`).
        var launchFailures: [String] = []
    }

    /// Runs the agent's figures; with `relayOnly`, only the warm continuations, the streams and
    /// the local ping (part 1), for `BatonBench --relay`; with `warmOnly`, only the warm
    /// continuations and the local ping, for `BatonBench --agent-warm`, in `warmBlocks` pairs of
    /// blocks (`BATON_BENCH_PIDS=1` prints the four processes of the agent path and the two of
    /// the embedded pair first and waits for a line on standard input, for a profiler to attach).
    static func run(idleSeconds: Int, relayOnly: Bool = false, warmOnly: Bool = false, warmBlocks: Int = handoffs / warmBlock) throws -> Results {
        let root = URL(fileURLWithPath: "/tmp").appendingPathComponent("baton-bench-\(UUID().uuidString.prefix(8))")
        let runtime = root.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer {  // BATON_BENCH_KEEP=1 keeps the processes' logs
            if ProcessInfo.processInfo.environment["BATON_BENCH_KEEP"] == "1" { say("logs kept in \(root.path)") } else {
                try? FileManager.default.removeItem(at: root)
            }
        }
        let authority = try GroupAuthority.create(name: "bench", in: ConfigDirectory(url: root.appendingPathComponent("admin")))
        for name in ["A", "B", "L", "D", "E", "F"] { try authority.issueDevice(named: "Agent\(name)").write(to: root.appendingPathComponent(name)) }
        func folder(_ name: String) -> String { root.appendingPathComponent(name).path }
        func socket(_ name: String) -> String { runtime.appendingPathComponent("\(name).sock").path }

        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let batond = executable.deletingLastPathComponent().appendingPathComponent("batond")
        guard FileManager.default.isExecutableFile(atPath: batond.path) else {
            throw BenchFailure("batond is not built beside BatonBench (swift build -c release --product batond)")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["BATON_PEERS"] = nil
        environment["BATON_AGENT_SOCKET"] = nil
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        environment["XDG_DATA_HOME"] = root.appendingPathComponent("data").path
        environment["XDG_STATE_HOME"] = root.appendingPathComponent("state").path  // launched apps' logs (AgentMode)

        var children: [BenchChild] = []
        defer { for child in children.reversed() { child.stop() } }
        func start(_ name: String, _ program: URL, _ arguments: [String]) throws -> BenchChild {
            let child = try BenchChild(name, executable: program, arguments, environment: environment, logDirectory: root)
            children.append(child)
            return child
        }
        func startAgent(_ name: String, peers: [String] = []) throws -> (BenchChild, String) {
            let agent = try start("batond-\(name)", batond, ["--device", folder(name), "--listen", "127.0.0.1:0", "--socket", socket(name)]
                                  + peers.flatMap { ["--peer", $0] })
            let line = try agent.waitForLine("batond:")
            guard let range = line.range(of: "listening on ") else { throw BenchFailure("batond-\(name) said: \(line)") }
            return (agent, String(line[range.upperBound...].prefix { $0 != "," }))
        }
        func startApp(_ name: String, socket: String, appID: String, types: [String], _ options: [String] = []) throws -> BenchChild {
            try start(name, executable, ["--agent-app-mode", socket, appID, types.joined(separator: ",")] + options)
        }
        func nearby(_ type: String) -> NearbyActivity? { Application.shared.nearbyActivities.first { $0.activityType == type } }
        var results = Results()

        // 1. Warm continuation: an app on A joined to A's batond advertises; app B, joined to B's
        // batond, continues it; "continue" to restoreUserActivityState, the links up. Beside
        // it, the same between two apps with embedded nodes (E advertises, F continues), in
        // blocks that alternate with the agents' so that both paths meet the same state of the
        // shared machine; both continuing apps are `ContinuerMode` processes. Then this process,
        // joined to B too, continues it once and opens continuation streams over it, and
        // fetches the payload alone.
        let (agentA, addressA) = try startAgent("A")
        let (agentB, addressB) = try startAgent("B", peers: [addressA])
        let appA = try startApp("app-A", socket: socket("A"), appID: PeerMode.manifest.appID, types: [editing] + launchTypes, ["--advertise"])
        try appA.waitForLine("joined")
        Application.shared.manifest = PeerMode.manifest
        let continuer = ContinuityBenchmarks.Continuer()
        Application.shared.delegate = continuer
        var joined = false
        let connection = AgentConnection.join(socketPath: socket("B"))
        connection.onJoined = { joined = true }
        defer { connection.leave() }
        MainLoop.run(until: { joined && nearby(editing) != nil }, timeout: .seconds(30))
        guard let entry = nearby(editing) else { throw BenchFailure("B never saw A's activity\(agentB.logTail())") }
        let embeddedPeer = try start("embedded-E", executable, ["--peer-mode", folder("E")])
        let peerPort = try embeddedPeer.waitForLine("ready ").split(separator: " ")[1]
        let embedded = try start("embedded-F", executable, ["--continuer-mode", "node", folder("F"), "127.0.0.1:\(peerPort)"])
        let throughAgent = try start("app-B", executable, ["--continuer-mode", "agent", socket("B")])
        try embedded.waitForLine("ready")
        try throughAgent.waitForLine("ready")
        func block(_ continuer: BenchChild) throws -> [Double] {
            let from = continuer.lines.count
            continuer.send("warm \(warmBlock)")
            let times = try continuer.waitForLine("warm ", from: from).dropFirst("warm ".count).split(separator: ",").compactMap { Double($0) }
            guard times.count == warmBlock else { throw BenchFailure("\(continuer.name) timed \(times.count) of \(warmBlock) continuations") }
            return times
        }
        // The wake-ups are counted over the whole alternation: while the embedded pair runs,
        // the agents and the apps joined to them do nothing. Each block's untimed continuation
        // wakes them too, so the count is shared among all the continuations made.
        let warmProcesses = [("batond B", agentB.pid), ("batond A", agentA.pid), ("app A", appA.pid), ("app B", throughAgent.pid)]
        let profiled = ProcessInfo.processInfo.environment["BATON_BENCH_PIDS"] == "1"
        if profiled {
            let embeddedProcesses = [("embedded E", embeddedPeer.pid), ("embedded F", embedded.pid)]
            say("pids " + (warmProcesses + embeddedProcesses).map { "\($0.0.replacingOccurrences(of: " ", with: "-"))=\($0.1)" }.joined(separator: " "))
            _ = readLine()  // a profiler attaches, then says go
        }
        let wakeupsBefore = warmProcesses.map { threadRuns(of: $0.1) }
        let warmChildren = [("batond B", agentB), ("batond A", agentA), ("app A", appA), ("app B", throughAgent)]
        let embeddedChildren = [("E", embeddedPeer), ("F", embedded)]
        let warmCPUBefore = (warmChildren + embeddedChildren).map { $0.1.threadCPUNanoseconds() }
        var pingCPU = 0.0  // B's, for the bare calls below: not the continuations'

        // With `warmOnly`, a block of bare calls to B's agent follows each pair of blocks, from
        // this process (which does nothing else meanwhile), so the hop's floor meets the same load
        // (not while profiled: the processes' counts are the continuations' alone); in every run,
        // a block of bare C round trips, direct and through a bare relay, the floor of the hop
        // with no work in it (`baton_bench_relay_time`).
        let pinger = warmOnly && !profiled ? try LocalPinger(socketPath: socket("B")) : nil
        defer { pinger?.close() }
        var pingWakeups = 0.0
        let bareRelay = profiled ? nil : baton_bench_relay_start()
        if !profiled && bareRelay == nil { throw BenchFailure("the bare relay did not start: \(String(cString: strerror(errno)))") }
        defer { baton_bench_relay_stop(bareRelay) }
        for _ in 0..<warmBlocks {
            results.warm += try block(throughAgent)
            results.embeddedWarm += try block(embedded)
            if let pinger {  // B's wake-ups for these are not the continuations': taken out below
                let (before, cpu) = (threadRuns(of: agentB.pid), agentB.threadCPUNanoseconds())
                results.localPing += try pinger.pings(warmBlock)
                pingWakeups += threadRuns(of: agentB.pid).reduce(0) { $0 + $1.value - (before[$1.key] ?? 0) }
                pingCPU += agentB.cpuMilliseconds(since: cpu)
            }
            if let bareRelay {  // the agents' hop with none of Baton in it, under the same load
                var direct = [Double](repeating: 0, count: warmBlock), relayed = direct
                guard baton_bench_relay_time(bareRelay, Int32(warmBlock), &direct, &relayed) == 0 else {
                    throw BenchFailure("the bare relay failed: \(String(cString: strerror(errno)))")
                }
                results.bareDirect += direct
                results.bareRelayed += relayed
            }
        }
        let continuations = warmBlocks * (warmBlock + 1)
        results.warmWakeups = zip(warmProcesses, wakeupsBefore).map { ($0.0.0, wakeups(of: $0.0.1, since: $0.1, per: continuations)) }
        results.warmWakeups[0].1 -= pingWakeups / Double(continuations)
        let cpu = zip(warmChildren + embeddedChildren, warmCPUBefore).map { ($0.0.0, $0.0.1.cpuMilliseconds(since: $0.1) * 1000 / Double(continuations)) }
        results.warmCPU = Array(cpu.prefix(warmChildren.count))
        results.warmCPU[0].1 -= pingCPU * 1000 / Double(continuations)
        results.embeddedWarmCPU = Array(cpu.suffix(embeddedChildren.count))
        for child in [throughAgent, embedded, embeddedPeer] { child.stop() }
        if warmOnly {
            results.failures += continuer.failures
            return results
        }
        // This process continues it once, for the streams below.
        _ = ContinuityBenchmarks.timedContinuation(entry, continuer)
        results.failures += continuer.failures
        for _ in 0..<handoffs / 5 {
            let start = ContinuousClock.now
            _ = try ContinuityBenchmarks.wait { try await connection.fetchPayload(of: entry) }
            results.fetch.append(nanosPerOp(ContinuousClock.now - start, 1) / 1000)
        }
        // Continuation streams from A's app to this process, relayed by both agents (as the
        // embedded figure: `StreamServer` answers `send N`).
        guard let continued = continuer.restorer.last else { throw BenchFailure("no continued activity to open streams on") }
        for _ in 0..<ContinuityBenchmarks.firstByteRuns {  // small answers, as the embedded figure
            results.streamFirstByte.append(try ContinuityBenchmarks.streamTransfer(continued, size: ContinuityBenchmarks.firstByteSize).firstByte)
        }
        let streamProcesses = [("batond A", agentA), ("batond B", agentB), ("app A", appA)]
        let cpuBefore = streamProcesses.map { $0.1.threadCPUNanoseconds() }
        let (ownCPU, wallStart) = (cpuMilliseconds(), ContinuousClock.now)
        for _ in 0..<ContinuityBenchmarks.streamRuns {
            results.streamThroughput.append(try ContinuityBenchmarks.streamTransfer(continued).throughput)
        }
        results.streamWall = nanosPerOp(ContinuousClock.now - wallStart, 1) / 1_000_000
        results.streamCPU = zip(streamProcesses, cpuBefore).map { ($0.0, $0.1.cpuMilliseconds(since: $1)) }
            + [("app B (this process)", cpuMilliseconds() - ownCPU)]
        connection.leave()
        results.localPing = try localPings(socketPath: socket("B"))
        if relayOnly { return results }

        // 2. Continuing into an app that is not running: agent L starts it from its desktop entry
        // (GIO's GDesktopAppInfo, as batond does) and hands it the activity when it joins. Each
        // round A offers a new type, so no app of an earlier round (still ending) takes it.
        // Beside: the same app started from the same desktop entry the same way, by agent L's
        // process (not this one, whose size a fork would pay for), to didFinishLaunching, plus
        // one warm continuation; and, to show what GIO's launch costs, the app spawned directly
        // by this process.
        // The app is installed as a person's is (`baton app install`): its desktop entry and
        // manifest in the bench's own XDG_DATA_HOME, its Exec this executable in app mode.
        let manifestFile = root.appendingPathComponent("launched.plist")
        let plist: [String: Any] = ["CFBundleIdentifier": PeerMode.manifest.appID, "BatonTeamIdentifier": AgentAppMode.team,
                                    "NSUserActivityTypes": launchTypes]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: manifestFile)
        let installed = try AppInstaller.install(
            manifestFile: manifestFile, exec: "\(executable.path) --agent-app-mode \(socket("L")) \(PeerMode.manifest.appID) - --exit-after-restore",
            into: AppInstaller.dataHome(environment: environment))
        let agentL = try start("agent-L", executable, ["--agent-mode", socket("L"), folder("L"), addressA])
        let addressL = "127.0.0.1:" + (try agentL.waitForLine("ready ")).dropFirst("ready ".count)
        Application.shared.manifest = AppManifest(appID: "com.example.bench.continue", teamIdentifier: AgentAppMode.team)
        joined = false
        let client = AgentConnection.join(socketPath: socket("L"), advertising: false)
        client.onJoined = { joined = true }
        defer { client.leave() }
        MainLoop.run(until: { joined }, timeout: .seconds(30))
        for type in launchTypes where results.launchContinuation.count < launches {
            appA.send("retype \(type)")
            MainLoop.run(until: { joined && nearby(type) != nil }, timeout: .seconds(30))
            guard let entry = nearby(type) else { throw BenchFailure("L never saw A's \(type)\(agentL.logTail())") }
            let from = agentL.lines.count
            var failure: (any Error)?
            let start = monotonicNanoseconds()
            Task { @MainActor in
                do { _ = try await client.continueInApp(entry) } catch { failure = error }
            }
            func restored() -> String? { agentL.lines[from...].first { $0.hasPrefix("restored ") && $0.hasSuffix(" \(type)") } }
            func failed() -> String? { agentL.lines[from...].first { $0.hasPrefix("failed \(type)") } }
            MainLoop.run(until: { restored() != nil || failed() != nil || failure != nil }, timeout: .seconds(60))
            if let failure { throw BenchFailure("continuing \(type) into a launched app failed: \(failure)\(agentL.logTail())") }
            if let failed = failed() {
                results.launchFailures.append(failed)
                continue
            }
            guard let line = restored(), let end = UInt64(line.split(separator: " ")[1]) else {
                throw BenchFailure("the launched app did not restore \(type)\(agentL.logTail())")
            }
            results.launchContinuation.append(Double(end - start) / 1_000_000)

            let baselineFrom = agentL.lines.count
            let launchStart = monotonicNanoseconds()
            agentL.send("launch \(installed.desktopEntry.path)")
            let launchedLine = try agentL.waitForLine("launched ", from: baselineFrom)
            guard let finishedLaunching = UInt64(launchedLine.split(separator: " ")[1]) else { throw BenchFailure("bad launch line") }
            results.launchToFinish.append(Double(finishedLaunching - launchStart) / 1_000_000)

            let spawnStart = monotonicNanoseconds()
            let fresh = try startApp("launch-\(type)", socket: socket("L"), appID: PeerMode.manifest.appID, types: ["com.example.bench.other"])
            guard let finished = UInt64(try fresh.waitForLine("launched ").split(separator: " ")[1]) else { throw BenchFailure("bad launch line") }
            results.spawnToFinish.append(Double(finished - spawnStart) / 1_000_000)
            fresh.stop()
            children.removeAll { $0 === fresh }
        }
        client.leave()

        // 3. Idle: A with 2 apps joined and 2 peers linked (B, L), beside an app with an
        // embedded node linked to 2 peers (B, L); B has nothing joined (2 peers: A, D).
        let second = try startApp("app-A2", socket: socket("A"), appID: "com.example.bench.second", types: ["com.example.bench.second"],
                                  ["--advertise"])
        try second.waitForLine("joined")
        let node = try start("node-D", executable, ["--node-mode", folder("D"), addressB, addressL])
        try node.waitForLine("linked")
        MainLoop.run(until: { false }, timeout: .seconds(1))  // the new links' first exchanges end
        let (cpuA, statA, cpuD, statD) = (agentA.threadCPUNanoseconds(), agentA.statCPUMilliseconds(), node.threadCPUNanoseconds(),
                                          node.statCPUMilliseconds())
        let cpuApp = appA.threadCPUNanoseconds()
        MainLoop.run(until: { false }, timeout: .seconds(idleSeconds))
        results.joinedAppIdleCPU = appA.cpuMilliseconds(since: cpuApp)
        results.idleCPU = agentA.cpuMilliseconds(since: cpuA)
        results.idleStatCPU = agentA.statCPUMilliseconds() - statA
        results.nodeIdleCPU = node.cpuMilliseconds(since: cpuD)
        results.nodeIdleStatCPU = node.statCPUMilliseconds() - statD
        results.agentResident = agentA.residentBytes()
        results.emptyAgentResident = agentB.residentBytes()
        results.agentPrivate = agentA.privateDirtyBytes()
        results.emptyAgentPrivate = agentB.privateDirtyBytes()

        // Memory per joined app: B's resident size with none and with `appsForMemory` joined.
        let apps = try (0..<appsForMemory).map { index in
            try startApp("app-B\(index)", socket: socket("B"), appID: "com.example.bench.idle\(index)", types: ["com.example.bench.idle"])
        }
        for app in apps { try app.waitForLine("joined") }
        MainLoop.run(until: { false }, timeout: .seconds(1))  // the agent's replies to the joins are sent
        results.bytesPerApp = (agentB.residentBytes() - results.emptyAgentResident) / Double(appsForMemory)
        return results
    }

    /// `handoffs` bare D-Bus round trips (`Peer.Ping`, which GDBus answers itself) to the agent
    /// at `socketPath`, over a connection of its own, in µs.
    static func localPings(socketPath: String, count: Int = handoffs) throws -> [Double] {
        let pinger = try LocalPinger(socketPath: socketPath)
        defer { pinger.close() }
        return try pinger.pings(count)
    }

    /// A connection of its own to the agent at a socket, for bare D-Bus round trips (`Peer.Ping`).
    @MainActor
    final class LocalPinger {
        let bus: LocalBus
        private let connection: UnsafeMutableRawPointer

        init(socketPath: String) throws {
            let address = g_unix_socket_address_new(socketPath)!
            defer { g_object_unref(UnsafeMutableRawPointer(address)) }
            let client = g_socket_client_new()!
            defer { g_object_unref(UnsafeMutableRawPointer(client)) }
            var error: UnsafeMutablePointer<GError>?
            guard let connection = g_socket_client_connect(client, OpaquePointer(address), nil, &error) else {
                throw GLibError(consuming: error!)
            }
            self.connection = UnsafeMutableRawPointer(connection)
            do {
                bus = try ContinuityBenchmarks.wait { try await LocalBus.connect(over: OpaquePointer(connection), timeout: .seconds(10)) }
            } catch {
                g_object_unref(UnsafeMutableRawPointer(connection))
                throw error
            }
            bus.startMessageProcessing()
        }

        func close() {
            bus.close()
            g_object_unref(connection)
        }

        /// `count` round trips, one at a time, µs each.
        func pings(_ count: Int) throws -> [Double] {
            try (0..<count).map { _ in
            let start = ContinuousClock.now
                _ = try ContinuityBenchmarks.wait { [bus] in
                    try await bus.call("/", "org.freedesktop.DBus.Peer", "Ping", [], replyType: "()", timeout: .seconds(10))
                }
                return nanosPerOp(ContinuousClock.now - start, 1) / 1000
            }
        }
    }

    /// What a relay that does nothing adds to a round trip, µs (medians): the least an agent's
    /// hop can add to the embedded figure on this machine.
    static func bareExtra(_ results: Results) -> Double {
        percentile(results.bareRelayed, 50) - percentile(results.bareDirect, 50)
    }

    /// `BatonBench --agent-warm`'s lines: the warm continuation through agents beside the
    /// embedded pair (p50 of each, the ratio of each pair of blocks, and each block's p50s, which
    /// show which side moved when a ratio did), the bare D-Bus call to
    /// `batond` over its socket beside the embedded warm continuation (the floor one app↔agent
    /// hop sets), and the thread wake-ups per continuation.
    static func warmLines(_ results: Results) -> [String] {
        let blocks = stride(from: 0, to: min(results.warm.count, results.embeddedWarm.count), by: warmBlock).map { start in
            (agents: percentile(Array(results.warm[start..<start + warmBlock]), 50),
             embedded: percentile(Array(results.embeddedWarm[start..<start + warmBlock]), 50))
        }
        let pairs = blocks.map { $0.agents / $0.embedded }
        let embedded50 = percentile(results.embeddedWarm, 50)
        let bareExtra = bareExtra(results)
        return [
            Figure(name: "agent: warm continuation p50", value: percentile(results.warm, 50), baselineName: "embedded nodes p50, alternated",
                   baseline: embedded50, unit: "µs", aim: "aim ≤ 1.3×").line(),
            Figure(name: "D-Bus ping to batond over its socket p50", value: percentile(results.localPing, 50),
                   baselineName: "embedded nodes p50, alternated", baseline: embedded50, unit: "µs", aim: "one app↔agent hop").line(),
            Figure(name: "bare C relay hop (Unix, then TCP) p50", value: percentile(results.bareRelayed, 50),
                   baselineName: "bare C round trip over TCP p50", baseline: percentile(results.bareDirect, 50), unit: "µs",
                   aim: "the hop with no work").line(),
            String(format: "(the bare relay adds %.0f µs, %.2f× the embedded figure: through agents, %.2f× at the least; 1.3× leaves %.0f µs)",
                   bareExtra, bareExtra / embedded50, 1 + bareExtra / embedded50, 0.3 * embedded50),
            "blocks of \(warmBlock), agents/embedded: " + pairs.map { String(format: "%.2f", $0) }.joined(separator: " ")
                + String(format: " (median %.2f×)", percentile(pairs, 50)),
            "blocks of \(warmBlock), p50 µs agents/embedded: " + blocks.map { String(format: "%.0f/%.0f", $0.agents, $0.embedded) }.joined(separator: " "),
            wakeupNote("agent", results.warmWakeups),
            cpuNote(results),
        ]
    }

    /// "(CPU per warm continuation, µs: agents' path …; embedded pair …)": what each process
    /// spends on one continuation and its `Continued`.
    static func cpuNote(_ results: Results) -> String {
        func list(_ cpu: [(String, Double)]) -> String {
            cpu.map { "\($0.0) \(Int($0.1.rounded()))" }.joined(separator: ", ") + ", in all \(Int(cpu.reduce(0) { $0 + $1.1 }.rounded()))"
        }
        return "(CPU per warm continuation, µs: agents' path \(list(results.warmCPU)); embedded pair \(list(results.embeddedWarmCPU)))"
    }

    /// Where the continuation streams' time goes: each process's CPU over the transfers.
    static func streamCPUNote(_ results: Results) -> String {
        "(agent streams: \(ContinuityBenchmarks.streamRuns) × 100 MB in \(Int(results.streamWall)) ms; CPU "
            + results.streamCPU.map { "\($0.0) \(Int($0.1)) ms" }.joined(separator: ", ") + ")"
    }

    /// The figures of `results`, beside the embedded path's from the same run.
    static func figures(_ results: Results, continuity: ContinuityBenchmarks.Results, idleSeconds: Int) -> [Figure] {
        let warm50 = percentile(results.warm, 50), warm99 = percentile(results.warm, 99)
        let launchBaseline = percentile(results.launchToFinish, 50) + warm50 / 1000
        return [
            Figure(name: "agent: warm continuation p50", value: warm50, baselineName: "embedded nodes p50, alternated",
                   baseline: percentile(results.embeddedWarm, 50), unit: "µs", aim: "aim ≤ 1.3×"),
            Figure(name: "agent: warm continuation p99", value: warm99, baselineName: "embedded nodes p99, alternated",
                   baseline: percentile(results.embeddedWarm, 99), unit: "µs", aim: "aim ≤ 1.3×"),
            Figure(name: "agent: warm continuation p50", value: warm50, baselineName: "bare TLS round trip p50",
                   baseline: percentile(continuity.rtt, 50), unit: "µs", aim: ""),
            Figure(name: "agent: warm continuation p99", value: warm99, baselineName: "bare TLS round trip p99",
                   baseline: percentile(continuity.rtt, 99), unit: "µs", aim: ""),
            Figure(name: "agent: the payload alone p50", value: percentile(results.fetch, 50),
                   baselineName: "warm continuation p50", baseline: warm50, unit: "µs", aim: "where the time goes"),
            Figure(name: "agent: continuation stream, 100 MB", value: percentile(results.streamThroughput, 50),
                   baselineName: "the same through embedded nodes", baseline: percentile(continuity.streamThroughput, 50),
                   unit: "MB/s", aim: "higher is better"),
            Figure(name: "agent: getContinuationStreams to first byte", value: percentile(results.streamFirstByte, 50),
                   baselineName: "the same through embedded nodes", baseline: percentile(continuity.streamFirstByte, 50),
                   unit: "ms", aim: ""),
            Figure(name: "D-Bus ping to batond over its socket p50", value: percentile(results.localPing, 50),
                   baselineName: "bare D-Bus call over TLS p50", baseline: percentile(continuity.dbusRTT, 50), unit: "µs",
                   aim: "one app↔agent hop"),
            Figure(name: "bare C relay hop (Unix, then TCP) p50", value: percentile(results.bareRelayed, 50),
                   baselineName: "bare C round trip over TCP p50", baseline: percentile(results.bareDirect, 50), unit: "µs",
                   aim: "the hop with no work"),
            Figure(name: "embedded + the bare relay's extra p50", value: percentile(results.embeddedWarm, 50) + bareExtra(results),
                   baselineName: "embedded nodes p50, alternated", baseline: percentile(results.embeddedWarm, 50), unit: "µs",
                   aim: "agents' floor (aim 1.3×)"),
            Figure(name: "agent: continue into app not running p50", value: percentile(results.launchContinuation, 50),
                   baselineName: "launch to didFinishLaunching + warm", baseline: launchBaseline, unit: "ms", aim: "aim ≤ 1.2×"),
            Figure(name: "launch from the desktop entry (GIO) p50", value: percentile(results.launchToFinish, 50),
                   baselineName: "the same app spawned directly", baseline: percentile(results.spawnToFinish, 50), unit: "ms",
                   aim: "to didFinishLaunching"),
            Figure(name: "agent: idle \(idleSeconds) s, 2 apps + 2 peers, CPU", value: results.idleCPU,
                   baselineName: "app with embedded node, 2 peers", baseline: max(results.nodeIdleCPU, 0.001), unit: "ms",
                   aim: "aim < 5 ms (schedstat)"),
            Figure(name: "a joined app (continued, streamed), same, CPU", value: results.joinedAppIdleCPU,
                   baselineName: "app with embedded node, 2 peers", baseline: max(results.nodeIdleCPU, 0.001), unit: "ms",
                   aim: "schedstat"),
            Figure(name: "agent: same, /proc/PID/stat utime+stime", value: results.idleStatCPU,
                   baselineName: "app with embedded node, 2 peers", baseline: max(results.nodeIdleStatCPU, 0.001), unit: "ms",
                   aim: "10 ms ticks"),
            Figure(name: "agent: resident, 2 apps + 2 peers", value: results.agentResident / 1_048_576,
                   baselineName: "batond, nothing joined, 2 peers", baseline: results.emptyAgentResident / 1_048_576, unit: "MiB", aim: ""),
            Figure(name: "agent: private dirty, 2 apps + 2 peers", value: results.agentPrivate / 1_048_576,
                   baselineName: "batond, nothing joined, 2 peers", baseline: results.emptyAgentPrivate / 1_048_576, unit: "MiB",
                   aim: "the rest is shared code"),
            Figure(name: "agent: memory per joined app (N = \(appsForMemory))", value: results.bytesPerApp / 1024,
                   baselineName: "memory per mutual-TLS link", baseline: continuity.bytesPerLink / 1024, unit: "KiB", aim: ""),
        ]
    }
}
