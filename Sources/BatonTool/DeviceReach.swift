import ArgumentParser
import BatonAgent
import BatonContinuity
import Foundation

/// Where `baton nearby` and `baton continue` reach the group's devices: through this user's
/// agent (batond) when one runs and no `--peer` is given — its links are already up — and
/// otherwise as this device, with its own node, its configured peers and any `--peer`.
struct DeviceReach: ParsableArguments {
    @Option(name: .long, help: "A peer to connect to, HOST:PORT (repeatable; adds to the configured ones).")
    var peer: [String] = []
    @Option(name: .long, help: "The agent's socket (default: $BATON_AGENT_SOCKET, else $XDG_RUNTIME_DIR/baton/agent.socket).")
    var agent: String?
    @OptionGroup var options: ConfigOption

    func validate() throws {
        for entry in peer { _ = try PeerAddress(parsing: entry, from: .argument("peer")) }
    }

    /// Runs `throughAgent`'s app joined to the running agent, or, when none runs or a `--peer`
    /// is given, `asThisDevice`'s app as this device, until it terminates; returns its failure.
    func run(throughAgent: @escaping @MainActor (AgentConnection) -> AgentToolApp,
             asThisDevice: @escaping @MainActor () -> any DeviceApp) throws -> String? {
        if peer.isEmpty, let socket = ThroughAgent.runningAgent(agent) {
            return ThroughAgent.run(throughAgent, socket: socket)
        }
        return try runAsThisDevice(asThisDevice)
    }

    /// Runs `makeApp()` as the app of this device until it terminates; returns its failure.
    private func runAsThisDevice(_ makeApp: @escaping @MainActor () -> any DeviceApp) throws -> String? {
        let directory = options.directory
        let identity = try DeviceIdentity.load(from: directory.deviceDirectory)
        let peers = try PeerConfiguration.read(directory: directory, peerArguments: peer).peers
        return MainActor.assumeIsolated {
            let app = makeApp()
            do {
                // The tool owns the loop: it makes the process's one client of avahi-daemon.
                app.node = try ContinuityNode(identity: identity, identityDirectory: directory.deviceDirectory, staticPeers: peers,
                                              avahi: AvahiConnection())
            } catch { return PrintableText.escaped("\(error)") }
            Application.main(delegate: app)
            return app.failure
        }
    }
}

/// An app a device command runs as this device: it gets the node before launching and says
/// how it ended.
@MainActor
protocol DeviceApp: ApplicationDelegate {
    var node: ContinuityNode? { get set }
    var failure: String? { get }
}
