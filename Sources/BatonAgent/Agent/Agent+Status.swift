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

    /// The status now with each link's round-trip time measured (`ContinuityNode.roundTrips()`:
    /// one `Ping` over each link, all at once, each within `ContinuityNode.roundTripDeadline`);
    /// a link that did not answer in time has none. Measured only when asked (`GetStatus`,
    /// `Inspect`), never on a timer, nor for `GetStatusWithoutPings`.
    func statusWithRoundTrips() async -> AgentStatus {
        let times = await node.roundTrips()
        var status = status()
        for index in status.links.indices {
            guard let time = times[status.links[index].device] else { continue }
            status.links[index].roundTripMilliseconds = Double(time.components.seconds) * 1000 + Double(time.components.attoseconds) / 1e15
        }
        return status
    }

    /// Answers `caller`'s `GetStatus` once the links' round trips are measured (bounded by
    /// their deadline), counted among the caller's calls waiting (`maximumPendingCallsPerApp`);
    /// or, unless `pinging`, its `GetStatusWithoutPings` at once, with no round trips.
    func answerStatus(_ call: DBusAnswer<AgentMethod>, pinging: Bool, from caller: JoinedApp) {
        guard pinging else { return call.reply(.getStatusWithoutPings, String(decoding: status().json(), as: UTF8.self)) }
        answerWaiting(call, from: caller) { agent, call in
            call.reply(.getStatus, String(decoding: await agent.statusWithRoundTrips().json(), as: UTF8.self))
        }
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
