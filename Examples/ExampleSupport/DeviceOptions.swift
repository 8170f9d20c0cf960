import BatonAgent
import BatonContinuity
import Foundation

/// What makes an example app a device of the user's group: the user's agent (by default, or
/// `--agent SOCKET`), or `--device DIR [--listen [HOST:]PORT] [--peer HOST:PORT]…` (a node of
/// its own in the app), and the peers configured for
/// every app of this user (`$BATON_PEERS`, else `$XDG_CONFIG_HOME/baton/peers`), read the way
/// `baton nearby` reads them (`PeerConfiguration`). A node of its own listens on every interface
/// unless `--listen` says otherwise, and then also finds the others through avahi-daemon.
public struct DeviceOptions: Sendable {
    public var directory: URL
    public var listen: PeerAddress
    public var peers: [PeerAddress]
    /// The agent's socket, with `--agent`: the app joins it instead of running a node.
    public var agentSocket: String?

    /// The options in `arguments`: without `--device` or `--agent`, those that join the user's
    /// own agent (`AgentConnection.defaultSocketPath`). A bad value (a port out of range,
    /// a missing host or value, a malformed configured peer) throws an error naming it.
    public init?(arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        if arguments.contains("--agent") {
            agentSocket = try ExampleArguments.required(after: "--agent", in: arguments)
            directory = URL(fileURLWithPath: "/")
            listen = PeerAddress(host: "127.0.0.1", port: 0)
            peers = []
            return
        }
        // Neither: the user's own agent, as for the launch form.
        guard arguments.contains("--device") else {
            agentSocket = AgentConnection.defaultSocketPath
            directory = URL(fileURLWithPath: "/")
            listen = .loopback
            peers = []
            return
        }
        directory = URL(fileURLWithPath: try ExampleArguments.required(after: "--device", in: arguments))
        let listen = arguments.contains("--listen") ? try ExampleArguments.required(after: "--listen", in: arguments) : nil
        let peerArguments = try arguments.indices.filter { arguments[$0] == "--peer" }.map { index in
            guard index + 1 < arguments.count else { throw PeerAddressError.missingValue(option: "--peer") }
            return arguments[index + 1]
        }
        let configuration = try PeerConfiguration.read(environment: environment, peerArguments: peerArguments, listenArgument: listen)
        self.listen = configuration.listen
        peers = configuration.peers
    }

    /// Options that join the agent at `agentSocket`.
    public init(agentSocket: String) {
        self.agentSocket = agentSocket
        directory = URL(fileURLWithPath: "/")
        listen = PeerAddress(host: "127.0.0.1", port: 0)
        peers = []
    }

    /// The launch form the agent starts a device example with to continue an activity
    /// (docs/EXAMPLES.md): no mode and no `--device` — the app joins the agent at `--agent
    /// SOCKET`, else the user's own (`AgentConnection.defaultSocketPath`: `$BATON_AGENT_SOCKET`,
    /// else `$XDG_RUNTIME_DIR/baton/agent.socket`), and waits for the continuation the agent
    /// hands it. Nil — the caller prints its usage — with `--device` (a device of its own has no
    /// agent to wait for), `--help`, or any argument but `--agent SOCKET` and the app's own
    /// `options` (each name, and whether it takes a value): a typo never leaves the app waiting.
    /// A `--agent` without its value ends the process with status 2.
    public static func waitingForTheAgent(arguments: [String] = Array(CommandLine.arguments.dropFirst()),
                                          options: [String: Bool] = [:]) -> DeviceOptions? {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--agent" {
                index += 2
            } else if let takesValue = options[argument] {
                index += takesValue ? 2 : 1
            } else {
                return nil
            }
        }
        guard arguments.contains("--agent") else { return DeviceOptions(agentSocket: AgentConnection.defaultSocketPath) }
        do { return DeviceOptions(agentSocket: try ExampleArguments.required(after: "--agent", in: arguments)) } catch {
            ExampleArguments.refuse("\(error)")
        }
    }

    /// The options on this process's command line (the user's agent without `--device` or
    /// `--agent`). A bad value ends
    /// the process at once, with status 2 and a message that names it.
    public static func fromCommandLine() -> DeviceOptions? {
        do { return try DeviceOptions(arguments: Array(CommandLine.arguments.dropFirst())) } catch {
            ExampleArguments.refuse("\(error)")
        }
    }

    public static let usage = "(--agent SOCKET | --device DIR [--listen [HOST:]PORT] [--peer HOST:PORT]…)"
}
