// A device that misbehaves when asked for its activity's payload, for the failure tests:
//
//     DeviceProbe DIR (--stall | --die | --oversize | --team TEAM | --ok) [--peer HOST:PORT]
//                 [--listen HOST] [--port PORT] [--rotate SECONDS] [--rotation-grace SECONDS]
//                 [--streams | --stream-die | --stream-close] [--agent SOCKET]
//                 [--webpage URL] [--browsing] [--discover] [--title TITLE] [--embed]
//                 [--handshake-deadline SECONDS] [--stream-idle SECONDS]
//     DeviceProbe DIR --ice-link --exchange FOLDER --peer-device ID [--relay-only] …
//
// (`--ice-link`, a device linking to one peer over ICE, is described in IceLinkProbe.swift.)
//
// Lines on standard input: `replace` replaces the advertised activity with a new one;
// `continue SECONDS` continues the first nearby activity (timeout SECONDS) and prints
// `continued TITLE` or `failed CODE`; `streams N` asks the continued activity for N bytes over
// continuation streams and prints `stream received N, pattern intact` (or `…, wrong byte at I`) or
// `stream failed: [code CODE, ]…`; `ping` prints
// `pong` (the app still runs); `flood N`
// replaces the activity N times with 1 KiB titles (N signals to every peer) and prints
// `flooded`; `stop` stops the node (closing every link) and prints `stopped`; `retitle TEXT`
// sets the activity's title directly and prints `retitled`; `touch` sets its `needsSave` and
// prints `touched`; `ineligible` sets `isEligibleForHandoff` false and `expire` sets an
// expiration date in the past, each then `needsSave`, printing `made ineligible` / `made expired`. Each save of the activity prints `saving for a fetch`, and a continuation
// prints `will continue TYPE` first. With
// `--listen HOST` beyond loopback, or with `--discover` on loopback, the node discovers its
// peers through avahi-daemon; `nearby DEVICE` is printed each time the nearby list changes.
// With `--agent SOCKET` the probe runs no node: it joins the agent there (`batond`), prints
// `joined the agent at SOCKET` each time it joins, and DIR is unused.
//
// With `--embed` the probe hosts Baton as a program with a loop of its own does: it makes a
// GMainContext, hands it to `MainLoop.embed(in:)` before anything else and runs it with its own
// g_main_loop; GLib's global default context is never run, nor made the thread's default.
//
// With a stream flag the activity supports continuation streams. Its delegate reads a request
// `send N` to the end and answers N bytes (byte i is i % 251) then closes (`--streams`),
// exits half way (`--stream-die`), or closes the streams without reading (`--stream-close`).
//
// It advertises one activity of type com.example.probe.editing; the payload's save (the
// activity delegate's userActivityWillSave) then hangs the main thread, exits the process,
// or makes the payload too large.
import BatonAgent
import BatonContinuity
import CGLib
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

    func userActivityWasContinued(_ userActivity: UserActivity) { say("was continued") }

    func userActivity(_ userActivity: UserActivity, didReceive inputStream: ContinuationInputStream,
                      outputStream: ContinuationOutputStream) {
        say("streams opened")
        if streamMode == "--stream-close" {
            inputStream.close()
            return say("streams closed")
        }
        Task { @MainActor in
            do {
                let request = String(decoding: try await inputStream.readToEnd(limit: 1024), as: UTF8.self)
                let count = Int(request.split(separator: " ").last ?? "") ?? 0
                say("request: \(request)")
                var sent = 0
                while sent < count {
                    if streamMode == "--stream-die", sent >= count / 2 {
                        say("dying mid-stream")
                        exit(4)
                    }
                    let size = min(64 * 1024, count - sent)
                    try await outputStream.write(pattern.subdata(in: (sent % 251)..<(sent % 251 + size)))
                    sent += size
                }
                try await outputStream.close()
                say("streamed \(sent)")
            } catch {
                say("stream failed: \(error)")
            }
        }
    }
}

