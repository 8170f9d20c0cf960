import Baton
import BatonContinuity
import Foundation

/// `--warm`: the warm continuation between two embedded nodes alone (issue 26's aim, ≤ 2× a
/// bare GIO TLS round trip), beside the bare round trip between the same two processes,
/// alternated in blocks so both see the same machine. Each block's p50 and ratio, then the
/// medians over the blocks; and each process's thread wake-ups per continuation.
///
/// `--warm-loop S`: warm continuations only, for S seconds, printing both process ids first:
/// for `perf record -p` or `strace -c -p` on either side while it runs.
@MainActor
enum WarmBenchmarks {
    static let blocks = 9
    static let perBlock = 200

    struct Setup {
        let peer: ContinuityBenchmarks.Peer
        let echo: SecureChannel
        let node: ContinuityNode
        let continuer: ContinuityBenchmarks.Continuer
    }

    /// The peer, a warm echo channel to it, and this process's node with the peer's activity listed.
    static func start(in root: URL) throws -> Setup {
        let peer = try ContinuityBenchmarks.startPeer(in: root)
        let echo = try ContinuityBenchmarks.wait {
            try await SecureChannel.connect(host: "127.0.0.1", port: peer.echoPort, identity: peer.b, credential: peer.credential)
        }
        Application.shared.manifest = PeerMode.manifest
        let continuer = ContinuityBenchmarks.Continuer()
        Application.shared.delegate = continuer
        Application.shared.finishLaunching()
        let node = try ContinuityNode(identity: peer.b, staticPeers: [PeerAddress(host: "127.0.0.1", port: peer.nodePort)])
        try node.start(host: "127.0.0.1")
        MainLoop.run(until: { !Application.shared.nearbyActivities.isEmpty }, timeout: .seconds(30))
        guard !Application.shared.nearbyActivities.isEmpty else {
            node.stop()
            peer.stop()
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "the peer's activity was not listed"])
        }
        return Setup(peer: peer, echo: echo, node: node, continuer: continuer)
    }

    /// µs for one 256-byte request and its echo over `channel`.
    static func roundTrip(_ channel: SecureChannel) throws -> Double {
        let message = Data(repeating: 7, count: 256)
        let start = ContinuousClock.now
        try ContinuityBenchmarks.wait {
            try await channel.send(message)
            var received = 0
            while received < message.count { received += try await channel.receive(maxLength: 4096).count }
        }
        return nanosPerOp(ContinuousClock.now - start, 1) / 1000
    }

    static func run() throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let setup = try start(in: root)
        defer {
            setup.node.stop()
            setup.echo.close()
            setup.peer.stop()
        }
        // Warm both paths up first.
        for _ in 0..<100 {
            _ = try roundTrip(setup.echo)
            _ = ContinuityBenchmarks.timedContinuation(Application.shared.nearbyActivities[0], setup.continuer)
        }
        var warm: [Double] = [], rtt: [Double] = [], ratios: [Double] = [], allWarm: [Double] = [], allRTT: [Double] = []
        let processes = [("peer", setup.peer.process.processIdentifier), ("this process", getpid())]
        var wakeupsPerContinuation = processes.map { ($0.0, 0.0) }
        for block in 0..<blocks {
            let bare = try (0..<perBlock).map { _ in try roundTrip(setup.echo) }
            let before = processes.map { threadRuns(of: $0.1) }
            let continued = (0..<perBlock).map { _ in
                ContinuityBenchmarks.timedContinuation(Application.shared.nearbyActivities[0], setup.continuer)
            }
            for (index, process) in processes.enumerated() {
                wakeupsPerContinuation[index].1 += wakeups(of: process.1, since: before[index], per: perBlock) / Double(blocks)
            }
            let (w, r) = (percentile(continued, 50), percentile(bare, 50))
            warm.append(w)
            rtt.append(r)
            ratios.append(w / r)
            allWarm += continued
            allRTT += bare
            say(String(format: "block %d: warm continuation p50 %.1f µs, bare TLS round trip p50 %.1f µs, %.2f×", block + 1, w, r, w / r))
        }
        say(Figure(name: "warm continuation p50", value: percentile(allWarm, 50), baselineName: "bare TLS round trip p50",
                   baseline: percentile(allRTT, 50), unit: "µs", aim: "aim ≤ 2×").line())
        say(Figure(name: "warm continuation p99", value: percentile(allWarm, 99), baselineName: "bare TLS round trip p99",
                   baseline: percentile(allRTT, 99), unit: "µs", aim: "").line())
        say(String(format: "median of the %d blocks' ratios %.2f× (%.2f–%.2f×, %d within 2×)", blocks, percentile(ratios, 50),
                   ratios.min() ?? .nan, ratios.max() ?? .nan, ratios.filter { $0 <= 2 }.count))
        say(wakeupNote("embedded", wakeupsPerContinuation))
        if setup.continuer.failures > 0 { say("\(setup.continuer.failures) continuations failed") }
    }

    /// Warm continuations for `seconds`, for a profiler attached to either process.
    static func loop(seconds: Int) throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let setup = try start(in: root)
        defer {
            setup.node.stop()
            setup.echo.close()
            setup.peer.stop()
        }
        say("pids peer \(setup.peer.process.processIdentifier) continuing \(getpid())")
        let end = ContinuousClock.now + .seconds(seconds)
        var count = 0
        while ContinuousClock.now < end {
            _ = ContinuityBenchmarks.timedContinuation(Application.shared.nearbyActivities[0], setup.continuer)
            count += 1
        }
        say("\(count) warm continuations")
    }
}
