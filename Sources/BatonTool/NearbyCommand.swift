import ArgumentParser
import BatonContinuity
import Foundation

/// `baton nearby`: the activities current on the user's other devices, as this device sees them.
struct NearbyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nearby",
        abstract: "List the activities current on the group's other devices.",
        discussion: """
            Asks this user's agent (batond) when one runs and no --peer is given: its links are
            already up. Otherwise connects, as this device, to the group's devices that
            avahi-daemon finds and to the static peers ($BATON_PEERS or the `peers` file), and
            prints what each advertises.
            Only devices that prove membership of this group appear. Without --watch it prints
            once every device found has answered. An entry that no app installed here continues,
            but which has a web page, is marked: `baton continue` opens it in the browser.
            """)
    @Flag(name: .long, help: "Keep following the list, printing each change.") var watch = false
    @OptionGroup var reach: DeviceReach

    func run() throws {
        let watching = watch
        let failure = try reach.run(throughAgent: { AgentNearbyPrinter(connection: $0, watch: watching) },
                                    asThisDevice: { NearbyPrinter(watch: watching) })
        if let failure { throw ValidationError(failure) }
    }
}

final class NearbyPrinter: DeviceApp {
    let watch: Bool
    var node: ContinuityNode?
    var failure: String?
    private var observer: NSObjectProtocol?

    init(watch: Bool) { self.watch = watch }

    func applicationDidFinishLaunching(_ notification: Notification) {
        guard let node else { return }
        node.onFirstDialsFinished = { [unowned self] in
            if node.staticPeers.isEmpty, node.discoveryState != .running {
                print("no avahi-daemon and no peers configured: set BATON_PEERS, write HOST:PORT lines to the `peers` file, or pass --peer")
            }
            printNearby(watch: watch)
            if !watch { Application.shared.terminate(nil) }
        }
        if watch {
            observer = NotificationCenter.default.addObserver(forName: Application.nearbyActivitiesDidChangeNotification,
                                                              object: nil, queue: nil) { [unowned self] _ in
                MainActor.assumeIsolated { printNearby(watch: self.watch) }
            }
        }
        do { try node.start(host: "127.0.0.1", discovery: .browseOnly) } catch {  // it dials; nobody dials a tool
            failure = "\(error)"
            Application.shared.terminate(nil)
        }
    }

    func applicationWillTerminate(_ notification: Notification) { node?.stop() }
}

/// Prints the nearby list, one entry a line (every string from another device escaped); with
/// `watch`, under a line with the time.
@MainActor
func printNearby(watch: Bool) {
    let nearby = Application.shared.nearbyActivities
    if watch { print("-- \(ISO8601DateFormatter().string(from: Date()))") }
    if nearby.isEmpty { print("nothing nearby") }
    for entry in nearby {
        let web = entry.continuesInBrowser ? "\topens in the browser: \(shown(entry.webpageURL!.absoluteString))" : ""
        print("\(shown(entry.device))\t\"\(shown(entry.title ?? ""))\"\t\(shown(entry.activityType))\t\(shown(entry.appID))\(web)")
    }
    fflush(nil)
}
