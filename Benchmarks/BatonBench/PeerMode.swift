import BatonContinuity
import Foundation

/// The other process of the continuity benchmarks: device A, advertising one activity, with a
/// bare TLS echo service beside its node for the baseline. Commands on stdin: `retitle T`
/// (changes the activity's title and saves it); end of input ends the process.
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
        activity.becomeCurrent()
        do {
            let identity = try DeviceIdentity.load(from: device)
            let node = try ContinuityNode(identity: identity)
            try node.start()
            let echo = try SecureListener(identity: identity, credential: try TLSCredential(identity: identity))
            Task { @MainActor in
                while true {
                    guard let channel = try? await echo.accept() else { continue }
                    Task { @MainActor in
                        while let data = try? await channel.receive(maxLength: 4096), !data.isEmpty {
                            try? await channel.send(data)
                        }
                    }
                }
            }
            var pending = Data()
            MainLoop.whenReadable(STDIN_FILENO) {
                var byte: UInt8 = 0
                guard read(STDIN_FILENO, &byte, 1) == 1 else { exit(0) }
                if byte != UInt8(ascii: "\n") { pending.append(byte); return .again }
                let line = String(decoding: pending, as: UTF8.self)
                pending = Data()
                if line.hasPrefix("retitle ") {
                    activity.title = String(line.dropFirst("retitle ".count))
                    activity.needsSave = true
                }
                return .again
            }
            say("ready \(node.port!) \(echo.port)")
            withExtendedLifetime((node, echo)) { MainLoop.run() }
        } catch {
            say("peer failed: \(error)")
        }
        exit(1)
    }
}
