import BatonContinuity
import BatonLoop
import CGLib
import Foundation

/// Issue 31's cold-start figure: two namespace hosts with Avahi (`BenchHost`), a real `batond`
/// on each; one agent is restarted again and again while the other stays up, and each time the
/// bench takes the time from the restarted agent's start (the bench starting its `nsenter`) to
/// its typed `linked` event (the link up and the other device's activity asked), beside the
/// time from the same start to its `listening` event: what a process start costs in the same
/// run. The aim: p90 ≤ 150 ms (KDE Connect's, measured the same way, was 149 ms).
///
/// The agent that restarts is the device whose identifier sorts first: when both devices dial
/// at once, the connection it dialed is the one both keep, so whether it dialed at once is
/// what its `linked` event says. Half the restarts keep the file of addresses last linked over
/// (as a device restarting has it); the other half remove it, so only the record the host's
/// avahi-daemon has cached tells the agent where the other device is.
@MainActor
enum ColdStartBenchmarks {
    struct Results {
        /// Start to linked, ms, with the addresses last linked over kept.
        var withLastLinked: [Double] = []
        /// Start to linked, ms, with only avahi-daemon's cache.
        var avahiOnly: [Double] = []
        /// Start to listening, ms, every restart.
        var listening: [Double] = []
        /// Restarts whose link the restarted agent dialed, and restarts in all.
        var dialedFirst = 0, restarts = 0
    }

    /// Restarts of each kind: 20 in all stay well under 30 s on a loaded 2-core machine.
    static let runs = 10

    /// The figures' lines: measured, or one line saying why not (not root, tools missing, a failure).
    static func lines() -> [String] {
        if let reason = BenchHost.unavailableReason { return ["cold start between namespace hosts: skipped: \(reason)"] }
        do { return try lines(run()) } catch {
            return ["cold start between namespace hosts failed: \(error)"]
        }
    }

    static func lines(_ results: Results) -> [String] {
        let all = results.withLastLinked + results.avahiOnly
        return [
            Figure(name: "restarted batond to linked p50", value: percentile(all, 50),
                   baselineName: "its start to listening p50", baseline: percentile(results.listening, 50), unit: "ms",
                   aim: "").line(),
            Figure(name: "restarted batond to linked p90", value: percentile(all, 90),
                   baselineName: "its start to listening p90", baseline: percentile(results.listening, 90), unit: "ms",
                   aim: "aim p90 ≤ 150 ms").line(),
            Figure(name: "  same, Avahi's cache only, p90", value: percentile(results.avahiOnly, 90),
                   baselineName: "its start to listening p90", baseline: percentile(results.listening, 90), unit: "ms",
                   aim: "").line(),
            "(cold start: two namespace hosts with avahi-daemon, \(results.restarts) restarts, the restarted agent dialed first in"
                + " \(results.dialedFirst); each run ms, last-linked kept: \(format(results.withLastLinked)); Avahi only: \(format(results.avahiOnly)))",
        ]
    }

    private static func format(_ values: [Double]) -> String { values.map { String(format: "%.1f", $0) }.joined(separator: ", ") }

