import BatonContinuity
import BatonLoop
import Foundation

/// Issue 26's memory rows: `batond`'s private memory (`Private_Dirty`: its heap, stacks and
/// written data) with N links — N = 1, 8 and 32 devices of its group, each offering an activity
/// — beside a `batond` with no link, from the same run.
///
/// The devices are nodes of one other process (`--fleet-mode`, on loopback), each with its own
/// identity; a fresh `batond` is started for each N with those N devices as its static peers
/// (`--peer`), and measured once it has published `linked` for each and `nearbyOffered` for each
/// one's activity: every link up and every device's activity fetched. The agent with no link is
/// measured once it serves apps (`agentServing`), which every agent publishes before dialing.
///
/// Then a flood, on the agent with the most links: every device makes a new activity current
/// at each of `floodTurns` loop turns (each sent to the agent), then withdraws it; the agent is
/// measured again once it has published `nearbyWithdrawn` for every device — each link's
/// updates are taken in order, so all of the flood is behind it. Issue 26's aim: within 2× of
/// the figure before the flood.
@MainActor
enum AgentMemoryBenchmarks {
    /// Link counts measured, each in its own `batond`.
    static let linkCounts = [1, 8, 32]
    /// Loop turns of the flood, each a new activity from every device.
    static let floodTurns = 2_000

    struct Results {
        /// `Private_Dirty` of a `batond` with no link, bytes.
        var idle = 0.0
        /// `Private_Dirty` of a `batond` with `links` links, bytes, one per `linkCounts`.
        var linked: [(links: Int, bytes: Double)] = []
        /// `Private_Dirty` of the agent with the most links after the flood, bytes.
        var afterFlood = Double.nan
    }

    /// `--memory-only`'s lines and the full run's: the figures, or why they could not be taken.
    static func lines() -> [String] {
        do { return figures(try run()).map { $0.line() } } catch {
            return ["agent memory with N links failed: \(error)"]
        }
    }

    static func figures(_ results: Results) -> [Figure] {
        // Each row's cost a link: the first link's (with what a process pays once, for its
        // first TLS session and its link thread), then each further link's beyond the first.
        let first = results.linked.first
        var figures = results.linked.map { links, bytes in
            let perLink = if let first, links > first.links {
                String(format: "(%.1f KiB a link beyond the first)", (bytes - first.bytes) / 1024 / Double(links - first.links))
            } else {
                String(format: "(%.1f KiB the first link)", (bytes - results.idle) / 1024 / Double(links))
            }
            return Figure(name: "batond private dirty, \(links) link\(links == 1 ? "" : "s")", value: bytes / 1_048_576,
                          baselineName: "batond, no link", baseline: results.idle / 1_048_576, unit: "MiB", aim: perLink)
        }
        if let (links, before) = results.linked.last {
            figures.append(Figure(name: "  same after a flood (\(floodTurns) updates a link)", value: results.afterFlood / 1_048_576,
                                  baselineName: "the same agent before, \(links) links", baseline: before / 1_048_576, unit: "MiB",
                                  aim: "aim ≤ 2×"))
        }
        return figures
    }

    static func run() throws -> Results {
        let root = URL(fileURLWithPath: "/tmp").appendingPathComponent("baton-bench-memory-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: root) }
        let authority = try GroupAuthority.create(name: "bench", in: ConfigDirectory(url: root.appendingPathComponent("admin")))
        let agentFolder = root.appendingPathComponent("agent")
        try authority.issueDevice(named: "Agent").write(to: agentFolder)
        let fleetFolders = try (0..<(linkCounts.max() ?? 0)).map { index in
            let folder = root.appendingPathComponent("fleet-\(index)")
            try authority.issueDevice(named: "Fleet\(index)").write(to: folder)
            return folder.path
        }
        let batond = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("batond")
        guard FileManager.default.isExecutableFile(atPath: batond.path) else {
            throw BenchFailure("batond is not built beside BatonBench (swift build -c release --product batond)")
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("config"), withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["BATON_PEERS"] = nil
        environment["BATON_AGENT_SOCKET"] = nil
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        environment["XDG_RUNTIME_DIR"] = root.path
        environment["BATON_DIAGNOSTICS_INODE"] = nil

        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let fleet = try BenchChild("fleet", executable: executable, ["--fleet-mode"] + fleetFolders, environment: environment,
                                   logDirectory: root)
        defer { fleet.stop() }
        let ports = try fleet.waitForLine("ready").split(separator: " ").dropFirst().map(String.init)
        guard ports.count == fleetFolders.count else { throw BenchFailure("the fleet said: ready \(ports.joined(separator: " "))") }
        fleet.send("advertise")

        var agentEnvironment = environment
        agentEnvironment["BATON_DIAGNOSTICS_FD"] = "3"  // the typed events, on the agent's standard output (below)
        var results = Results()
        func agent(links: Int) throws -> Double {
            // Descriptor 3 is the standard output pipe, which the bench reads; the agent's own
            // output goes to its log.
            let child = try BenchChild("batond-\(links)", executable: URL(fileURLWithPath: "/bin/sh"),
                                       ["-c", "exec \"$0\" \"$@\" 3>&1 1>&2", batond.path, "--device", agentFolder.path,
                                        "--listen", "127.0.0.1:0", "--socket", root.appendingPathComponent("agent-\(links).sock").path,
                                        "--no-notifications"] + ports.prefix(links).flatMap { ["--peer", "127.0.0.1:\($0)"] },
                                       environment: agentEnvironment, logDirectory: root)
            defer { child.stop() }
            let events = BenchEvents(child)
            _ = try events.wait { if case .agentServing = $0 { true } else { false } }
            var linked = Set<String>(), offered = Set<String>()
            while linked.count < links || offered.count < links {
                let (event, _) = try events.wait(timeout: .seconds(60)) {
                    switch $0 {
                    case .linked, .nearbyOffered: true
                    default: false
                    }
                }
                switch event {
                case .linked(let peer, _): linked.insert(peer)
                case .nearbyOffered(_, let device): offered.insert(device)
                default: break
                }
            }
            let bytes = child.privateDirtyBytes()
            if links == linkCounts.max() {
                let from = fleet.lines.count
                fleet.send("flood \(floodTurns)")
                try fleet.waitForLine("flooded", from: from, timeout: .seconds(120))
                var withdrawn = Set<String>()
                while withdrawn.count < links {
                    let (event, _) = try events.wait(timeout: .seconds(60)) { if case .nearbyWithdrawn = $0 { true } else { false } }
                    if case .nearbyWithdrawn(_, let device) = event { withdrawn.insert(device) }
                }
                results.afterFlood = child.privateDirtyBytes()
            }
            return bytes
        }
        results.idle = try agent(links: 0)
        for links in linkCounts { results.linked.append((links, try agent(links: links))) }
        return results
    }
}
