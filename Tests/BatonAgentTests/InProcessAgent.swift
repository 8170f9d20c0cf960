import BatonContinuity
import CGLib
import Foundation
@testable import BatonAgent

/// An agent in the test's own process, for tests that join an app to it without a second
/// process: a group, device A's identity in a new folder (mode 0700) under /tmp, the agent
/// started on loopback and serving `socketPath`. `stop()` stops both and removes the folder.
@MainActor
final class InProcessAgent {
    /// The test's folder: the group's authority, device A's identity, the socket.
    let root: URL
    /// The agent's socket, which `AgentConnection.join(socketPath:autostart:)` joins.
    let socketPath: String
    let agent: Agent
    private let server: AgentServer
    private let observation: DiagnosticsObservation?

    /// `observe`, when given, sees the agent's events from before it starts (so
    /// `agentServing` too), until `stop()`.
    init(folderPrefix: String, observe: (@MainActor (DiagnosticEvent) -> Void)? = nil) throws {
        let root = URL(fileURLWithPath: "/tmp").appendingPathComponent("\(folderPrefix)-\(UUID().uuidString.prefix(8))")
        self.root = root
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        chmod(root.path, 0o700)
        var started: (Agent, AgentServer, DiagnosticsObservation?)?
        defer { if started == nil { try? FileManager.default.removeItem(at: root) } }
        let authority = try GroupAuthority.create(name: "Ada", in: ConfigDirectory(url: root.appendingPathComponent("admin")))
        let folder = root.appendingPathComponent("A")
        try authority.issueDevice(named: "A").write(to: folder)
        let socketPath = root.appendingPathComponent("a.sock").path
        self.socketPath = socketPath
        let agent = try Agent(identity: try DeviceIdentity.load(from: folder), identityDirectory: folder)
        let observation = observe.map { agent.node.diagnostics.observe($0) }
        do {
            try agent.start(host: "127.0.0.1")
            let listening = try AgentListeningSocket.bind(socketPath)
            defer { g_object_unref(UnsafeMutableRawPointer(listening)) }
            started = (agent, try AgentServer(listeningSocket: listening, agent: agent), observation)
        } catch {
            agent.stop()
            observation?.cancel()
            throw error
        }
        (self.agent, server, self.observation) = started!
    }

    func stop() {
        server.stop()
        agent.stop()
        observation?.cancel()
        try? FileManager.default.removeItem(at: root)
    }
}
