import BatonContinuity
import Foundation

/// The other process of the "memory per advertised activity" figure: many devices (one node
/// each, all in this process), none advertising until the line `advertise` arrives on stdin;
/// then the app's activity becomes current and every node offers it to its peers.
@MainActor
enum FleetMode {
    static func run(devices: [URL]) -> Never {
        Application.shared.manifest = PeerMode.manifest
        Application.shared.activate()
        do {
            let nodes = try devices.map { try ContinuityNode(identity: try DeviceIdentity.load(from: $0)) }
            for node in nodes { try node.start(host: "127.0.0.1") }
            var activity: UserActivity?
            MainLoop.whenReadable(STDIN_FILENO) {
                var line = Data()
                var byte: UInt8 = 0
                while read(STDIN_FILENO, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
                guard !line.isEmpty else { exit(0) }
                if String(decoding: line, as: UTF8.self) == "advertise" {
                    let current = UserActivity(activityType: "com.example.bench.editing")
                    current.title = "Bench fleet"
                    current.becomeCurrent()
                    activity = current
                }
                return .again
            }
            say("ready " + nodes.map { "\($0.port!)" }.joined(separator: " "))
            withExtendedLifetime((nodes, activity)) { MainLoop.run() }
        } catch {
            say("fleet failed: \(error)")
        }
        exit(1)
    }
}
