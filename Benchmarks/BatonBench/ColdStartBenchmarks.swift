import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import HostSupport

/// Issue 31's cold-start figures: two namespace hosts with Avahi (`TestHost`, HostSupport), a real `batond`
/// on each, and an app joined to one of them (the one that stays up) with an activity current;
/// the other agent is restarted again and again, and each time the bench takes the time from
/// the restarted agent's start (the bench starting its `nsenter`) to its typed `linked` event
/// (the link up and the other device's activity asked) and to its `nearbyOffered` event (the
/// other device's activity listed, what `baton nearby` shows), beside the time from the same
/// start to its `listening` event: what a process start costs in the same run. The aim: p90 ≤
/// 150 ms (KDE Connect's, measured the same way, was 149 ms).
///
/// Beside the cold figure, the same over a warm link: the app makes an activity of another type
/// current and the bench takes the time from its line to the app to the restarted agent's
/// `nearbyOffered` for that type.
///
/// Then a resume from suspend, as `ResumeFromSuspendTests` stands it in (a real suspend cannot
/// run here): the restarted agent is stopped (SIGSTOP) and the other host drops what comes from
/// it (nftables) until the agent that stays has given the link up; then the other host takes
/// its packets again, the stopped agent's host loses its address (its network down, as before
/// a sleep), the agent continues (SIGCONT) and the address comes back (what a network coming
/// up after a resume looks like to GIO's network monitor). The figure: SIGCONT to the resumed
/// agent's next `linked`, with the same aim as a cold start; it includes the bench's own
/// `ip address add` (a process started in the host), whose end the note gives.
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
        /// Start to the other device's activity listed (`nearbyOffered`), ms, every restart.
        var activityListed: [Double] = []
        /// An activity change on the other device to its `nearbyOffered` over the warm link, ms.
        var warm: [Double] = []
        /// SIGCONT to linked again, ms, one per resume; and the resumes whose link the resumed agent dialed.
        var resumed: [Double] = []
        var resumedDialed = 0
        /// SIGCONT to the resumed agent's drop of its old link, ms, one per resume.
        var resumedUnlinked: [Double] = []
        /// SIGCONT to the address back (the bench's `ip address add` returned), ms, one per resume.
        var resumedNetworkUp: [Double] = []
        /// Why the resumes were not all measured, if they were not.
        var resumeFailure: String?
    }

    /// Restarts of each kind: 20 in all stay well under 30 s on a loaded 2-core machine.
    static let runs = 10
    /// Activity changes over the warm link.
    static let warmRuns = 20
    /// Resumes from suspend: each waits for the other agent to give the link up (about 20 s),
    /// so these take about 4 minutes; enough for a p90.
    static let resumeRuns = 10
    /// The activity types the app on the host that stays takes turns to make current.
    private static let types = ["com.example.bench.cold.a", "com.example.bench.cold.b"]

    /// The figures' lines: measured, or one line saying why not (not root, tools missing, a failure).
    static func lines() -> [String] {
        if let reason = TestHost.unavailableReason { return ["cold start between namespace hosts: skipped: \(reason)"] }
        do { return try lines(run()) } catch {
            return ["cold start between namespace hosts failed: \(error)"]
        }
    }

    static func lines(_ results: Results) -> [String] {
        let all = results.withLastLinked + results.avahiOnly
        var lines = [
            Figure(name: "restarted batond to linked p50", value: percentile(all, 50),
                   baselineName: "its start to listening p50", baseline: percentile(results.listening, 50), unit: "ms",
                   aim: "").line(),
            Figure(name: "restarted batond to linked p90", value: percentile(all, 90),
                   baselineName: "its start to listening p90", baseline: percentile(results.listening, 90), unit: "ms",
                   aim: "aim p90 ≤ 150 ms").line(),
            Figure(name: "  same, Avahi's cache only, p90", value: percentile(results.avahiOnly, 90),
                   baselineName: "its start to listening p90", baseline: percentile(results.listening, 90), unit: "ms",
                   aim: "").line(),
            Figure(name: "restarted batond to activity listed p50", value: percentile(results.activityListed, 50),
                   baselineName: "an activity change, warm link, p50", baseline: percentile(results.warm, 50), unit: "ms",
                   aim: "").line(),
            Figure(name: "restarted batond to activity listed p90", value: percentile(results.activityListed, 90),
                   baselineName: "an activity change, warm link, p90", baseline: percentile(results.warm, 90), unit: "ms",
                   aim: "aim p90 ≤ 150 ms").line(),
        ]
        if !results.resumed.isEmpty {
            lines.append(Figure(name: "resumed batond to linked p50", value: percentile(results.resumed, 50),
                                baselineName: "restarted batond to linked p50", baseline: percentile(all, 50), unit: "ms",
                                aim: "").line())
            lines.append(Figure(name: "resumed batond to linked p90", value: percentile(results.resumed, 90),
                                baselineName: "restarted batond to linked p90", baseline: percentile(all, 90), unit: "ms",
                                aim: "aim p90 ≤ 150 ms").line())
            lines.append(Figure(name: "resumed batond to linked, slowest of \(results.resumed.count)", value: results.resumed.max() ?? .nan,
                                baselineName: "restarted batond to linked p90", baseline: percentile(all, 90), unit: "ms",
                                aim: "").line())
        }
        if let failure = results.resumeFailure { lines.append("resume from suspend: \(failure)") }
        lines.append("(cold start: two namespace hosts with avahi-daemon, \(results.restarts) restarts, the restarted agent dialed first in"
                     + " \(results.dialedFirst); each run ms, last-linked kept: \(format(results.withLastLinked)); Avahi only: \(format(results.avahiOnly));"
                     + " activity listed: \(format(results.activityListed)); warm link: \(format(results.warm)); resumed: \(format(results.resumed)),"
                     + " its old link dropped after: \(format(results.resumedUnlinked)),"
                     + " its address back after: \(format(results.resumedNetworkUp)),"
                     + " the resumed agent dialed in \(results.resumedDialed))")
        return lines
    }

    private static func format(_ values: [Double]) -> String { values.map { String(format: "%.1f", $0) }.joined(separator: ", ") }

    static func run() throws -> Results {
        let root = URL(fileURLWithPath: "/tmp").appendingPathComponent("baton-bench-cold-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer {
            // BATON_BENCH_LOGS=DIR keeps the agents' logs (what each resume's link check did).
            if let logs = ProcessInfo.processInfo.environment["BATON_BENCH_LOGS"] {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] where name.hasSuffix(".log") {
                    try? FileManager.default.copyItem(at: root.appendingPathComponent(name), to: URL(fileURLWithPath: logs).appendingPathComponent(name))
                }
            }
            try? FileManager.default.removeItem(at: root)
        }
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

        let (a, b) = try TestHost.pair(["/bin/sleep", "infinity"], ["/bin/sleep", "infinity"])
        var children: [BenchChild] = []
        defer {
            for child in children { child.stop() }
            a.shutDown()
            b.shutDown()
        }
        func enter(_ host: TestHost, _ name: String, _ command: [String], environment: [String: String]) throws -> BenchChild {
            let child = try host.start(name, command, environment: environment, logDirectory: root)
            children.append(child)
            return child
        }
        let stays = try enter(a, "batond-stays", agent(staying.folder, "a.sock"), environment: environment)
        _ = try BenchEvents(stays).wait { if case .agentServing = $0 { true } else { false } }
        let stayEvents = BenchEvents(stays)
        var appEnvironment = environment
        appEnvironment["BATON_DIAGNOSTICS_FD"] = nil
        let app = try enter(a, "app-stays", [URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path, "--agent-app-mode",
                                            root.appendingPathComponent("a.sock").path, "com.example.bench.cold",
                                            types.joined(separator: ","), "--advertise"],
                              environment: appEnvironment)
        try app.waitForLine("joined")
        var restarted = try enter(b, "batond-restarts", agent(restarting.folder, "b.sock"), environment: environment)
        var events = BenchEvents(restarted), offers = BenchEvents(restarted)
        _ = try events.wait { if case .linked = $0 { true } else { false } }

        let lastLinked = restarting.folder.appendingPathComponent("last-linked")
        var results = Results()
        for run in 0..<(2 * runs) {
            try stop(restarted)
            _ = try stayEvents.wait { if case .unlinked = $0 { true } else { false } }
            let avahiOnly = run % 2 == 1
            if avahiOnly { try? FileManager.default.removeItem(at: lastLinked) }
            let start = ContinuousClock.now
            restarted = try enter(b, "batond-restarts", agent(restarting.folder, "b.sock"), environment: environment)
            // Two readers: the activity may be listed before or after `linked` is published.
            events = BenchEvents(restarted)
            offers = BenchEvents(restarted)
            let (_, listening) = try events.wait { if case .listening = $0 { true } else { false } }
            let (linked, linkedAt) = try events.wait { if case .linked = $0 { true } else { false } }
            let (_, listedAt) = try offers.wait { if case .nearbyOffered = $0 { true } else { false } }
            let milliseconds = Self.milliseconds(linkedAt - start)
            if avahiOnly { results.avahiOnly.append(milliseconds) } else { results.withLastLinked.append(milliseconds) }
            results.listening.append(Self.milliseconds(listening - start))
            results.activityListed.append(Self.milliseconds(listedAt - start))
            results.restarts += 1
            if case .linked(_, dialed: true) = linked { results.dialedFirst += 1 }
        }

        // The same activity seen over the warm link: the app makes the other type current.
        for run in 0..<warmRuns {
            let type = types[(run + 1) % types.count]
            let start = ContinuousClock.now
            app.send("retype \(type)")
            let (_, listedAt) = try offers.wait { if case .nearbyOffered(type, _) = $0 { true } else { false } }
            results.warm.append(Self.milliseconds(listedAt - start))
        }

        do {
            try resume(restarted, events: events, host: b, other: a, stayEvents: stayEvents, root: root, into: &results)
        } catch {
            results.resumeFailure = "\(error)"
        }
        try stop(restarted)
        app.stop()
        try stop(stays)
        return results
    }

    /// `resumeRuns` resumes from suspend of the agent `resumed` runs on `host` (its events read
    /// by `events`), linked to the agent on `other` (read by `stayEvents`); see the type's comment.
    private static func resume(_ resumed: BenchChild, events: BenchEvents, host: TestHost, other: TestHost,
                               stayEvents: BenchEvents, root: URL, into results: inout Results) throws {
        guard let agent = TestHost.firstChild(of: resumed.pid) else { throw BenchFailure("no batond under nsenter") }
        let rules = root.appendingPathComponent("suspended.nft")
        try Data("""
            table inet suspended {
              chain input { type filter hook input priority 0; policy accept; ip saddr \(host.address) drop; }
              chain output { type filter hook output priority 0; policy accept; ip daddr \(host.address) tcp flags & rst == rst drop; }
            }

            """.utf8).write(to: rules)
        for _ in 0..<resumeRuns {
            // Suspend: the agent stops, and the other host hears nothing more from this one
            // until the agent there gives the link up (its keepalive deadline, about 20 s).
            stayEvents.skipSeen()
            events.skipSeen()
            let unlinkedEvents = BenchEvents(resumed)
            unlinkedEvents.skipSeen()
            guard kill(agent, SIGSTOP) == 0 else { throw BenchFailure("SIGSTOP: errno \(errno)") }
            var continued = false
            defer { if !continued { kill(agent, SIGCONT) } }
            try other.run(inNetwork: ["/usr/sbin/nft", "-f", rules.path])
            _ = try stayEvents.wait(timeout: .seconds(120)) { if case .unlinked = $0 { true } else { false } }
            try other.run(inNetwork: ["/usr/sbin/nft", "delete", "table", "inet", "suspended"])
            // The suspended machine's network is down (its address gone, as NetworkManager takes
            // it down before a sleep)…
            try host.run(inNetwork: ["/usr/sbin/ip", "address", "del", host.address + "/24", "dev", "veth0"])
            // …then the resume: the agent continues, and its network comes up again.
            let start = ContinuousClock.now
            kill(agent, SIGCONT)
            continued = true
            try host.run(inNetwork: ["/usr/sbin/ip", "address", "add", host.address + "/24", "dev", "veth0"])
            results.resumedNetworkUp.append(Self.milliseconds(ContinuousClock.now - start))
            // The old link's end (its drop, seen by the resumed agent), then the new link.
            let (_, unlinkedAt) = try unlinkedEvents.wait(timeout: .seconds(60)) { if case .unlinked = $0 { true } else { false } }
            results.resumedUnlinked.append(Self.milliseconds(unlinkedAt - start))
            let (linked, linkedAt) = try events.wait(timeout: .seconds(60)) { if case .linked = $0 { true } else { false } }
            results.resumed.append(Self.milliseconds(linkedAt - start))
            if case .linked(_, dialed: true) = linked { results.resumedDialed += 1 }
            _ = try stayEvents.wait { if case .linked = $0 { true } else { false } }
        }
    }

    /// Ends the agent `child` runs (SIGTERM to `nsenter`'s child, the agent) and waits until
    /// it has exited — its pidfd readable, no polling — then for `nsenter`.
    private static func stop(_ child: BenchChild) throws {
        defer { child.stop() }
        guard let agent = TestHost.firstChild(of: child.pid) else { return }
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
