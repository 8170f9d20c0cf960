import BatonContinuity
import Foundation

/// The continuing app of the embedded path, in a process of its own, so that the agent
/// figures can alternate blocks of warm continuations through embedded nodes with blocks
/// through the agents: both then meet the same state of the machine. An app with an embedded
/// node linked to a `PeerMode` peer, continuing as `ContinuityBenchmarks` does.
///
///     BatonBench --continuer-mode DEVICE-DIR PEER-HOST:PORT
///
/// It prints `ready` once the peer's activity is nearby. A line `warm N` on its input
/// continues that activity N times, one at a time, and prints `warm T1,T2,…` (µs each, from
/// "continue" to `restoreUserActivityState`). End of input ends it.
@MainActor
enum ContinuerMode {
    static func run(_ arguments: [String]) -> Never {
        guard arguments.count == 2, let peer = PeerAddress(arguments[1]) else {
            say("usage: BatonBench --continuer-mode DEVICE-DIR PEER-HOST:PORT")
            exit(2)
        }
        Application.shared.manifest = PeerMode.manifest
        let continuer = ContinuityBenchmarks.Continuer()
        Application.shared.delegate = continuer
        Application.shared.finishLaunching()
        do {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: URL(fileURLWithPath: arguments[0])), staticPeers: [peer])
            try node.start()
            var commands: [String] = []
            let input = StandardInputLines(atEnd: { exit(0) }) { commands.append($0) }
            MainLoop.run(until: { !Application.shared.nearbyActivities.isEmpty }, timeout: .seconds(30))
            guard let entry = Application.shared.nearbyActivities.first else {
                say("continuer failed: the peer's activity never came")
                exit(1)
            }
            say("ready")
            withExtendedLifetime((node, input)) {
                while true {
                    MainLoop.run(until: { !commands.isEmpty }, timeout: .seconds(3600))
                    guard !commands.isEmpty else { continue }
                    let command = commands.removeFirst()
                    guard command.hasPrefix("warm "), let count = Int(command.dropFirst("warm ".count)) else { continue }
                    let times = (0..<count).map { _ in ContinuityBenchmarks.timedContinuation(entry, continuer) }
                    say("warm " + times.map { String($0) }.joined(separator: ","))
                }
            }
        } catch {
            say("continuer failed: \(error)")
        }
        exit(1)
    }
}
