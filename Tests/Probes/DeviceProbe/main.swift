// A device that misbehaves when asked for its activity's payload, for the failure tests:
//
//     DeviceProbe DIR (--stall | --die | --oversize | --team TEAM | --ok) [--peer HOST:PORT]
//
// The line `replace` on standard input replaces the advertised activity with a new one.
//
// It advertises one activity of type com.example.probe.editing; the payload's save (the
// activity delegate's userActivityWillSave) then hangs the main thread, exits the process,
// or makes the payload too large.
import BatonContinuity
import Foundation

final class Misbehaviour: UserActivityDelegate {
    let mode: String
    init(mode: String) { self.mode = mode }

    func userActivityWillSave(_ userActivity: UserActivity) {
        say("saving for a fetch")
        switch mode {
        case "--stall":
            say("stalling")
            while true { pause() }  // the app hangs; its TCP connection stays open
        case "--die":
            say("dying")
            exit(3)
        case "--oversize":
            userActivity.userInfo = ["blob": Data(count: UserActivity.payloadLimit + 1)]
        default:
            break
        }
    }
}

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    say("usage: DeviceProbe DIR (--stall | --die | --oversize | --team TEAM | --ok)")
    exit(2)
}
let mode = arguments[1]
let team = mode == "--team" && arguments.count > 2 ? arguments[2] : "PROBETEAM"

MainActor.assumeIsolated {
    let misbehaviour = Misbehaviour(mode: mode)
    Application.shared.manifest = AppManifest(appID: "com.example.probe", teamIdentifier: team,
                                              activityTypes: ["com.example.probe.editing"])
    Application.shared.activate()
    let activity = UserActivity(activityType: "com.example.probe.editing")
    activity.title = "Probe"
    activity.delegate = misbehaviour
    activity.becomeCurrent()
    do {
        let peers = arguments.indices.filter { arguments[$0] == "--peer" && $0 + 1 < arguments.count }
            .compactMap { PeerAddress(arguments[$0 + 1]) }
        let directory = URL(fileURLWithPath: arguments[0])
        let node = try ContinuityNode(identity: try DeviceIdentity.load(from: directory), identityDirectory: directory,
                                      staticPeers: peers)
        try node.start()
        var current = activity
        MainLoop.whenReadable(STDIN_FILENO) {
            var byte: UInt8 = 0
            guard read(STDIN_FILENO, &byte, 1) == 1 else { return .stop }
            if byte == UInt8(ascii: "\n") {
                current.invalidate()
                current = UserActivity(activityType: "com.example.probe.editing")
                current.title = "Probe, replaced"
                current.becomeCurrent()
                say("replaced")
            }
            return .again
        }
        say("listening on 127.0.0.1:\(node.port!)")
        withExtendedLifetime((node, misbehaviour)) { MainLoop.run() }
    } catch {
        say("error: \(error)")
        exit(1)
    }
}
