@_spi(Testing) import BatonContinuity
import Foundation
import HostSupport

/// Issue 29's rows: links beyond the LAN. Two `ContinuityNode`s in this process, on loopback,
/// linked three ways in turn — over the LAN (a static peer, TCP), over an ICE host path, and
/// through a real coturn on loopback (relay-only candidates) — each carrying the same group
/// mutual TLS. Over each: payload fetches of a 3 KB payload (the warm continuation's part that
/// crosses the link), and continuation-stream transfers of 20 MB, from first byte to last.
/// The ICE sessions exchange their descriptions in this process (the broker's part left out),
/// and each link is handed to its node as the relay connector does (`adoptLink`, SPI).
@MainActor
enum IceBenchmarks {
    static let fetches = 300
    static let streamSize = 20 * 1024 * 1024
    static let streamRuns = 3
    static let payloadSize = 3 * 1024
    static let connectDeadline: Duration = .seconds(30)

    /// The figures of one path: µs per payload fetch, MB/s per stream transfer.
    struct PathResults {
        var fetch: [Double] = []
        var stream: [Double] = []
        /// Milliseconds from the second node's start (the LAN) or the ICE sessions' creation to the
        /// other node's activity listed: one run.
        var linkUp: Double = .nan
    }

    /// The other side: serves a payload and answers a stream's request "N" with N bytes.
    final class Provider: ActivityProvider {
        var advertisementDidChange: (@MainActor () -> Void)?
        let payloadBytes = Data((0..<IceBenchmarks.payloadSize).map { UInt8($0 % 251) })
        private(set) var nearby: [NearbyActivity] = []

        func advertisement() -> ProvidedActivity? {
            ProvidedActivity(generation: 1, activityType: "com.example.bench.ice", title: "bench", appID: "com.example.bench",
                             teamIdentifier: "BENCH", webpageURL: nil, supportsContinuationStreams: true)
        }
        func payload(of activity: ProvidedActivity) async throws(ProvidedActivityError) -> Data { payloadBytes }
        func continued(_ activity: ProvidedActivity) async {}
        func canOpenStreams(for activity: ProvidedActivity) -> Bool { true }
        func acceptStreams(_ channel: any ContinuationStreamChannel, for activity: ProvidedActivity) {
            Task { @MainActor in
                do {
                    var request = Data()
                    while request.count < 32 {
                        let chunk = try await channel.read(maxLength: 64)
                        if chunk.isEmpty { break }
                        request += chunk
                    }
                    let size = min(Int(String(decoding: request, as: UTF8.self)) ?? 0, IceBenchmarks.streamSize)
                    let block = Data(repeating: 0x5a, count: 256 * 1024)
                    var sent = 0
                    while sent < size {
                        let part = min(block.count, size - sent)
                        try await channel.write(part == block.count ? block : block.prefix(part))
                        sent += part
                    }
                    try await channel.finishWriting()
                } catch {
                    channel.abort()
                }
            }
        }
        func nearbyActivitiesDidChange(_ activities: [NearbyActivity]) { nearby = activities }
        func nodeDidStart(_ node: ContinuityNode) {}
        func nodeDidStop(_ node: ContinuityNode) {}
    }

    /// How the two nodes are linked.
    enum Path {
        case lan
        case ice(IceConfiguration, IceConfiguration)
    }

