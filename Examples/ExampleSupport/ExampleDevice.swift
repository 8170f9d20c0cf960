import Baton
import BatonAgent
import BatonContinuity
import BatonLoop
import Foundation

/// Prints a line of an example's transcript escaped (`PrintableText.escaped`, which leaves what
/// is already escaped as it is): whatever part of it came from a file or another device, no
/// control or bidirectional character reaches the terminal.
public func say(_ line: String) {
    // Line by line, so a usage text keeps its lines; what another device sent is escaped whole
    // where it is interpolated (`shown`), newlines included.
    let text = line.split(separator: "\n", omittingEmptySubsequences: false).map { PrintableText.escaped(String($0)) }.joined(separator: "\n")
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

/// `text`, from another device, made safe to print: control and bidirectional characters
/// written as visible escapes (`PrintableText.escaped`).
public func shown(_ text: String) -> String { PrintableText.escaped(text) }

/// An example app's continuity node, and the "continue what another device offers" flow.
@MainActor
public final class ExampleDevice {
    public let options: DeviceOptions
    public private(set) var node: ContinuityNode?
    /// The connection to the agent, with `--agent`.
    public private(set) var agent: AgentConnection?
    private var observer: NSObjectProtocol?
    private var nearbyShown: NSObjectProtocol?
    private var input: StandardInputLines?
    private var continued = false

    public init(_ options: DeviceOptions) { self.options = options }

    /// Starts the node; says where it listens. Throws what stopped it. With `--agent`, joins
    /// the agent instead, says so, prints `nearby now: …` at each change of the nearby
    /// activities, and takes lines on standard input: `activate` and `deactivate` make the
    /// app active or inactive (the agent advertises the active app's activity).
    public func start() throws {
        if let socket = options.agentSocket {
            let agent = AgentConnection.join(socketPath: socket)
            agent.onJoined = { say("joined the agent at \(socket)") }
            self.agent = agent
            nearbyShown = NotificationCenter.default.addObserver(forName: Application.nearbyActivitiesDidChangeNotification,
                                                                 object: nil, queue: nil) { _ in
                MainActor.assumeIsolated {
                    let nearby = Application.shared.nearbyActivities
                    say("nearby now: " + (nearby.isEmpty ? "none" : nearby.map { "\(shown($0.activityType)) on \(shown($0.device))" }
                        .joined(separator: ", ")))
                }
            }
            input = StandardInputLines { line in
                switch line {
                case "activate": Application.shared.activate()
                case "deactivate": Application.shared.deactivate()
                default: say("unknown command \(shown(line))")
                }
            }
            return
        }
        let node = try ContinuityNode(identity: try DeviceIdentity.load(from: options.directory),
                                      identityDirectory: options.directory, staticPeers: options.peers)
        try node.start(host: options.listen.host, port: options.listen.port)
        self.node = node
        say("device \(shown(node.identity.name)) listening on \(PeerAddress(host: options.listen.host, port: node.port ?? 0))")
    }

    /// Says that the app waits for the continuation the agent hands it (the launch form the
    /// agent starts it with: `DeviceOptions.waitingForTheAgent`). The app continues only what
    /// the agent hands it, once; it looks at no nearby activity itself.
    public func waitForTheAgent() {
        say("waiting for the agent to hand over an activity")
    }

    /// Continues the first nearby activity whose type is one of `types` as soon as one is
    /// offered; then `whenGone` runs once the device it came from has gone.
    public func continueFirstNearby(of types: [String], whenGone: @escaping @MainActor () -> Void) {
        observer = NotificationCenter.default.addObserver(forName: Application.nearbyActivitiesDidChangeNotification,
                                                          object: nil, queue: nil) { [weak self] _ in
            MainActor.assumeIsolated { self?.nearbyChanged(types, whenGone) }
        }
    }

    private func nearbyChanged(_ types: [String], _ whenGone: @MainActor () -> Void) {
        let nearby = Application.shared.nearbyActivities
        if continued {
            if nearby.isEmpty { whenGone() }
            return
        }
        guard let entry = nearby.first(where: { types.contains($0.activityType) }) else { return }
        continued = true
        say("nearby: \"\(shown(entry.title ?? ""))\" (\(shown(entry.activityType))) on \(shown(entry.device))")
        Application.shared.continueNearbyActivity(entry)
    }

    public func stop() {
        if let observer { NotificationCenter.default.removeObserver(observer) }
        if let nearbyShown { NotificationCenter.default.removeObserver(nearbyShown) }
        input?.stop()
        agent?.leave()
        node?.stop()
    }
}
