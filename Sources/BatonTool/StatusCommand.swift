import ArgumentParser
import BatonAgent
import Foundation

/// `baton status`: whether this user's agent runs, which program, where the device listens,
/// whether discovery works (and why not), the linked devices, the joined apps and the latest
/// failures. `--json` prints the same as one JSON document.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show this user's agent (batond): device, network, discovery, links, apps.",
        discussion: """
            Exits with status 0 when the agent runs, 3 when it does not (as `systemctl status`).
            With --json, one JSON document: {"running", "socket", "autostartProgram", "agent"}, where
            "agent" (absent when it does not run) has the fields of BatonAgent's AgentStatus, dates in ISO 8601.
            """)
    @Flag(name: .long, help: "Print one JSON document instead of text.") var json = false
    @Option(name: .long, help: "The agent's socket (default: $BATON_AGENT_SOCKET, else $XDG_RUNTIME_DIR/baton/agent.socket).")
    var agent: String?

    func run() throws {
        let report = try StatusReport.read(socket: agent)
        if json {
            FileHandle.standardOutput.write(report.json())
            print()
        } else {
            report.printText()
        }
        if report.agent == nil { throw ExitCode(3) }
    }
}

/// What `baton status` reports (its `--json` document).
struct StatusReport: Codable {
    /// Whether an agent answers at the socket.
    var running: Bool
    /// The agent's socket.
    var socket: String
    /// The program an app would start when no agent runs (`AgentAutostart.program()`), and why.
    var autostartProgram: String
    /// The agent's own status, when it runs.
    var agent: AgentStatus?

    /// Asks the agent at `socket` (default: the user's), if one runs.
    static func read(socket explicit: String?) throws -> StatusReport {
        try MainActor.assumeIsolated { try readOnMain(socket: explicit) }
    }

    @MainActor
    private static func readOnMain(socket explicit: String?) throws -> StatusReport {
        let path = explicit ?? AgentConnection.defaultSocketPath
        let choice = AgentAutostart.choice()
        let program = "\(choice.program) (\(choice.reason))"
        guard let socket = ThroughAgent.runningAgent(path) else {
            return StatusReport(running: false, socket: path, autostartProgram: program, agent: nil)
        }
        var status: AgentStatus?
        if let failure = ThroughAgent.run({ AgentStatusReader(connection: $0) { status = $0 } }, socket: socket) {
            throw ValidationError(failure)
        }
        status?.apps.removeAll { $0.appID == ThroughAgent.toolAppID }  // this command itself
        return StatusReport(running: status != nil, socket: path, autostartProgram: program, agent: status)
    }

    func json() -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return (try? encoder.encode(self)) ?? Data("{}".utf8)
    }

    func printText() {
        guard let agent else {
            print("agent: not running (no agent answers at \(shown(socket)))")
            print("an app that needs it starts \(shown(autostartProgram)); or `baton agent start`")
            return
        }
        let time = DateFormatter()
        time.dateFormat = "yyyy-MM-dd HH:mm:ss"
        print("agent: running, pid \(agent.processID), since \(time.string(from: agent.startedAt)) (started by \(agent.startedBy))")
        print("program: \(shown(agent.program)) (Baton \(shown(agent.version))); an app starts \(shown(autostartProgram)) when none runs")
        print("socket: \(shown(agent.socket))")
        print("device: \(shown(agent.device)) of group '\(shown(agent.group))' (identity \(shown(agent.identityFolder)))")
        let host = agent.listening.host
        let place = host == PeerAddress.allInterfaces ? "every interface (IPv6 and IPv4)" : host == "0.0.0.0" ? "every IPv4 interface"
            : agent.listening.reach == "loopback" ? "\(shown(host)) (loopback: this machine only)" : shown(host)
        print("listening: \(place), port \(agent.listening.port)")
        print("discovery: \(agent.discovery.working ? "" : "NOT WORKING: ")\(shown(agent.discovery.explanation))")
        if agent.links.isEmpty { print("links: none") }
        for link in agent.links {
            let minutes = Int(Date().timeIntervalSince(link.since) / 60)
            print("link: \(shown(link.device)) at \(shown(link.address)), for \(minutes) min (\(link.dialedByThisDevice ? "dialed by this device" : "dialed in"))")
        }
        if !agent.staticPeers.isEmpty { print("static peers: \(agent.staticPeers.map(shown).joined(separator: ", "))") }
        let apps = agent.apps
        if apps.isEmpty { print("apps: none joined") }
        for app in apps {
            let activity = app.activityType.map { ", activity \(shown($0))\(app.advertised ? " (advertised)" : "")" } ?? ""
            print("app: \(shown(app.appID)), pid \(app.processID)\(activity)")
        }
        for failure in agent.recentFailures {
            print("failure at \(time.string(from: failure.time)): \(shown(failure.text))")
        }
    }
}

/// Joins the agent as a tool, asks its status, and quits.
final class AgentStatusReader: AgentToolApp {
    let done: @MainActor (AgentStatus) -> Void

    init(connection: AgentConnection, done: @escaping @MainActor (AgentStatus) -> Void) {
        self.done = done
        super.init(connection: connection)
    }

    override func joined() {
        super.joined()
        Task { @MainActor in
            do { done(try await connection.status()) } catch { failure = "the agent did not give its status: \(error)" }
            Application.shared.terminate(nil)
        }
    }
}
