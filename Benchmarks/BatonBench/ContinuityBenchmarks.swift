import BatonContinuity
import CGLib
import Foundation

/// Layer 4: continuing an activity from another process over the group's mutual TLS link,
/// beside bare GIO TLS round trips between the same two processes.
@MainActor
enum ContinuityBenchmarks {
    static let handoffs = 1_000
    static let coldRuns = 20

    final class Restorer: UserActivityRestoring {
        var restored = 0
        var last: UserActivity?
        func restoreUserActivityState(_ userActivity: UserActivity) {
            restored += 1
            last = userActivity
        }
    }

    final class Continuer: ApplicationDelegate {
        let restorer = Restorer()
        var failures = 0
        func application(_ application: Application, continue userActivity: UserActivity,
                         restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
            restorationHandler([restorer])
            return true
        }
        func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
            failures += 1
            say("continuation failed: \(error)")
        }
    }

    struct Results {
        var warm: [Double] = [], rtt: [Double] = [], cold: [Double] = [], handshakeRTT: [Double] = []
        /// The cold continuation's parts: a new node until the activity is nearby, then "continue" to the restore.
        var coldToNearby: [Double] = [], coldContinue: [Double] = []
        /// A bare D-Bus method call round trip over mutual TLS (GDBus's own floor).
        var dbusRTT: [Double] = []
        var propagation: [Double] = [], propagationRTT: [Double] = []
        var bytesPerLink: Double = 0
        var bytesPerAdvertised: Double = 0, advertisedWireBytes: Double = 0
        /// MB/s for 100 MB, first byte to last, and milliseconds to the first byte.
        var streamThroughput: [Double] = [], bareThroughput: [Double] = []
        var streamFirstByte: [Double] = [], firstByteRTT: [Double] = []
        /// Thread wake-ups per warm continuation, by process.
        var warmWakeups: [(String, Double)] = []
    }

    /// The other device, `BatonBench --peer-mode` (`PeerMode`), started for device A of a new
    /// group in `root`; B's identity and credential for this process.
    struct Peer {
        let process: Process
        let input: Pipe
        let b: DeviceIdentity
        let credential: TLSCredential
        let authority: GroupAuthority
        let nodePort: UInt16, echoPort: UInt16, bulkPort: UInt16, dbusPort: UInt16

        /// Ends the peer (its input closes) and waits for it.
        func stop() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }

    static func startPeer(in root: URL) throws -> Peer {
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
        var readyLine = readLine(fromPeer.fileHandleForReading)
        while !readyLine.hasPrefix("ready") && !readyLine.isEmpty { readyLine = readLine(fromPeer.fileHandleForReading) }
        let ready = readyLine.split(separator: " ")
        Thread.detachNewThread { let rest = fromPeer.fileHandleForReading.readDataToEndOfFile(); FileHandle.standardError.write(rest) }
        guard ready.count == 5, ready[0] == "ready", let nodePort = UInt16(ready[1]), let echoPort = UInt16(ready[2]),
              let bulkPort = UInt16(ready[3]), let dbusPort = UInt16(ready[4]) else {
            try? toPeer.fileHandleForWriting.close()
            peer.waitUntilExit()
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "peer did not start"])
        }
        return Peer(process: peer, input: toPeer, b: b, credential: credential, authority: authority,
                    nodePort: nodePort, echoPort: echoPort, bulkPort: bulkPort, dbusPort: dbusPort)
    }

    static func run() throws -> Results {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let started = try startPeer(in: root)
        defer { started.stop() }
        let (peer, toPeer, authority, b, credential) = (started.process, started.input, started.authority, started.b, started.credential)
        let (nodePort, echoPort, bulkPort, dbusPort) = (started.nodePort, started.echoPort, started.bulkPort, started.dbusPort)
        var results = Results()

        // Bare TLS: one 256-byte request and its echo, over a warm mutual-TLS connection.
        let echo = try wait { try await SecureChannel.connect(host: "127.0.0.1", port: echoPort, identity: b, credential: credential) }
        let message = Data(repeating: 7, count: 256)
        func roundTrip(_ channel: SecureChannel) throws -> Double {
            let start = ContinuousClock.now
            try wait {
                try await channel.send(message)
                var received = 0
                while received < message.count { received += try await channel.receive(maxLength: 4096).count }
            }
            return nanosPerOp(ContinuousClock.now - start, 1) / 1000
        }
        for _ in 0..<handoffs { results.rtt.append(try roundTrip(echo)) }
        let dbusChannel = try wait { try await SecureChannel.connect(host: "127.0.0.1", port: dbusPort, identity: b, credential: credential) }
        let bus = try wait { try await PeerBus.open(over: dbusChannel) }
        bus.startMessageProcessing()
        for _ in 0..<handoffs {
            let start = ContinuousClock.now
            try wait { try await bus.ping() }
            results.dbusRTT.append(nanosPerOp(ContinuousClock.now - start, 1) / 1000)
        }
        bus.close()

        // Warm continuation: "continue" to restoreUserActivityState, the link already up.
        Application.shared.manifest = PeerMode.manifest
        let continuer = Continuer()
        Application.shared.delegate = continuer
        Application.shared.finishLaunching()
        let node = try ContinuityNode(identity: b, staticPeers: [PeerAddress(host: "127.0.0.1", port: nodePort)])
        try node.start(host: "127.0.0.1")
        MainLoop.run(until: { !Application.shared.nearbyActivities.isEmpty }, timeout: .seconds(30))
        let wakeupsBefore = [peer.processIdentifier, getpid()].map { threadRuns(of: $0) }
        for _ in 0..<handoffs { results.warm.append(timedContinuation(Application.shared.nearbyActivities[0], continuer)) }
        results.warmWakeups = zip([("peer", peer.processIdentifier), ("this process", getpid())], wakeupsBefore).map {
            ($0.0.0, wakeups(of: $0.0.1, since: $0.1, per: handoffs))
        }

        // Continuation streams: 100 MB from A, beside a bare TLS connection sending as much;
        // time from getContinuationStreams to the first byte of a small answer (a request and
        // its response, as the guide has them), each beside a bare round trip taken right after:
        // `firstByteRuns` of them, so that one slow wake-up on a loaded machine is not the median.
        if let continued = continuer.restorer.last {
            for _ in 0..<firstByteRuns {
                results.streamFirstByte.append(try streamTransfer(continued, size: firstByteSize).firstByte)
                results.firstByteRTT.append(try roundTrip(echo) / 1000)
            }
            let size = streamSize
            for _ in 0..<streamRuns {
                let (_, throughput) = try streamTransfer(continued)
                results.streamThroughput.append(throughput)
                let (_, bareSeconds) = try wait { () async throws -> (Double, Double) in
                    let channel = try await SecureChannel.connect(host: "127.0.0.1", port: bulkPort, identity: b, credential: credential)
                    let start = ContinuousClock.now
                    try await channel.send(Data("\(size)\n".utf8))
                    defer { channel.close() }
                    return try await drain(size, from: { try await channel.receive(maxLength: 256 * 1024) }, since: start)
                }
                results.bareThroughput.append(Double(size) / bareSeconds / 1_000_000)
            }
        }

        // Advertisement propagation: a save on A that changes the title, to the entry on B.
        for i in 0..<50 {
            let title = "title \(i)"
            let start = ContinuousClock.now
            toPeer.fileHandleForWriting.write(Data("retitle \(title)\n".utf8))
            MainLoop.run(until: { Application.shared.nearbyActivities.first?.title == title }, timeout: .seconds(30))
            results.propagation.append(nanosPerOp(ContinuousClock.now - start, 1) / 1000)
            results.propagationRTT.append(try roundTrip(echo))
        }
        node.stop()

        // Cold continuation: no link yet; beside a bare TLS handshake plus one round trip.
        coldContinuations(started, continuer, into: &results)

        // Memory per link: resident size before and after 50 more mutual-TLS links to A.
        let links = 50
        let residentBefore = residentBytes()
        var channels: [SecureChannel] = []
        for _ in 0..<links {
            channels.append(try wait { try await SecureChannel.connect(host: "127.0.0.1", port: echoPort, identity: b, credential: credential) })
        }
        results.bytesPerLink = Double(residentBytes() - residentBefore) / Double(links)
        withExtendedLifetime(channels) {}
        for channel in channels { channel.close() }
        try advertisedActivityMemory(authority: authority, identity: b, root: root, into: &results)
        if continuer.failures > 0 { say("\(continuer.failures) continuations failed") }
        return results
    }

    /// The cold continuations, `runs` of them: a new node, linking to the peer, and
    /// continuing its activity, from nothing to `restoreUserActivityState`; each beside a bare
    /// TLS connection to the peer (its admission gate and handshake) and one round trip over it.
    static func coldContinuations(_ peer: Peer, _ continuer: Continuer, runs: Int = coldRuns, into results: inout Results) {
        let address = PeerAddress(host: "127.0.0.1", port: peer.nodePort)
        for _ in 0..<runs {
            let start = ContinuousClock.now
            guard let node = try? ContinuityNode(identity: peer.b, staticPeers: [address]), (try? node.start(host: "127.0.0.1")) != nil else {
                say("a cold node did not start")
                return
            }
            MainLoop.run(until: { !Application.shared.nearbyActivities.isEmpty }, timeout: .seconds(30))
            let nearby = ContinuousClock.now
            let before = continuer.restorer.restored
            Application.shared.continueNearbyActivity(Application.shared.nearbyActivities[0])
            MainLoop.run(until: { continuer.restorer.restored > before }, timeout: .seconds(30))
            let end = ContinuousClock.now
            results.cold.append(nanosPerOp(end - start, 1) / 1000)
            results.coldToNearby.append(nanosPerOp(nearby - start, 1) / 1000)
            results.coldContinue.append(nanosPerOp(end - nearby, 1) / 1000)
            node.stop()
            let handshake = ContinuousClock.now
            guard let fresh = try? wait({ try await SecureChannel.connect(host: "127.0.0.1", port: peer.echoPort, identity: peer.b,
                                                                          credential: peer.credential) }) else {
                say("a bare TLS connection failed")
                return
            }
            let message = Data(repeating: 7, count: 256)
            _ = try? wait {
                try await fresh.send(message)
                var received = 0
                while received < message.count { received += try await fresh.receive(maxLength: 4096).count }
            }
            results.handshakeRTT.append(nanosPerOp(ContinuousClock.now - handshake, 1) / 1000)
            fresh.close()
        }
    }

    /// `--handshake`'s and `--quick`'s continuity part: the peer, and `runs` cold continuations alone.
    static func coldOnly(runs: Int = coldRuns) throws -> Results {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let peer = try startPeer(in: root)
        defer { peer.stop() }
        Application.shared.manifest = PeerMode.manifest
        let continuer = Continuer()
        Application.shared.delegate = continuer
        Application.shared.finishLaunching()
        var results = Results()
        coldContinuations(peer, continuer, runs: runs, into: &results)
        if continuer.failures > 0 { say("\(continuer.failures) continuations failed") }
        return results
    }

    /// The cold continuation's rows: the whole, beside GIO's handshake and a round trip
    /// (issue 30's aim), and its two parts (linking, then continuing).
    static func coldFigures(_ results: Results) -> [Figure] {
        [
            Figure(name: "cold continuation p50", value: percentile(results.cold, 50), baselineName: "TLS handshake + round trip p50",
                   baseline: percentile(results.handshakeRTT, 50), unit: "µs", aim: "aim ≤ 1.3×"),
            Figure(name: "cold: new node to nearby p50", value: percentile(results.coldToNearby, 50),
                   baselineName: "TLS handshake + round trip p50", baseline: percentile(results.handshakeRTT, 50), unit: "µs", aim: ""),
            Figure(name: "cold: continue to restore p50", value: percentile(results.coldContinue, 50),
                   baselineName: "TLS handshake + round trip p50", baseline: percentile(results.handshakeRTT, 50), unit: "µs", aim: ""),
        ]
    }

    /// Heap per advertised activity on the receiving device: 50 devices (another process) are
    /// linked to B with nothing advertised, then all advertise; the heap grows by what B keeps
    /// per entry. Beside: the bytes of one entry's metadata on the wire.
    static func advertisedActivityMemory(authority: GroupAuthority, identity b: DeviceIdentity, root: URL,
                                         into results: inout Results) throws {
        let count = 50
        let folders = try (0..<count).map { index in
            let folder = root.appendingPathComponent("fleet-\(index)")
            try authority.issueDevice(named: "F\(index)").write(to: folder)
            return folder.path
        }
        let fleet = Process()
        fleet.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        fleet.arguments = ["--fleet-mode"] + folders
        let toFleet = Pipe(), fromFleet = Pipe()
        fleet.standardInput = toFleet
        fleet.standardOutput = fromFleet
        try fleet.run()
        defer { try? toFleet.fileHandleForWriting.close(); fleet.waitUntilExit() }
        let ready = readLine(fromFleet.fileHandleForReading).split(separator: " ")
        guard ready.first == "ready", ready.count == count + 1 else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "fleet did not start"])
        }
        let node = try ContinuityNode(identity: b, staticPeers: ready.dropFirst().map { PeerAddress(host: "127.0.0.1", port: UInt16($0)!) })
        var linked = false
        node.onFirstDialsFinished = { linked = true }  // every link up and asked for its current activity
        try node.start(host: "127.0.0.1")
        defer { node.stop() }
        MainLoop.run(until: { linked }, timeout: .seconds(60))
        settle()
        let before = heapBytes()
        toFleet.fileHandleForWriting.write(Data("advertise\n".utf8))
        MainLoop.run(until: { Application.shared.nearbyActivities.count == count }, timeout: .seconds(60))
        settle()
        results.bytesPerAdvertised = Double(heapBytes() - before) / Double(count)
        if let entry = Application.shared.nearbyActivities.first {
            let metadata: [String: Variant] = [
                "sequence": .uint64(entry.sequence), "type": .string(entry.activityType), "app": .string(entry.appID),
                "team": .string(entry.teamIdentifier), "title": .string(entry.title ?? ""),
            ]
            results.advertisedWireBytes = Double((try? Variant.dictionary(metadata).serialized().count) ?? 0)
        }
    }

    /// Lets everything already queued on the loop run (and release what it held).
    static func settle() {
        var done = false
        MainLoop.idle(priority: LoopPriority(LoopPriority.low.rawValue + 100)) { done = true }
        MainLoop.run(until: { done }, timeout: .seconds(10))
    }

    /// Bytes allocated on the heap now (glibc `mallinfo2`).
    static func heapBytes() -> Int { Int(baton_heap_bytes_in_use()) }

    static let streamSize = 100 * 1024 * 1024
    static let streamRuns = 3
    /// The small answers timed to their first byte, and their size.
    static let firstByteRuns = 15
    static let firstByteSize = 1000

    /// One transfer over `continued`'s continuation streams: asks the originating app for
    /// `size` bytes (`send N`, answered by `StreamServer`) and reads them all. Returns
    /// milliseconds from `continuationStreams()` to the first byte, and MB/s first byte to last.
    static func streamTransfer(_ continued: UserActivity, size: Int = streamSize) throws -> (firstByte: Double, throughput: Double) {
        let (opened, firstByte, seconds) = try wait { () async throws -> (Double, Double, Double) in
            let start = ContinuousClock.now
            let (input, output) = try await continued.continuationStreams()
            let opened = nanosPerOp(ContinuousClock.now - start, 1) / 1_000_000
            try await output.write(Data("send \(size)".utf8))
            try await output.close()
            let (firstByte, seconds) = try await drain(size, from: { try await input.read(maxLength: 256 * 1024) }, since: start)
            return (opened, firstByte, seconds)
        }
        streamOpened.append(opened)
        return (firstByte, Double(size) / seconds / 1_000_000)
    }

    /// Milliseconds from `continuationStreams()` to its return, for each `streamTransfer` (the
    /// rest of the time to the first byte is the request, its end, and the answer's start).
    static var streamOpened: [Double] = []

    /// Reads `size` bytes with `read`; returns milliseconds from `start` to the first byte and
    /// seconds from the first byte to the last.
    static func drain(_ size: Int, from read: () async throws -> Data, since start: ContinuousClock.Instant) async throws -> (Double, Double) {
        var received = 0
        var first: ContinuousClock.Instant?
        while received < size {
            let chunk = try await read()
            guard !chunk.isEmpty else { throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "short stream"]) }
            if first == nil { first = ContinuousClock.now }
            received += chunk.count
        }
        let firstByte = first ?? ContinuousClock.now
        return (nanosPerOp(firstByte - start, 1) / 1_000_000, nanosPerOp(ContinuousClock.now - firstByte, 1) / 1_000_000_000)
    }

    /// One warm continuation of `entry` by this process's app (whose delegate is `continuer`):
    /// µs from "continue" to `restoreUserActivityState`. It returns once the continuation has
    /// ended (the other device acknowledged `Continued`), so the next starts after it, as a
    /// person continues one activity at a time; that wait is not timed.
    static func timedContinuation(_ entry: NearbyActivity, _ continuer: Continuer) -> Double {
        let before = continuer.restorer.restored
        let start = ContinuousClock.now
        var finished = false
        Application.shared.continueNearbyActivity(entry) { finished = true }
        MainLoop.run(until: { continuer.restorer.restored > before || continuer.failures > 0 }, timeout: .seconds(30))
        let time = nanosPerOp(ContinuousClock.now - start, 1) / 1000
        MainLoop.run(until: { finished }, timeout: .seconds(30))
        return time
    }

    /// Runs an async call to completion on the GLib loop.
    static func wait<T>(_ body: @escaping @MainActor () async throws -> T) throws -> T {
        var outcome: Result<T, Error>?
        Task { @MainActor in
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        }
        MainLoop.run(until: { outcome != nil }, timeout: .seconds(60))
        guard let outcome else { throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "timed out"]) }
        return try outcome.get()
    }

    static func readLine(_ handle: FileHandle) -> String {
        var line = Data()
        while let byte = try? handle.read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") { line.append(first) }
        return String(decoding: line, as: UTF8.self)
    }

    static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
              let pages = Int(statm.split(separator: " ")[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// The `p`th percentile (0–100) of `values`.
func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p / 100).rounded()))]
}
