import Baton
import BatonContinuity
import Foundation

/// `BatonBench --quick`: issue 30's figures in under two minutes, each beside its baseline from
/// the same run, so a developer checks a change before landing it: payload coding, one-shot
/// `MainLoop.idle`, the main actor's and the main queue's chains, the cross-thread
/// `MainActor.run`, and the cold continuation.
@MainActor
enum QuickBenchmarks {
    /// Cold continuations measured by `--quick` (the full run takes `ContinuityBenchmarks.coldRuns`).
    static let coldRuns = 10

    /// Measures the loop's rows (`LoopBenchmarks.runAlone`), then the coding and
    /// cold-continuation rows, prints them all; the `dispatchMain()` baselines come last and end
    /// the process.
    static func run() -> Never {
        say("Baton quick benchmarks (release build, \(ProcessInfo.processInfo.activeProcessorCount) cores); lower is better")
        LoopBenchmarks.runAlone {
            var figures = ActivityBenchmarks.codingFigures()
            do {
                let (cold, handshake) = try coldContinuations(coldRuns)
                figures.append(Figure(name: "cold continuation p50", value: percentile(cold, 50) / 1000,
                                      baselineName: "TLS handshake + round trip p50", baseline: percentile(handshake, 50) / 1000,
                                      unit: "ms", aim: "aim ≤ 1.3×"))
            } catch {
                say("cold continuation failed: \(error)")
            }
            return figures
        }
    }

    /// `runs` continuations from a peer process with no link up yet (a fresh node each time),
    /// each beside a bare mutual-TLS handshake to the same process plus one 256-byte round trip:
    /// microseconds, as `ContinuityBenchmarks.run()` measures its cold continuation.
    static func coldContinuations(_ runs: Int) throws -> (cold: [Double], handshake: [Double]) {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let authority = try GroupAuthority.create(name: "bench", in: ConfigDirectory(url: root.appendingPathComponent("admin")))
        try authority.issueDevice(named: "A").write(to: root.appendingPathComponent("A"))
        let b = try authority.issueDevice(named: "B")
        let credential = try TLSCredential(identity: b)

        let peer = Process()
        peer.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        peer.arguments = ["--peer-mode", root.appendingPathComponent("A").path]
        let toPeer = Pipe(), fromPeer = Pipe()
        peer.standardInput = toPeer
        peer.standardOutput = fromPeer
        try peer.run()
        defer { try? toPeer.fileHandleForWriting.close(); peer.waitUntilExit() }
        var readyLine = ContinuityBenchmarks.readLine(fromPeer.fileHandleForReading)
        while !readyLine.hasPrefix("ready") && !readyLine.isEmpty { readyLine = ContinuityBenchmarks.readLine(fromPeer.fileHandleForReading) }
        let ready = readyLine.split(separator: " ")
        Thread.detachNewThread { let rest = fromPeer.fileHandleForReading.readDataToEndOfFile(); FileHandle.standardError.write(rest) }
        guard ready.count == 5, let nodePort = UInt16(ready[1]), let echoPort = UInt16(ready[2]) else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "peer did not start"])
        }

        Application.shared.manifest = PeerMode.manifest
        let continuer = ContinuityBenchmarks.Continuer()
        Application.shared.delegate = continuer
        Application.shared.finishLaunching()
        let message = Data(repeating: 7, count: 256)
        var cold: [Double] = [], handshake: [Double] = []
        for _ in 0..<runs {
            let start = ContinuousClock.now
            let node = try ContinuityNode(identity: b, staticPeers: [PeerAddress(host: "127.0.0.1", port: nodePort)])
            try node.start(host: "127.0.0.1")
            MainLoop.run(until: { !Application.shared.nearbyActivities.isEmpty }, timeout: .seconds(30))
            guard let entry = Application.shared.nearbyActivities.first else {
                node.stop()
                throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "no activity from the peer"])
            }
            let before = continuer.restorer.restored
            Application.shared.continueNearbyActivity(entry)
            MainLoop.run(until: { continuer.restorer.restored > before || continuer.failures > 0 }, timeout: .seconds(30))
            cold.append(nanosPerOp(ContinuousClock.now - start, 1) / 1000)
            node.stop()

            let bare = ContinuousClock.now
            let channel = try ContinuityBenchmarks.wait {
                try await SecureChannel.connect(host: "127.0.0.1", port: echoPort, identity: b, credential: credential)
            }
            try ContinuityBenchmarks.wait {
                try await channel.send(message)
                var received = 0
                while received < message.count { received += try await channel.receive(maxLength: 4096).count }
            }
            handshake.append(nanosPerOp(ContinuousClock.now - bare, 1) / 1000)
            channel.close()
        }
        if continuer.failures > 0 { say("\(continuer.failures) continuations failed") }
        return (cold, handshake)
    }
}
