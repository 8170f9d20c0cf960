import BatonContinuity
import Foundation

/// The other process of the "memory per advertised activity" figure and of the agent's memory
/// with N links (`AgentMemoryBenchmarks`): many devices (one node each, all in this process),
/// none advertising until the line `advertise` arrives on stdin; then the app's activity
/// becomes current and every node offers it to its peers. The line `flood N` makes a new
/// activity of the same type current at each of N loop turns (every node sends each to its
/// peers), then invalidates it (every node withdraws it) and prints `flooded`.
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
                let command = String(decoding: line, as: UTF8.self)
                if command == "advertise" {
                    let current = UserActivity(activityType: "com.example.bench.editing")
                    current.title = "Bench fleet"
                    current.becomeCurrent()
                    activity = current
                } else if command.hasPrefix("flood "), let turns = Int(command.dropFirst("flood ".count)) {
                    flood(turns)
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

    /// The activity of the flood now current (kept alive while current).
    private static var flooding: UserActivity?

    /// A new activity current now, then at each of `remaining - 1` loop turns more; then the
    /// last invalidated and `flooded` printed.
    private static func flood(_ remaining: Int) {
        let current = UserActivity(activityType: "com.example.bench.editing")
        current.title = "Bench fleet \(remaining)"
        current.becomeCurrent()
        flooding = current
        if remaining > 1 { MainLoop.idle { flood(remaining - 1) } } else {
            current.invalidate()
            flooding = nil
            say("flooded")
        }
    }
}
