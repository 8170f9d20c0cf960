import Baton
import BatonAgent
import BatonContinuity
import Foundation

/// What `baton inspect --watch` costs a warm continuation (issue 28; aim ≤ 1.1×): warm
/// continuations through two agents (an app on A advertises, a `ContinuerMode` app joined to B
/// continues), timed in blocks that alternate, in the same run, between nobody watching and a
/// watcher joined to B's agent as `baton inspect --watch --json` is — every event and every
/// continuation step sent to it as JSON, and decoded; the joined apps then send their summaries
/// too. The first block of each kind is a warm-up, left out.
@MainActor
enum InspectionBenchmarks {
    /// Blocks of each kind, and continuations in each.
    static let blocks = 8, blockSize = 50

    struct Results {
        /// Warm continuations with nobody watching, µs.
        var unwatched: [Double] = []
        /// The same with a watcher, µs.
        var watched: [Double] = []
        /// Events the watchers took.
        var events = 0
    }

    static func run() throws -> Results {
        let root = URL(fileURLWithPath: "/tmp").appendingPathComponent("baton-bench-inspect-\(UUID().uuidString.prefix(8))")
        let runtime = root.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: root) }
        let authority = try GroupAuthority.create(name: "bench", in: ConfigDirectory(url: root.appendingPathComponent("admin")))
        for name in ["A", "B"] { try authority.issueDevice(named: "Agent\(name)").write(to: root.appendingPathComponent(name)) }
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
        var children: [BenchChild] = []
        defer { for child in children.reversed() { child.stop() } }
        func start(_ name: String, _ program: URL, _ arguments: [String]) throws -> BenchChild {
            let child = try BenchChild(name, executable: program, arguments, environment: environment, logDirectory: root)
            children.append(child)
            return child
        }
        func startAgent(_ name: String, peers: [String] = []) throws -> String {
            let agent = try start("batond-\(name)", batond, ["--device", root.appendingPathComponent(name).path, "--listen", "127.0.0.1:0",
                                                             "--socket", socket(name)] + peers.flatMap { ["--peer", $0] })
            let line = try agent.waitForLine("batond:")
            guard let range = line.range(of: "listening on ") else { throw BenchFailure("batond-\(name) said: \(line)") }
            return String(line[range.upperBound...].prefix { $0 != "," })
        }
        let addressA = try startAgent("A")
        _ = try startAgent("B", peers: [addressA])
        let appA = try start("app-A", executable, ["--agent-app-mode", socket("A"), PeerMode.manifest.appID, AgentBenchmarks.editing, "--advertise"])
        try appA.waitForLine("joined")
        let continuer = try start("app-B", executable, ["--continuer-mode", "agent", socket("B")])
        try continuer.waitForLine("ready")

        var results = Results()
        func block() throws -> [Double] {
            let from = continuer.lines.count
            continuer.send("warm \(blockSize)")
            let times = try continuer.waitForLine("warm ", from: from).dropFirst("warm ".count).split(separator: ",").compactMap { Double($0) }
            guard times.count == blockSize else { throw BenchFailure("app-B timed \(times.count) of \(blockSize) continuations") }
            return times
        }
        Application.shared.manifest = AppManifest(appID: "com.example.bench.watcher", teamIdentifier: "BENCH")
        var events = 0
        for round in 0...blocks {
            let unwatched = try block()
            let watcher = AgentConnection.join(socketPath: socket("B"), advertising: false, autostart: false)
            var watching = false
            watcher.onJoined = {
                Task { @MainActor in
                    try? await watcher.watchInspection { _ in events += 1 }
                    watching = true
                }
            }
            MainLoop.run(until: { watching }, timeout: .seconds(30))
            guard watching else { throw BenchFailure("the watcher did not start watching B's agent") }
            let watched = try block()
            watcher.leave()
            if round > 0 {
                results.unwatched += unwatched
                results.watched += watched
            }
        }
        results.events = events
        return results
    }

    static func figure(_ results: Results) -> Figure {
        Figure(name: "agent: warm continuation p50, inspect --watch", value: percentile(results.watched, 50),
               baselineName: "the same, nobody watching", baseline: percentile(results.unwatched, 50), unit: "µs", aim: "aim ≤ 1.1×")
    }
}
