import ArgumentParser
import BatonContinuity
import Foundation

/// `baton continue`: continues a nearby activity that no app here continues, in the web
/// browser (handoff-programming-guide, "Native App-to-Web Browser Handoff").
struct ContinueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "continue",
        abstract: "Continue a nearby activity in the app that continues it, or in the web browser.",
        discussion: """
            Finds the group's devices as `baton nearby` does and continues the first activity
            they advertise (or the first of --type, or on --device). One that no app installed
            here continues but that has a web page opens in the desktop's default browser, and
            the originating app is told it was continued (this waits up to 5 s for that device
            to acknowledge). For one an installed app continues, run that app.
            When this user's agent (batond) runs and no --peer is given, it asks the agent
            instead: an activity an app here continues goes to that app — the running one, or
            one the agent launches.
            """)
    @Option(name: .long, help: "Continue the activity of this type.") var type: String?
    @Option(name: .long, help: "Continue the activity of this device.") var device: String?
    @OptionGroup var reach: DeviceReach

    func run() throws {
        let (type, device) = (type, device)
        let failure = try reach.run(throughAgent: { AgentContinuer(connection: $0, type: type, device: device) },
                                    asThisDevice: { BrowserContinuer(type: type, device: device) })
        if let failure {
            FileHandle.standardError.write(Data("baton continue: \(shown(failure))\n".utf8))
            throw ExitCode(1)
        }
    }

    /// The nearby activity `baton continue` continues: the first advertised (of `type`, on
    /// `device`, when given).
    @MainActor
    static func chosen(type: String?, device: String?) -> NearbyActivity? {
        Application.shared.nearbyActivities.first { (type == nil || $0.activityType == type) && (device == nil || $0.device == device) }
    }

    /// Says that `entry` opened at `url` in the web browser.
    @MainActor
    static func printOpened(_ entry: NearbyActivity, at url: URL) {
        print("opened \(shown(url.absoluteString)) in the web browser (\"\(shown(entry.title ?? ""))\" from \(shown(entry.device)))")
    }
}

final class BrowserContinuer: DeviceApp {
    let type: String?
    let device: String?
    var node: ContinuityNode?
    var failure: String?

    init(type: String?, device: String?) {
        self.type = type
        self.device = device
    }

    func applicationDidFinishLaunching(_ notification: Notification) {
        guard let node else { return }
        // Ends once the continuation has: the originating device has acknowledged `Continued`
        // (bounded by Application.continuedAcknowledgementTimeout), or nothing was continued.
        node.onFirstDialsFinished = { [unowned self] in
            self.continueChosen { Application.shared.terminate(nil) }
        }
        do { try node.start(host: "127.0.0.1", discovery: .browseOnly) } catch {  // it dials; nobody dials a tool
            failure = "\(error)"
            Application.shared.terminate(nil)
        }
    }

    /// Continues the chosen activity in the browser; `finished` runs once that has ended.
    private func continueChosen(finished: @escaping @MainActor () -> Void) {
        guard let entry = ContinueCommand.chosen(type: type, device: device) else {
            failure = "nothing nearby to continue"
            return finished()
        }
        // The rule the agent follows too (`ActivityOffer.decide`), for this tool and the installed apps.
        let offer = entry.offerHere()
        guard case .browser(let url, _) = offer else {
            if case .app(let appID, _) = offer {
                failure = "an app installed here continues \(shown(entry.activityType)): run it to continue (\(shown(appID)))"
            } else {
                failure = offer.sentence(activityType: entry.activityType, team: entry.teamIdentifier)
                    + " Run an app that continues it (\(shown(entry.appID)))."
            }
            return finished()
        }
        Application.shared.continueNearbyActivity(entry) { [unowned self] in
            if failure == nil { ContinueCommand.printOpened(entry, at: url) }
            finished()
        }
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
        failure = "\(error)"
    }

    func applicationWillTerminate(_ notification: Notification) { node?.stop() }
}
