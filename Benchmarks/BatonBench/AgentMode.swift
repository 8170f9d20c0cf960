import BatonAgent
import BatonContinuity
import CGLib
import Foundation

/// The agent of the launch figure: the same library code as `batond` (`Agent`, `AgentServer`
/// and the `DesktopAppLauncher` over the XDG data dirs, where the bench installed its app),
/// started the same way, hosted by this executable so that it can end the apps it launched
/// when it stops (`batond` leaves them running, as a desktop's launcher does).
///
///     BatonBench --agent-mode SOCKET DEVICE-DIR [PEER-HOST:PORT…]
///
/// It prints `ready PORT` once it listens; end of input stops it and every app it launched.
@MainActor
enum AgentMode {
    static func run(_ arguments: [String]) -> Never {
        guard arguments.count >= 2 else {
            say("usage: BatonBench --agent-mode SOCKET DEVICE-DIR [PEER-HOST:PORT…]")
            exit(2)
        }
        let socketPath = arguments[0], directory = URL(fileURLWithPath: arguments[1])
        let launcher = DesktopAppLauncher(catalog: InstalledAppCatalog())
        var launched: [pid_t] = []
        launcher.onLaunched = { _, pid in launched.append(pid) }
        func stopLaunched() {
            for pid in launched where kill(pid, SIGKILL) == 0 { _ = waitpid(pid, nil, 0) }
        }
        do {
            let peers = arguments.dropFirst(2).compactMap { PeerAddress($0) }
            let agent = try Agent(identity: try DeviceIdentity.load(from: directory), identityDirectory: directory, staticPeers: peers)
            agent.launcher = launcher
            try agent.start()
            let socket = try AgentListeningSocket.bind(socketPath)
            let server = try AgentServer(listeningSocket: socket, agent: agent)
            g_object_unref(UnsafeMutableRawPointer(socket))
            let input = StandardInputLines(atEnd: { MainLoop.quit() }) { _ in }
            say("ready \(agent.node.port ?? 0)")
            withExtendedLifetime(input) { MainLoop.run() }
            server.stop()
            agent.stop()
            stopLaunched()
            unlink(socketPath)
            exit(0)
        } catch {
            say("agent failed: \(error)")
            stopLaunched()
            exit(1)
        }
    }
}
