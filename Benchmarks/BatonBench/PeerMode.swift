import BatonContinuity
import Foundation

/// The other process of the continuity benchmarks: device A, advertising one activity, with
/// bare TLS services beside its node for the baselines: an echo, a bulk sender that answers
/// a line `N` with N bytes, and bare D-Bus peer-to-peer. The activity supports continuation streams and answers a request
/// `send N` the same way. Commands on stdin: `retitle T` (changes the activity's title and
/// saves it); end of input ends the process.
@MainActor
enum PeerMode {
    static let manifest = AppManifest(appID: "com.example.bench", teamIdentifier: "BENCH",
                                      activityTypes: ["com.example.bench.editing"])

    static func run(device: URL) -> Never {
        Application.shared.manifest = manifest
        Application.shared.activate()
        let activity = UserActivity(activityType: "com.example.bench.editing")
        activity.title = "Bench"
        activity.userInfo = ["page": 1, "text": String(repeating: "x", count: 200)]
        activity.supportsContinuationStreams = true
        let streamServer = StreamServer()
        activity.delegate = streamServer
        activity.becomeCurrent()
        do {
            let identity = try DeviceIdentity.load(from: device)
            let node = try ContinuityNode(identity: identity)
            try node.start(host: "127.0.0.1")
            let echo = try SecureListener(identity: identity, credential: try TLSCredential(identity: identity))
            Task { @MainActor in
                while true {
                    guard let channel = try? await echo.accept() else { continue }
                    channel.authenticated()  // else the listener's handshake deadline closes it
                    Task { @MainActor in
                        while let data = try? await channel.receive(maxLength: 4096), !data.isEmpty {
                            try? await channel.send(data)
                        }
                    }
                }
            }
            let bulk = try SecureListener(identity: identity, credential: try TLSCredential(identity: identity))
            Task { @MainActor in
                while true {
                    guard let channel = try? await bulk.accept() else { continue }
                    channel.authenticated()
                    Task { @MainActor in
                        var request = Data()
                        while !request.contains(UInt8(ascii: "\n")), let data = try? await channel.receive(maxLength: 64), !data.isEmpty {
                            request.append(data)
                        }
                        let count = Int(String(decoding: request, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                        try? await StreamServer.send(count, write: { try await channel.send($0) })
                        try? await channel.finishWriting()
                    }
                }
            }
            // Bare D-Bus peer-to-peer over mutual TLS: GDBus answers Peer.Ping by itself.
            let dbus = try SecureListener(identity: identity, credential: try TLSCredential(identity: identity))
            var buses: [PeerBus] = []
            Task { @MainActor in
                while true {
                    guard let channel = try? await dbus.accept(), let bus = try? await PeerBus.open(over: channel) else { continue }
                    bus.startMessageProcessing()
                    buses.append(bus)
                }
            }
            let input = StandardInputLines(atEnd: { exit(0) }) { line in
                if line.hasPrefix("retitle ") {
                    activity.title = String(line.dropFirst("retitle ".count))
                    activity.needsSave = true
                }
            }
            say("ready \(node.port!) \(echo.port) \(bulk.port) \(dbus.port)")
            withExtendedLifetime((node, echo, bulk, dbus, streamServer, input)) { MainLoop.run() }
        } catch {
            say("peer failed: \(error)")
        }
        exit(1)
    }
}

/// Answers a continuation stream request `send N` with N bytes.
@MainActor
final class StreamServer: UserActivityDelegate {
    static let chunk = Data(count: 256 * 1024)

    static func send(_ count: Int, write: (Data) async throws -> Void) async throws {
        var sent = 0
        while sent < count {
            let size = min(chunk.count, count - sent)
            try await write(size == chunk.count ? chunk : chunk.prefix(size))
            sent += size
        }
    }

    func userActivity(_ userActivity: UserActivity, didReceive inputStream: ContinuationInputStream,
                      outputStream: ContinuationOutputStream) {
        Task { @MainActor in
            let request = String(decoding: (try? await inputStream.readToEnd(limit: 1024)) ?? Data(), as: UTF8.self)
            let count = Int(request.split(separator: " ").last ?? "") ?? 0
            try? await StreamServer.send(count, write: { try await outputStream.write($0) })
            try? await outputStream.close()
        }
    }
}
