// Shapes: the seed "Implementing Handoff in Your App" as a Baton app.
//
// On one machine, through a handoff file:
//     baton-shapes --save FILE [--shape TYPE]    create a shape; write the current activity to FILE
//     baton-shapes --continue FILE               continue the activity in FILE
// Between devices (each process a device of one group, identities made by `baton`):
//     baton-shapes --device DIR [--listen [HOST:]PORT] --create TYPE     advertise a shape; exit once continued
//     baton-shapes --device DIR --peer HOST:PORT --continue-nearby       continue the first nearby shape
// Listening beyond loopback (--listen 0.0.0.0:0), a device also finds the others through
// avahi-daemon, and needs no --peer.
import Baton
import BatonContinuity
import ExampleSupport

final class ShapesApp: ApplicationDelegate {
    let shapes = ShapesViewController(title: "shapes")
    lazy var window = Window(title: "Shapes", contentViewController: shapes)
    let mode: Mode
    var node: ContinuityNode?
    var continuedNearby = false

    enum Mode {
        case save(URL, shape: String)
        case continueFrom(URL)
        case advertise(device: URL, listen: PeerAddress, peers: [PeerAddress], shape: String)
        case continueNearby(device: URL, listen: PeerAddress, peers: [PeerAddress])
    }

    init(mode: Mode) { self.mode = mode }

    func applicationDidFinishLaunching(_ notification: Notification) {
        window.makeKeyAndOrderFront()
        window.makeFirstResponder(shapes.view)
        switch mode {
        case .save(let file, let shape):
            shapes.startCreatingShape(shape)
            // The save runs from an idle source; hand off after it, as a peer asking would.
            MainLoop.idle {
                guard let activity = Application.shared.currentUserActivity else { return fail("no current activity") }
                say("current activity: \(activity.activityType) \"\(activity.title ?? "")\"")
                do {
                    try ActivityFile.write(activity, to: file)
                    say("handed off to \(file.lastPathComponent)")
                } catch { return fail("\(error)") }
                Application.shared.terminate(nil)
            }
        case .continueFrom(let file):
            Application.shared.continueUserActivity(fromFileAt: file)
        case .advertise(let device, let listen, let peers, let shape):
            startNode(device, listen, peers)
            shapes.startCreatingShape(shape)
        case .continueNearby(let device, let listen, let peers):
            _ = NotificationCenter.default.addObserver(forName: Application.nearbyActivitiesDidChangeNotification,
                                                   object: nil, queue: nil) { [unowned self] _ in
                MainActor.assumeIsolated { self.nearbyChanged() }
            }
            startNode(device, listen, peers)
        }
    }

    private func startNode(_ device: URL, _ listen: PeerAddress, _ peers: [PeerAddress]) {
        do {
            let node = try ContinuityNode(identity: try DeviceIdentity.load(from: device), identityDirectory: device,
                                          staticPeers: peers)
            try node.start(host: listen.host, port: listen.port)
            self.node = node
            say("device \(node.identity.name) listening on \(PeerAddress(host: listen.host, port: node.port ?? 0))")
        } catch { fail("\(error)") }
    }

    /// Continues the first shape another device offers; ends when that device has gone.
    private func nearbyChanged() {
        let nearby = Application.shared.nearbyActivities
        if continuedNearby {
            if nearby.isEmpty { Application.shared.terminate(nil) }
            return
        }
        guard let entry = nearby.first(where: { $0.activityType == ShapesViewController.createShape }) else { return }
        continuedNearby = true
        say("nearby: \"\(entry.title ?? "")\" (\(entry.activityType)) on \(entry.device)")
        Application.shared.continueNearbyActivity(entry)
    }

    func applicationWillTerminate(_ notification: Notification) { node?.stop() }

    // "Receive User Activities in the Application Delegate".
    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        say("willContinueUserActivityWithType \(userActivityType): receiving…")
        return true
    }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
        guard let shapesVC = application.keyWindow?.contentViewController as? ShapesViewController else {
            return false
        }
        say("continue \(userActivity.activityType) \"\(userActivity.title ?? "")\"")
        restorationHandler([shapesVC])
        if case .continueFrom = mode { MainLoop.idle { Application.shared.terminate(nil) } }
        return true
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
        fail("could not continue \(userActivityType): \(error.localizedDescription)")
    }
}




let arguments = Array(CommandLine.arguments.dropFirst())
let peers = arguments.indices.filter { arguments[$0] == "--peer" && $0 + 1 < arguments.count }.compactMap { PeerAddress(arguments[$0 + 1]) }
/// `--listen PORT` or `--listen HOST:PORT` (port 0: any free one); loopback unless a host is given.
let listen: PeerAddress = {
    let text = value(after: "--listen") ?? "0"
    let colon = text.lastIndex(of: ":")
    let host = colon.map { String(text[..<$0]) } ?? "127.0.0.1"
    return PeerAddress(host: host, port: UInt16(colon.map { String(text[text.index(after: $0)...]) } ?? text) ?? 0)
}()

let mode: ShapesApp.Mode
if let file = value(after: "--save") {
    mode = .save(URL(fileURLWithPath: file), shape: value(after: "--shape") ?? "circle")
} else if let file = value(after: "--continue") {
    mode = .continueFrom(URL(fileURLWithPath: file))
} else if let device = value(after: "--device"), let shape = value(after: "--create") {
    mode = .advertise(device: URL(fileURLWithPath: device), listen: listen, peers: peers, shape: shape)
} else if let device = value(after: "--device"), arguments.contains("--continue-nearby") {
    mode = .continueNearby(device: URL(fileURLWithPath: device), listen: listen, peers: peers)
} else {
    say("""
        usage: baton-shapes --save FILE [--shape TYPE] | --continue FILE
               baton-shapes --device DIR [--listen [HOST:]PORT] [--peer HOST:PORT]… (--create TYPE | --continue-nearby)
        """)
    exit(2)
}

MainActor.assumeIsolated {
    installManifest(from: Bundle.module)
}
Application.main(delegate: ShapesApp(mode: mode))
exit(exitCode)
