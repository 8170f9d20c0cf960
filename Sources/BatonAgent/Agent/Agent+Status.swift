import BatonContinuity
import Foundation

extension Agent {
    /// The agent's status now (`baton status`): the program, the device's listener and
    /// discovery, links, joined apps and the latest failures.
    public func status() -> AgentStatus {
        let program = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? "batond"
        let advertised = apps.frontmost
        let joined = apps.apps.values.filter(\.isJoined).sorted { $0.number < $1.number }.map { app in
            AgentStatus.App(appID: PrintableText.escaped(app.appID ?? ""), processID: app.pid, advertised: app === advertised,
                            activityType: app.advertisement.map { PrintableText.escaped($0.activityType) })
        }
        let discovery = node.discoveryStatus
        return AgentStatus(
            program: program, version: BatonVersion.current, processID: getpid(), startedAt: startedAt, startedBy: startedBy.rawValue,
            socket: socketPath, identityFolder: identityDirectory?.path ?? "", device: PrintableText.escaped(node.identity.name), group: PrintableText.escaped(node.identity.groupName),
            listening: AgentStatus.Listening(host: node.listeningHost ?? "", port: node.port ?? 0,
                                             reach: PeerAddress.isLoopback(node.listeningHost ?? "") ? "loopback" : "network"),
            discovery: AgentStatus.Discovery(state: discovery.code, working: discovery.isWorking, explanation: discovery.explanation),
            links: node.linkStatus, staticPeers: node.staticPeers.map(\.description), apps: joined,
            recentFailures: node.recentFailures.failures)
    }

    /// Who started the agent, as `AgentStatus.startedBy` says it.
    public enum StartedBy: String, Sendable {
        /// systemd's socket activation (`batond.socket`).
        case systemd
        /// An app or `baton` that found no agent (`AgentAutostart`).
        case autostart
        /// A person or a script ran `batond`.
        case command
    }
}
