import BatonAgent
import BatonContinuity
import Foundation

/// The continuing app of the warm continuation figures through agents and through embedded
/// nodes, each in a process of its own, so that the agent figures can alternate blocks of one
/// with blocks of the other: both then meet the same state of the machine, in processes that
/// differ only in how they reach the other device. It continues as `ContinuityBenchmarks` does.
///
///     BatonBench --continuer-mode node DEVICE-DIR PEER-HOST:PORT   (an embedded node linked to a `PeerMode` peer)
///     BatonBench --continuer-mode agent SOCKET                     (joined to the agent at SOCKET)
///
/// It prints `ready` once the other device's activity is nearby. A line `warm N` on its input
/// continues that activity once untimed, then N times, one at a time, and prints `warm
/// T1,T2,…` (µs each, from "continue" to `restoreUserActivityState`). The untimed one takes
/// the cost of having been idle while the other path ran, so that the N are timed as in one
/// continuous run. End of input ends it.
@MainActor
enum ContinuerMode {
    static func run(_ arguments: [String]) -> Never {
        let usage = "usage: BatonBench --continuer-mode node DEVICE-DIR PEER-HOST:PORT | agent SOCKET"
        Application.shared.manifest = PeerMode.manifest
        let continuer = ContinuityBenchmarks.Continuer()
        Application.shared.delegate = continuer
        Application.shared.finishLaunching()
        do {
            let connection: AnyObject
            switch (arguments.first, arguments.count) {
            case ("node", 3):
                guard let peer = PeerAddress(arguments[2]) else { say(usage); exit(2) }
                let node = try ContinuityNode(identity: try DeviceIdentity.load(from: URL(fileURLWithPath: arguments[1])), staticPeers: [peer])
                try node.start(host: "127.0.0.1")
                connection = node
            case ("agent", 2):
                connection = AgentConnection.join(socketPath: arguments[1])
            default:
                say(usage)
                exit(2)
            }
            var commands: [String] = []
            let input = StandardInputLines(atEnd: { exit(0) }) { commands.append($0) }
            MainLoop.run(until: { !Application.shared.nearbyActivities.isEmpty }, timeout: .seconds(30))
            guard let entry = Application.shared.nearbyActivities.first else {
                say("continuer failed: the other device's activity never came")
                exit(1)
            }
            say("ready")
            withExtendedLifetime((connection, input)) {
                while true {
                    MainLoop.run(until: { !commands.isEmpty }, timeout: .seconds(3600))
                    guard !commands.isEmpty else { continue }
                    let command = commands.removeFirst()
                    guard command.hasPrefix("warm "), let count = Int(command.dropFirst("warm ".count)) else { continue }
                    _ = ContinuityBenchmarks.timedContinuation(entry, continuer)  // untimed: see above
                    let times = (0..<count).map { _ in ContinuityBenchmarks.timedContinuation(entry, continuer) }
                    if continuer.failures > 0 {  // each said by the delegate; the bench stops on it
                        FileHandle.standardError.write(Data("\(continuer.failures) continuations failed\n".utf8))
                        exit(1)
                    }
                    say("warm " + times.map { String($0) }.joined(separator: ","))
                }
            }
        } catch {
            say("continuer failed: \(error)")
        }
        exit(1)
    }
}