    /// The rows, each beside the LAN's figure from this run; the relayed rows are replaced by
    /// a line saying why when `turnserver` is missing or the relayed link failed.
    static func lines() -> [String] {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("baton-icebench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let lan: PathResults, host: PathResults
        do {
            let authority = try GroupAuthority.create(name: "bench", in: ConfigDirectory(url: root.appendingPathComponent("admin")))
            let one = try authority.issueDevice(named: "one"), two = try authority.issueDevice(named: "two")
            let (a, b) = IceSession.Role.for(local: one.identifier, remote: two.identifier) == .controlling ? (one, two) : (two, one)
            lan = try measure(.lan, a, b)
            let loopback = IceConfiguration(hostAddresses: ["127.0.0.1"])
            host = try measure(.ice(loopback, loopback), a, b)
            var lines = [
                Figure(name: "ICE host path: payload fetch p50", value: percentile(host.fetch, 50), baselineName: "LAN (TCP) payload fetch p50",
                       baseline: percentile(lan.fetch, 50), unit: "µs", aim: "in-process nodes, loopback").line(),
                // Beside the relayed row: what pseudo-TCP gives with no relay in the path.
                Figure(name: "ICE host path: continuation stream, 20 MB", value: percentile(host.stream, 50),
                       baselineName: "LAN (TCP) continuation stream", baseline: percentile(lan.stream, 50), unit: "MB/s",
                       aim: "higher is better").line(),
            ]
            lines += relayedLines(a, b, lan: lan, root: root)
            return lines
        } catch {
            return ["ICE benchmarks failed: \(error)"]
        }
    }

    /// The relayed rows, through a coturn this starts on loopback and ends.
    static func relayedLines(_ a: DeviceIdentity, _ b: DeviceIdentity, lan: PathResults, root: URL) -> [String] {
        let turnserver = LoopbackCoturn.executable
        guard FileManager.default.isExecutableFile(atPath: turnserver) else {
            return ["relayed path: skipped (\(turnserver) missing; Debian's coturn)"]
        }
        do {
            let secret = "bench-\(UUID().uuidString)"
            let coturn = try LoopbackCoturn(secret: secret, folder: root.appendingPathComponent("coturn"))
            defer { coturn.stop() }
            let settings = RelaySettings(turn: [TURNServer(host: "127.0.0.1", port: coturn.port, transport: .udp)],
                                         turnSecret: Data(secret.utf8))
            func relayOnly(_ device: DeviceIdentity) -> IceConfiguration {
                IceConfiguration(relaySettings: settings, deviceIdentifier: device.identifier, hostAddresses: ["127.0.0.1"],
                                 relayOnly: true, gatheringDeadline: .seconds(30))
            }
            let relayed = try measure(.ice(relayOnly(a), relayOnly(b)), a, b)
            return [
                Figure(name: "relayed (coturn): payload fetch p50", value: percentile(relayed.fetch, 50),
                       baselineName: "LAN (TCP) payload fetch p50", baseline: percentile(lan.fetch, 50), unit: "µs",
                       aim: "in-process nodes, coturn on loopback").line(),
                Figure(name: "relayed: continuation stream, 20 MB", value: percentile(relayed.stream, 50),
                       baselineName: "LAN (TCP) continuation stream", baseline: percentile(lan.stream, 50), unit: "MB/s",
                       aim: "higher is better").line(),
                Figure(name: "relayed: ICE start to activity listed", value: relayed.linkUp,
                       baselineName: "LAN: node start to activity listed", baseline: lan.linkUp, unit: "ms",
                       aim: "one run; gathering, checks, TLS, D-Bus").line(),
            ]
        } catch {
            return ["relayed path failed: \(error)"]
        }
    }

    /// Links `a` (the controlling side over ICE, and the dialing side on the LAN) and `b` over
    /// `path`, then times payload fetches and, when `stream`, continuation-stream transfers.
    static func measure(_ path: Path, _ a: DeviceIdentity, _ b: DeviceIdentity, stream: Bool = true) throws -> PathResults {
        let providerA = Provider(), providerB = Provider()
        let nodeB = try ContinuityNode(identity: b, provider: providerB)
        try nodeB.start(host: "127.0.0.1", discovery: .off)
        defer { nodeB.stop() }
        var sessions: [IceSession] = []
        defer { for session in sessions { session.close() } }
        let nodeA: ContinuityNode
        let linking = ContinuousClock.now
        switch path {
        case .lan:
            guard let port = nodeB.port else { throw CocoaError(.featureUnsupported) }
            nodeA = try ContinuityNode(identity: a, staticPeers: [PeerAddress(host: "127.0.0.1", port: port)], provider: providerA)
            try nodeA.start(host: "127.0.0.1", discovery: .off)
        case .ice(let first, let second):
            nodeA = try ContinuityNode(identity: a, provider: providerA)
            try nodeA.start(host: "127.0.0.1", discovery: .off)
            let iceA = try IceSession(configuration: first, role: .controlling), iceB = try IceSession(configuration: second, role: .controlled)
            sessions = [iceA, iceB]
            let deadline = connectDeadline
            let (channelA, channelB, iceStream) = try ContinuityBenchmarks.wait { () async throws -> (SecureChannel, SecureChannel, IceStream) in
                async let offer = iceA.localDescription()
                async let answer = iceB.localDescription()
                let (offerBytes, answerBytes) = try await (offer.encoded(), answer.encoded())
                async let streamA = iceA.connect(remote: try IceDescription.decode(answerBytes), deadline: deadline)
                async let streamB = iceB.connect(remote: try IceDescription.decode(offerBytes), deadline: deadline)
                let (sa, sb) = try await (streamA, streamB)
                async let channelA = SecureChannel.open(over: sa, role: .controlling, identity: a, credential: try TLSCredential(identity: a))
                async let channelB = SecureChannel.open(over: sb, role: .controlled, identity: b, credential: try TLSCredential(identity: b))
                return (try await channelA, try await channelB, sa)
            }
            let linkPath = LinkPath.ice(iceStream.path)
            let adopted = try ContinuityBenchmarks.wait { () async -> Bool in
                async let linkedA = nodeA.adoptLink(channelA, path: linkPath)
                async let linkedB = nodeB.adoptLink(channelB, path: linkPath)
                let (first, second) = await (linkedA, linkedB)
                return first && second
            }
            guard adopted else { throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "D-Bus over ICE failed"]) }
        }
        defer { nodeA.stop() }
        MainLoop.run(until: { !providerA.nearby.isEmpty }, timeout: .seconds(60))
        guard let activity = providerA.nearby.first else {
            throw CocoaError(.featureUnsupported, userInfo: [NSLocalizedDescriptionKey: "the other node's activity never arrived"])
        }
        var results = PathResults()
        results.linkUp = nanosPerOp(ContinuousClock.now - linking, 1) / 1_000_000
        for _ in 0..<fetches {
            let start = ContinuousClock.now
            let payload = try ContinuityBenchmarks.wait { try await nodeA.fetchPayload(of: activity) }
            results.fetch.append(nanosPerOp(ContinuousClock.now - start, 1) / 1000)
            guard payload.count == payloadSize else { throw CocoaError(.fileReadCorruptFile) }
        }
        guard stream else { return results }
        for _ in 0..<streamRuns {
            let seconds = try ContinuityBenchmarks.wait { () async throws -> Double in
                let channel = try await nodeA.openStreams(for: activity)
                defer { channel.close() }
                let start = ContinuousClock.now
                try await channel.write(Data("\(streamSize)".utf8))
                try await channel.finishWriting()
                return try await ContinuityBenchmarks.drain(streamSize, from: { try await channel.read(maxLength: 256 * 1024) }, since: start).1
            }
            results.stream.append(Double(streamSize) / seconds / 1_000_000)
        }
        return results
    }
}