/// 64 KiB of the stream's pattern (byte i is i % 251), plus one period to start anywhere in it.
let pattern = Data((0..<(64 * 1024 + 251)).map { UInt8($0 % 251) })

func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

/// Reports how a continuation of a nearby activity ended.
final class ContinuationReporter: ApplicationDelegate {
    /// The activity continued last, for `streams N`.
    var continued: UserActivity?

    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        say("will continue \(userActivityType)")
        return true
    }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
        continued = userActivity
        say("continued \(userActivity.title ?? "")")
        return true
    }

    /// Opens streams to the continued activity, asks for `count` bytes and reads them.
    func stream(_ count: Int) {
        guard let activity = continued else { return say("stream failed: nothing continued") }
        Task { @MainActor in
            do {
                let (input, output) = try await activity.continuationStreams()
                try await output.write(Data("send \(count)".utf8))
                try await output.close()
                var received = 0
                var misplaced: Int?  // the first byte that is not the pattern's (byte i is i % 251)
                for try await chunk in input {
                    if received == 0 { say("stream receiving") }
                    if misplaced == nil, let index = chunk.indices.first(where: { chunk[$0] != UInt8((received + $0 - chunk.startIndex) % 251) }) {
                        misplaced = received + index - chunk.startIndex
                    }
                    received += chunk.count
                }
                say("stream received \(received), " + (misplaced.map { "wrong byte at \($0)" } ?? "pattern intact"))
            } catch {
                say("stream failed: \((error as? CocoaError).map { "code \($0.code.rawValue), " } ?? "")\(error)")
            }
        }
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
        say("failed \((error as? CocoaError)?.code.rawValue ?? -1)")
    }
}

func value(after flag: String) -> String? {
    arguments.firstIndex(of: flag).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    say("usage: DeviceProbe DIR (--stall | --die | --oversize | --team TEAM | --ok)")
    exit(2)
}
let mode = arguments[1]
let streamMode = arguments.first { ["--streams", "--stream-die", "--stream-close"].contains($0) }
let team = mode == "--team" && arguments.count > 2 ? arguments[2] : "PROBETEAM"
if mode == "--ice-link" { MainActor.assumeIsolated { IceLinkProbe.run(arguments) } }

