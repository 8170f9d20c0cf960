import BatonContinuity
import Foundation

/// The baseline of the idle agent's CPU: one app with an embedded node (what every app ran
/// before the agent), active and advertising an activity, linked to static peers.
///
///     BatonBench --node-mode DEVICE-DIR PEER-HOST:PORT…
///
/// It prints `linked` once every static peer has been dialled; end of input ends it.
@MainActor
enum NodeMode {
    static func run(_ arguments: [String]) -> Never {
        guard let directory = arguments.first else {
            say("usage: BatonBench --node-mode DEVICE-DIR PEER-HOST:PORT…")
            exit(2)
        }
        Application.shared.manifest = PeerMode.manifest
        Application.shared.finishLaunching()
        Application.shared.activate()
        let activity = UserActivity(activityType: "com.example.bench.editing")
        activity.title = "Bench"
        activity.userInfo = ["page": 1, "text": String(repeating: "x", count: 200)]
        activity.becomeCurrent()
        do {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: URL(fileURLWithPath: directory)),
                                          staticPeers: arguments.dropFirst().compactMap { PeerAddress($0) })
            node.onFirstDialsFinished = { say("linked") }
            try node.start(host: "127.0.0.1")
            let input = StandardInputLines(atEnd: { exit(0) }) { _ in }
            withExtendedLifetime((node, activity, input)) { MainLoop.run() }
        } catch {
            say("node failed: \(error)")
        }
        exit(1)
    }
}
