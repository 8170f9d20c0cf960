import BatonAgent
import BatonContinuity
import Foundation

/// `baton nearby` and `baton continue` through the agent, when one runs: its links are already
/// up, so the answer is instant, and `baton continue` reaches (or has the agent launch) the app
/// that continues an activity.
enum ThroughAgent {
    /// The app ID `baton` joins the agent with.
    static let toolAppID = "org.baton.tool"

    /// The agent's socket (`explicit`, else `AgentConnection.defaultSocketPath`) if an agent
    /// accepts connections there now.
    static func runningAgent(_ explicit: String?) -> String? {
        let path = explicit ?? AgentConnection.defaultSocketPath
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return connected == 0 ? path : nil
    }

    /// Runs `app` joined to the agent at `socket` (as a tool: it advertises nothing) until it
    /// terminates; returns its failure.
    static func run(_ app: @escaping @MainActor (AgentConnection) -> AgentToolApp, socket: String) -> String? {
        MainActor.assumeIsolated {
            Application.shared.manifest = AppManifest(appID: toolAppID, teamIdentifier: "baton")
            // A tool asks the agent that runs; it never starts one (an agent that went away
            // between the probe and the join is reported as not answering).
            let connection = AgentConnection.join(socketPath: socket, advertising: false, autostart: false)
            let delegate = app(connection)
            connection.onJoined = { [weak delegate] in delegate?.joined() }
            // The agent answered the probe: if it does not take the join in time, say so.
            let deadline = MainLoop.after(.seconds(10)) { [weak delegate] in
                delegate?.failure = "the agent at \(socket) did not answer"
                Application.shared.terminate(nil)
            }
            delegate.deadline = deadline
            Application.main(delegate: delegate)
            deadline.cancel()
            connection.leave()
            return delegate.failure
        }
    }
}

/// A `baton` command's app joined to the agent.
@MainActor
class AgentToolApp: ApplicationDelegate {
    let connection: AgentConnection
    var failure: String?
    var deadline: LoopSource?

    init(connection: AgentConnection) { self.connection = connection }

    /// Joined: the nearby list is current.
    func joined() { deadline?.cancel() }
}

/// `baton nearby` through the agent.
final class AgentNearbyPrinter: AgentToolApp {
    let watch: Bool
    private var observer: NSObjectProtocol?

    init(connection: AgentConnection, watch: Bool) {
        self.watch = watch
        super.init(connection: connection)
    }

    override func joined() {
        super.joined()
        printNearby(watch: watch)
        if !watch {
            guard Application.shared.nearbyActivities.isEmpty else { return Application.shared.terminate(nil) }
            // Nothing nearby: say why when no device is linked at all.
            Task { @MainActor in
                if let status = try? await connection.status(roundTrips: false), status.links.isEmpty {
                    print(status.discovery.working ? "no device of the group is linked yet (`baton status` shows the agent's state)"
                          : "no device of the group is linked: discovery is \(shown(status.discovery.explanation))")
                }
                Application.shared.terminate(nil)
            }
            return
        }
        guard observer == nil else { return }
        observer = NotificationCenter.default.addObserver(forName: Application.nearbyActivitiesDidChangeNotification,
                                                          object: nil, queue: nil) { [weak self] _ in
            MainActor.assumeIsolated { if let self, self.connection.isJoined { printNearby(watch: self.watch) } }
        }
    }
}

/// `baton continue` through the agent: an activity an app here continues goes to that app
/// (the agent hands it to the running one, or launches it); one only a web page continues opens
/// in the browser, and the originating app is told.
final class AgentContinuer: AgentToolApp {
    let type: String?
    let device: String?

    init(connection: AgentConnection, type: String?, device: String?) {
        self.type = type
        self.device = device
        super.init(connection: connection)
    }

    override func joined() {
        super.joined()
        guard let entry = ContinueCommand.chosen(type: type, device: device) else {
            failure = "nothing nearby to continue"
            return Application.shared.terminate(nil)
        }
        if entry.continuesInBrowser, let url = entry.webpageURL {
            Application.shared.continueNearbyActivity(entry) { [weak self] in
                if self?.failure == nil { ContinueCommand.printOpened(entry, at: url) }
                Application.shared.terminate(nil)
            }
            return
        }
        let token = ProcessInfo.processInfo.environment["XDG_ACTIVATION_TOKEN"] ?? ProcessInfo.processInfo.environment["DESKTOP_STARTUP_ID"]
        Task { @MainActor in
            do {
                let app = try await connection.continueInApp(entry, activationToken: token)
                print("continued \"\(shown(entry.title ?? ""))\" from \(shown(entry.device)) in \(shown(app))")
            } catch {
                failure = (error as NSError).userInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)"
            }
            Application.shared.terminate(nil)
        }
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String, error: any Error) {
        failure = "\(error)"
    }
}
