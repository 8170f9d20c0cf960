import ArgumentParser
import BatonAgent
import CGLib
import Foundation

/// `baton status`: whether this user's agent runs, which program, where the device listens,
/// whether discovery works (and why not), the linked devices (each with its path and its
/// round-trip time, "—" when it did not answer a ping in time), the joined apps and the latest
/// failures. `--json` prints the same as one JSON document.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show this user's agent (batond): device, network, discovery, links, apps.",
        discussion: """
            Exits with status 0 when the agent runs, 3 when it does not (as `systemctl status`).
            With --json, one JSON document: {"running", "socket", "autostartProgram", "agent"}, where
            "agent" (absent when it does not run) has the fields of BatonAgent's AgentStatus, dates in ISO 8601.
            Each link's round trip is one ping over it, measured as the agent answers (at most 2 s; "—" and no
            "roundTripMilliseconds" when the device did not answer in time).
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
        try MainActor.assumeIsolated { try readOnMain(socket: explicit, holdingProcess: false).report }
    }

    /// As `read`, but without the links' round trips (the agent answers at once, pinging no
    /// link: `baton agent stop` does not wait on a silent device), and, while still connected
    /// to the agent (so the process is the agent's), a pidfd for its process: from its status,
    /// or, for an agent older than `GetStatus`, from its lock file (`agent.socket.lock`), if
    /// that process is a `batond`.
    static func readHoldingProcess(socket explicit: String?) throws -> (report: StatusReport, process: Int32?) {
        try MainActor.assumeIsolated { try readOnMain(socket: explicit, holdingProcess: true) }
    }

    @MainActor
    private static func readOnMain(socket explicit: String?, holdingProcess: Bool) throws -> (report: StatusReport, process: Int32?) {
        let path = explicit ?? AgentConnection.defaultSocketPath
        let choice = AgentAutostart.choice()
        let program = "\(choice.program) (\(choice.reason))"
        guard let socket = ThroughAgent.runningAgent(path) else {
            return (StatusReport(running: false, socket: path, autostartProgram: program, agent: nil), nil)
        }
        var status: AgentStatus?
        var process: Int32?
        var older: String?
        let failure = ThroughAgent.run({ connection in
            AgentQuestion(connection: connection, ask: { try await $0.status(roundTrips: !holdingProcess) }) { outcome in
                switch outcome {
                case .success(let agent):
                    status = agent
                    if holdingProcess { process = openProcess(agent.processID) }
                case .failure(let error):
                    older = "\(error)"
                    if holdingProcess { process = agentProcessFromLock(of: path) }
                }
            }
        }, socket: socket)
        if let failure { throw ValidationError(failure) }
        if let older, !holdingProcess { throw ValidationError("the agent did not give its status: \(older)") }
        status?.apps.removeAll { $0.appID == ThroughAgent.toolAppID }  // this command itself
        return (StatusReport(running: true, socket: path, autostartProgram: program, agent: status), process)
    }

    /// A pidfd for `pid`, or nil.
    private static func openProcess(_ pid: Int32) -> Int32? {
        let fd = baton_pidfd_open(pid)
        return fd >= 0 ? fd : nil
    }

    /// The pid in the agent's lock file, as a pidfd, if that process runs a `batond`.
    private static func agentProcessFromLock(of socket: String) -> Int32? {
        let lock = AgentRuntimeDirectory(socketPath: socket).lockPath
        guard let text = try? String(contentsOfFile: lock, encoding: .utf8), let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
              pid > 0, let fd = openProcess(pid) else { return nil }
        let program = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
        guard URL(fileURLWithPath: program).lastPathComponent.hasPrefix("batond") else {
            close(fd)
            return nil
        }
        return fd
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
            print("link: \(shown(link.device)) at \(shown(link.address)) (\(link.path.words)), for \(minutes) min (\(link.dialedByThisDevice ? "dialed by this device" : "dialed in")), round trip \(link.roundTripWords)")
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
