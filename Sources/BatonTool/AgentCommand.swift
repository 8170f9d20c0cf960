import ArgumentParser
import BatonAgent
import CGLib
import Foundation

/// `baton agent start|stop|restart`: the user's agent, with or without systemd. Where the
/// systemd user instance has Baton's units (and the agent is the user's own, at the default
/// socket), they go through `systemctl --user`, so systemd and the agent never disagree;
/// otherwise `start` runs the program an app would start (`AgentAutostart`) and `stop` sends
/// SIGTERM to the agent that answers at the socket and waits for it to exit.
struct AgentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "agent", abstract: "Start, stop or restart this user's agent (batond).",
        subcommands: [Start.self, Stop.self, Restart.self])

    struct SocketOption: ParsableArguments {
        @Option(name: .long, help: "The agent's socket (default: $BATON_AGENT_SOCKET, else $XDG_RUNTIME_DIR/baton/agent.socket); never through systemd.")
        var agent: String?
        /// Whether systemd's units are to be used: the user's own agent at the socket the units
        /// listen on (`$XDG_RUNTIME_DIR/baton/agent.socket`, not a `$BATON_AGENT_SOCKET`
        /// elsewhere), and systemd has them.
        var throughSystemd: Bool {
            guard agent == nil, let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"],
                  AgentConnection.defaultSocketPath == runtime + "/baton/agent.socket" else { return false }
            return SystemdUserUnits.available()
        }
    }

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start the agent, unless it runs.")
        @OptionGroup var socket: SocketOption
        func run() throws { try AgentControl.start(socket) }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the agent and wait until it has exited.")
        @OptionGroup var socket: SocketOption
        func run() throws { try AgentControl.stop(socket) }
    }

    struct Restart: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the agent if it runs, then start it.")
        @OptionGroup var socket: SocketOption
        func run() throws {
            try AgentControl.stop(socket)
            try AgentControl.start(socket)
        }
    }
}

/// What `baton agent` does.
enum AgentControl {
    /// How long `stop` waits for the agent to exit after SIGTERM.
    static let exitTimeout: Int32 = 10_000

    static func start(_ options: AgentCommand.SocketOption) throws {
        let path = options.agent ?? AgentConnection.defaultSocketPath
        if ThroughAgent.runningAgent(path) != nil { return print("the agent already runs at \(shown(path))") }
        if options.throughSystemd {
            guard let result = SystemdUserUnits.systemctl(["start", SystemdUserUnits.socket, SystemdUserUnits.service]), result.status == 0 else {
                throw ValidationError("systemctl --user start \(SystemdUserUnits.socket) failed")
            }
            return print("started \(SystemdUserUnits.service) (systemd user unit), socket \(shown(path))")
        }
        let program = MainActor.assumeIsolated { AgentAutostart.program() }
        if let failure = onToolLoop({
            do { try await AgentAutostart.start(in: AgentRuntimeDirectory(socketPath: path)) } catch { return "\(error)" }
            return nil
        }) {
            throw ValidationError("could not start \(program): \(failure)")
        }
        print("started \(shown(program)), socket \(shown(path))")
    }

    static func stop(_ options: AgentCommand.SocketOption) throws {
        let (report, process) = try StatusReport.readHoldingProcess(socket: options.agent)
        defer { if let process { close(process) } }
        guard report.running else { return print("the agent is not running (\(shown(report.socket)))") }
        if report.agent?.startedBy == Agent.StartedBy.systemd.rawValue, options.throughSystemd {
            guard let result = SystemdUserUnits.systemctl(["stop", SystemdUserUnits.socket, SystemdUserUnits.service]), result.status == 0 else {
                throw ValidationError("systemctl --user stop \(SystemdUserUnits.service) failed")
            }
            return print("stopped \(SystemdUserUnits.service) and \(SystemdUserUnits.socket) (systemd user units; `baton agent start` starts them)")
        }
        guard let process else {
            throw ValidationError("the agent at \(shown(report.socket)) answers, but its process could not be found to stop it")
        }
        try terminate(process)
        print("stopped batond" + (report.agent.map { " (pid \($0.processID))" } ?? ""))
    }

    /// SIGTERM through `pidfd` (opened while connected to the agent, so it is the agent's
    /// process and no other that took its number since), then waits — no polling: the pidfd
    /// becomes readable when the process exits — up to `exitTimeout` ms.
    static func terminate(_ pidfd: Int32) throws {
        guard baton_pidfd_send_signal(pidfd, SIGTERM) == 0 else {
            if errno == ESRCH { return }  // gone already
            throw ValidationError("cannot signal the agent: \(String(cString: strerror(errno)))")
        }
        var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&entry, 1, exitTimeout)
            if ready < 0, errno == EINTR { continue }
            guard ready == 1 else { throw ValidationError("the agent did not exit within \(exitTimeout / 1000) s of SIGTERM") }
            return
        }
    }
}
