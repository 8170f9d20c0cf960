import BatonAgent
import BatonContinuity
import CGLib
import Foundation

/// The agent of the launch figure, hosted by this executable instead of `batond` because it
/// needs a launcher (`BenchLauncher`) and `batond` here has none. It is the same library code
/// as `batond` (`Agent` and `AgentServer`), started the same way:
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
        let launcher = BenchLauncher(socketPath: socketPath)
        do {
            let peers = arguments.dropFirst(2).compactMap { PeerAddress($0) }
            let agent = try Agent(identity: try DeviceIdentity.load(from: directory), identityDirectory: directory, staticPeers: peers)
            agent.launcher = launcher
            try agent.start()
            let socket = try listeningSocket(at: socketPath)
            let server = try AgentServer(listeningSocket: socket, agent: agent)
            g_object_unref(UnsafeMutableRawPointer(socket))
            MainLoop.whenReadable(STDIN_FILENO) {
                var byte: UInt8 = 0
                guard read(STDIN_FILENO, &byte, 1) == 1 else {
                    MainLoop.quit()
                    return .stop
                }
                return .again
            }
            say("ready \(agent.node.port ?? 0)")
            MainLoop.run()
            server.stop()
            agent.stop()
            launcher.stopAll()
            unlink(socketPath)
            exit(0)
        } catch {
            say("agent failed: \(error)")
            launcher.stopAll()
            exit(1)
        }
    }

    /// A listening Unix stream socket at `path` (as `batond` binds its own).
    static func listeningSocket(at path: String) throws -> OpaquePointer {
        var error: UnsafeMutablePointer<GError>?
        guard let socket = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error) else {
            throw GLibError(consuming: error!)
        }
        let address = g_unix_socket_address_new(path)!
        defer { g_object_unref(UnsafeMutableRawPointer(address)) }
        let mask = umask(0o177)
        let bound = g_socket_bind(socket, address, 0, &error)
        umask(mask)
        guard bound != 0, g_socket_listen(socket, &error) != 0 else {
            g_object_unref(UnsafeMutableRawPointer(socket))
            throw GLibError(consuming: error!)
        }
        return OpaquePointer(socket)
    }
}