MainActor.assumeIsolated {
    let hostContext: LoopContext? = arguments.contains("--embed") ? LoopContext() : nil
    if let hostContext { MainLoop.embed(in: hostContext) }
    let misbehaviour = Misbehaviour(mode: mode)
    let reporter = ContinuationReporter()
    Application.shared.delegate = reporter
    Application.shared.finishLaunching()
    _ = NotificationCenter.default.addObserver(forName: Application.nearbyActivitiesDidChangeNotification, object: nil, queue: nil) { _ in
        MainActor.assumeIsolated { say("nearby " + Application.shared.nearbyActivities.map(\.device).joined(separator: " ")) }
    }
    Application.shared.manifest = AppManifest(appID: "com.example.probe", teamIdentifier: team,
                                              activityTypes: ["com.example.probe.editing"])
    Application.shared.activate()
    // --browsing: a web browser's activity (web-to-app handoff), with browser data in userInfo.
    let browsing = arguments.contains("--browsing")
    let activity = UserActivity(activityType: browsing ? UserActivity.browsingWebType : "com.example.probe.editing")
    if browsing { activity.userInfo = ["browser-tab": 3] }
    activity.title = value(after: "--title") ?? "Probe"
    activity.delegate = misbehaviour
    activity.supportsContinuationStreams = streamMode != nil
    activity.webpageURL = value(after: "--webpage").flatMap(URL.init(string:))
    activity.becomeCurrent()
    do {
        let peers = arguments.indices.filter { arguments[$0] == "--peer" && $0 + 1 < arguments.count }
            .compactMap { PeerAddress(arguments[$0 + 1]) }
        let directory = URL(fileURLWithPath: arguments[0])
        // --agent SOCKET: joined to the agent there instead of running a node (DIR is unused).
        let agentSocket = value(after: "--agent")
        let agent = agentSocket.map { socket in
            let connection = AgentConnection.join(socketPath: socket)
            connection.onJoined = { say("joined the agent at \(socket)") }
            return connection
        }
        let node = agent != nil ? nil : try ContinuityNode(identity: try DeviceIdentity.load(from: directory), identityDirectory: directory,
                                                           staticPeers: peers)
        let host = value(after: "--listen") ?? "127.0.0.1"
        if let node {
            if let seconds = value(after: "--rotate").flatMap(Double.init) { node.discoveryRotation = .milliseconds(Int(seconds * 1000)) }
            if let seconds = value(after: "--rotation-grace").flatMap(Double.init) { node.listenerRotationGrace = .milliseconds(Int(seconds * 1000)) }
            if let seconds = value(after: "--handshake-deadline").flatMap(Double.init) { node.handshakeDeadline = .milliseconds(Int(seconds * 1000)) }
            if let seconds = value(after: "--stream-idle").flatMap(Double.init) { node.streamIdleTimeout = .milliseconds(Int(seconds * 1000)) }
            try node.start(host: host, port: value(after: "--port").flatMap(UInt16.init) ?? 0, discovery: arguments.contains("--discover") ? .publishAndBrowse : .automatic)
        }
        var current = activity
        var line: [UInt8] = []
        MainLoop.whenReadable(STDIN_FILENO) {
            var byte: UInt8 = 0
            guard read(STDIN_FILENO, &byte, 1) == 1 else { return .stop }
            guard byte == UInt8(ascii: "\n") else {
                line.append(byte)
                return .again
            }
            let command = String(decoding: line, as: UTF8.self).split(separator: " ")
            line = []
            switch command.first {
            case "continue":
                guard let entry = Application.shared.nearbyActivities.first else { say("failed nothing nearby"); break }
                let seconds = command.count > 1 ? Double(command[1]) ?? 10 : 10
                Application.shared.continueNearbyActivity(entry, timeout: .milliseconds(Int(seconds * 1000)))
            case "streams":
                reporter.stream(command.count > 1 ? Int(command[1]) ?? 0 : 0)
            case "retitle":  // a property set directly, without needsSave
                current.title = command.dropFirst().joined(separator: " ")
                say("retitled")
            case "touch":  // needsSave: a save follows in this turn's idle
                current.needsSave = true
                say("touched")
            case "ineligible":  // not eligible for handoff, then saved (the app re-advertises after a save)
                current.isEligibleForHandoff = false
                current.needsSave = true
                say("made ineligible")
            case "expire":  // its expiration date passed, then saved
                current.expirationDate = Date(timeIntervalSinceNow: -1)
                current.needsSave = true
                say("made expired")
            case "ping":
                say("pong")
            case "flood":
                for round in 0..<(command.count > 1 ? Int(command[1]) ?? 0 : 0) {
                    current.invalidate()
                    current = UserActivity(activityType: "com.example.probe.editing")
                    current.title = "\(round) " + String(repeating: "x", count: 1000)
                    current.becomeCurrent()
                }
                say("flooded")
            case "stop":
                node?.stop()
                agent?.leave()
                say("stopped")
            default:
                current.invalidate()
                current = UserActivity(activityType: "com.example.probe.editing")
                current.title = "Probe, replaced"
                current.becomeCurrent()
                say("replaced")
            }
            return .again
        }
        if let node { say("listening on \(host):\(node.port!)") }
        withExtendedLifetime((node, agent, misbehaviour, reporter)) {
            guard let hostContext else { return MainLoop.run() }
            let loop = g_main_loop_new(hostContext.gContext, 0)
            g_main_loop_run(loop)
            g_main_loop_unref(loop)
        }
    } catch {
        say("error: \(error)")
        exit(1)
    }
}
