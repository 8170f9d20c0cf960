@_spi(Testing) import BatonContinuity
import BatonLoop
import CGLib
import Foundation

/// Issue 31's exit figure: how long `batond`, linked to a peer, takes from SIGTERM to its end
/// (links closed with close_notify, socket removed, lock released), beside the same for a plain
/// process (`/bin/cat` waiting on its input) killed the same way in the same run. The aim: the
/// agent ends within 200 ms. Also, from the peer's side: SIGTERM to the link seen closed.
@MainActor
enum AgentExitBenchmarks {
    struct Results {
        /// SIGTERM to batond's end, ms, one per run.
        var agentExit: [Double] = []
        /// SIGTERM to the peer seeing the link closed, ms.
        var peerSawClosed: [Double] = []
        /// SIGTERM to a plain process's end, ms.
        var plainExit: [Double] = []
    }

    static let runs = 5

    /// Sends SIGTERM to `process` and runs the loop (so a peer in this process goes on
    /// reading its links) until the process has exited — its pidfd readable, no polling — and
    /// `alsoUntil` holds, up to 10 s; returns when it exited, from the signal, in ms.
    private static func terminate(_ process: Process, alsoUntil condition: () -> Bool = { true }) throws -> Double {
        let pidfd = baton_pidfd_open(process.processIdentifier)
        guard pidfd >= 0 else { throw BenchFailure("pidfd_open failed: \(String(cString: strerror(errno)))") }
        defer { close(pidfd) }
        var exitedAt: ContinuousClock.Instant?
        let watch = MainLoop.whenReadable(pidfd) {
            exitedAt = .now
            return .stop
        }
        defer { watch.cancel() }
        let start = ContinuousClock.now
        kill(process.processIdentifier, SIGTERM)
        MainLoop.run(until: { exitedAt != nil && condition() }, timeout: .seconds(10))
        guard let exitedAt else {
            kill(process.processIdentifier, SIGKILL)
            throw BenchFailure("\(process.executableURL?.lastPathComponent ?? "?") did not exit within 10 s of SIGTERM")
        }
        return milliseconds(exitedAt - start)
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func run() throws -> Results {
        let root = URL(fileURLWithPath: "/tmp").appendingPathComponent("baton-bench-exit-\(UUID().uuidString.prefix(8))")
        let runtime = root.appendingPathComponent("run")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: root) }
        let authority = try GroupAuthority.create(name: "bench", in: ConfigDirectory(url: root.appendingPathComponent("admin")))
        try authority.issueDevice(named: "Stopping").write(to: root.appendingPathComponent("A"))
        let peerIdentity = try authority.issueDevice(named: "Peer")
        let batond = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("batond")
        guard FileManager.default.isExecutableFile(atPath: batond.path) else {
            throw BenchFailure("batond is not built beside BatonBench (swift build -c release --product batond)")
        }
        var environment = ProcessInfo.processInfo.environment
        environment["BATON_PEERS"] = nil
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path

        var results = Results()
        for _ in 0..<runs {
            // The agent, then the peer (this process, offering nothing) dialing it; once linked, SIGTERM.
            let agent = try BenchChild("batond-exit", executable: batond,
                                       ["--device", root.appendingPathComponent("A").path, "--listen", "127.0.0.1:0",
                                        "--socket", runtime.appendingPathComponent("a.sock").path, "--no-notifications"],
                                       environment: environment, logDirectory: root)
            defer { agent.stop() }
            let line = try agent.waitForLine("batond:")
            guard let range = line.range(of: "listening on "),
                  let address = PeerAddress(String(line[range.upperBound...].prefix { $0 != "," })) else {
                throw BenchFailure("batond said: \(line)")
            }
            let peer = try ContinuityNode(identity: peerIdentity, staticPeers: [address], provider: SilentActivityProvider())
            var linked = false
            var closedAt: ContinuousClock.Instant?
            let watch = peer.diagnostics.observe { event in
                switch event {
                case .linked: linked = true  // up, and its first answers in
                case .unlinked: if closedAt == nil { closedAt = .now }
                default: break
                }
            }
            defer { watch.cancel() }
            try peer.start(host: "127.0.0.1", discovery: .off)
            defer { peer.stop() }
            MainLoop.run(until: { linked }, timeout: .seconds(30))
            guard linked else { throw BenchFailure("the peer never linked with batond\(agent.logTail())") }
            let start = ContinuousClock.now
            results.agentExit.append(try terminate(agent.process, alsoUntil: { closedAt != nil }))
            if let closedAt { results.peerSawClosed.append(milliseconds(closedAt - start)) }
        }
        for _ in 0..<runs {
            let plain = Process()
            plain.executableURL = URL(fileURLWithPath: "/bin/cat")
            let input = Pipe()
            plain.standardInput = input
            try plain.run()
            results.plainExit.append(try terminate(plain))
            try? input.fileHandleForWriting.close()
            plain.waitUntilExit()
        }
        return results
    }

    static func figures(_ results: Results) -> [Figure] {
        [
            Figure(name: "batond, linked: SIGTERM to exit p50", value: percentile(results.agentExit, 50),
                   baselineName: "plain process: SIGTERM to exit p50", baseline: percentile(results.plainExit, 50), unit: "ms",
                   aim: "aim ≤ 200 ms"),
            Figure(name: "batond: SIGTERM to the peer's link closed p50", value: percentile(results.peerSawClosed, 50),
                   baselineName: "plain process: SIGTERM to exit p50", baseline: percentile(results.plainExit, 50), unit: "ms", aim: ""),
        ]
    }
}