    static func run() throws -> Results {
        let root = URL(fileURLWithPath: "/tmp").appendingPathComponent("baton-bench-cold-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: root) }
        let authority = try GroupAuthority.create(name: "bench", in: ConfigDirectory(url: root.appendingPathComponent("admin")))
        var devices: [(name: String, folder: URL, identifier: String)] = []
        for name in ["One", "Two"] {
            let identity = try authority.issueDevice(named: name)
            let folder = root.appendingPathComponent(name)
            try identity.write(to: folder)
            devices.append((name, folder, identity.identifier))
        }
        devices.sort { $0.identifier < $1.identifier }
        let (restarting, staying) = (devices[0], devices[1])
        let batond = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("batond")
        guard FileManager.default.isExecutableFile(atPath: batond.path) else {
            throw BenchFailure("batond is not built beside BatonBench (swift build -c release --product batond)")
        }
        try FileManager.default.createDirectory(at: root.appendingPathComponent("config"), withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["BATON_PEERS"] = nil
        environment["XDG_CONFIG_HOME"] = root.appendingPathComponent("config").path
        environment["BATON_DIAGNOSTICS_FD"] = "3"  // the typed events, on the child's standard output (below)
        environment["BATON_DIAGNOSTICS_INODE"] = nil
        func agent(_ folder: URL, _ socket: String) -> [String] {
            // Descriptor 3 is the standard output pipe, which the bench reads; the agent's own
            // output goes to its log.
            ["/bin/sh", "-c", "exec \"$0\" \"$@\" 3>&1 1>&2", batond.path, "--device", folder.path, "--listen", "0.0.0.0:0",
             "--socket", root.appendingPathComponent(socket).path, "--no-notifications"]
        }

        let (a, b) = try BenchHost.pair(logDirectory: root)
        defer {
            a.shutDown()
            b.shutDown()
        }
        let stays = try a.start("batond-stays", agent(staying.folder, "a.sock"), environment: environment, logDirectory: root)
        _ = try Events(stays).wait { if case .listening = $0 { true } else { false } }
        let stayEvents = Events(stays)
        var restarted = try b.start("batond-restarts", agent(restarting.folder, "b.sock"), environment: environment, logDirectory: root)
        _ = try Events(restarted).wait { if case .linked = $0 { true } else { false } }

        let lastLinked = restarting.folder.appendingPathComponent("last-linked")
        var results = Results()
        for run in 0..<(2 * runs) {
            try stop(restarted)
            _ = try stayEvents.wait { if case .unlinked = $0 { true } else { false } }
            let avahiOnly = run % 2 == 1
            if avahiOnly { try? FileManager.default.removeItem(at: lastLinked) }
            let start = ContinuousClock.now
            restarted = try b.start("batond-restarts", agent(restarting.folder, "b.sock"), environment: environment, logDirectory: root)
            let events = Events(restarted)
            let (_, listening) = try events.wait { if case .listening = $0 { true } else { false } }
            let (linked, linkedAt) = try events.wait { if case .linked = $0 { true } else { false } }
            let milliseconds = Self.milliseconds(linkedAt - start)
            if avahiOnly { results.avahiOnly.append(milliseconds) } else { results.withLastLinked.append(milliseconds) }
            results.listening.append(Self.milliseconds(listening - start))
            results.restarts += 1
            if case .linked(_, dialed: true) = linked { results.dialedFirst += 1 }
        }
        try stop(restarted)
        try stop(stays)
        return results
    }

    /// A child's typed events (JSON lines on its standard output), read from the first on.
    @MainActor
    private final class Events {
        let child: BenchChild
        /// Lines of `child` already looked at.
        private var next = 0
        init(_ child: BenchChild) { self.child = child }

        /// Runs the loop until the child publishes an event that `matches` (after those
        /// already taken); returns it and when it was seen. Throws past `timeout` or if the child ends.
        func wait(timeout: Duration = .seconds(30), _ matches: (DiagnosticEvent) -> Bool) throws
            -> (DiagnosticEvent, ContinuousClock.Instant) {
            let decoder = JSONDecoder()
            var found: DiagnosticEvent?
            var seenAt = ContinuousClock.now
            func scan() -> Bool {
                while found == nil, next < child.lines.count {
                    defer { next += 1 }
                    if let event = try? decoder.decode(DiagnosticEvent.self, from: Data(child.lines[next].utf8)), matches(event) {
                        found = event
                        seenAt = .now
                    }
                }
                return found != nil || !child.process.isRunning
            }
            if !scan() { MainLoop.run(until: scan, timeout: timeout) }
            guard let found else {
                throw BenchFailure("\(child.name) published no such event within \(timeout)\(child.process.isRunning ? "" : " (it ended)")\(child.logTail())")
            }
            return (found, seenAt)
        }
    }

    /// Ends the agent `child` runs (SIGTERM to `nsenter`'s child, the agent) and waits until
    /// it has exited — its pidfd readable, no polling — then for `nsenter`.
    private static func stop(_ child: BenchChild) throws {
        defer { child.stop() }
        guard let agent = BenchHost.firstChild(of: child.pid) else { return }
        let pidfd = baton_pidfd_open(agent)
        guard pidfd >= 0 else { return }
        defer { close(pidfd) }
        var exited = false
        let watch = MainLoop.whenReadable(pidfd) {
            exited = true
            return .stop
        }
        defer { watch.cancel() }
        kill(agent, SIGTERM)
        MainLoop.run(until: { exited }, timeout: .seconds(10))
        guard exited else {
            kill(agent, SIGKILL)
            throw BenchFailure("\(child.name) did not exit within 10 s of SIGTERM\(child.logTail())")
        }
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
}
