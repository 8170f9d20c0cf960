// `batond`: the per-user Baton agent. It owns this device (identity, listener, links, discovery)
// for all of the user's Baton apps, which join it over a Unix socket.
//     batond [--config DIR | --device DIR] [--listen [HOST:]PORT] [--peer HOST:PORT]… [--socket PATH]
// --config/--device: the device's identity directory (default: $XDG_CONFIG_HOME/baton/device);
// --listen: where the device listens (default 127.0.0.1:0); --peer: static peers (also those of
// $BATON_PEERS or $XDG_CONFIG_HOME/baton/peers); --socket: the agent's socket (default
// $XDG_RUNTIME_DIR/baton/agent.socket). Prints one line saying where the device listens and where
// the agent's socket is. SIGTERM and SIGINT stop it.
import BatonAgent
import BatonContinuity
import BatonLoop
import CGLib
import Foundation

func refuse(_ message: String) -> Never {
    FileHandle.standardError.write(Data("batond: \(message)\n".utf8))
    exit(2)
}

func value(after option: String, in arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: option) else { return nil }
    guard index + 1 < arguments.count else { refuse("\(option) needs a value") }
    return arguments[index + 1]
}

/// A listening Unix stream socket at `path` (mode 0600), replacing a stale socket file.
@MainActor
func listeningSocket(at path: String) throws -> OpaquePointer {
    var error: UnsafeMutablePointer<GError>?
    guard let socket = g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, &error) else {
        throw GLibError(consuming: error!)
    }
    var status = stat()
    if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK { unlink(path) }
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

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") {
    print("usage: batond [--config DIR] [--listen [HOST:]PORT] [--peer HOST:PORT]… [--socket PATH]")
    exit(0)
}
let directory = (value(after: "--config", in: arguments) ?? value(after: "--device", in: arguments))
    .map { URL(fileURLWithPath: $0) } ?? ConfigDirectory.standard().deviceDirectory
let socketPath = value(after: "--socket", in: arguments) ?? AgentConnection.defaultSocketPath
let peerArguments = arguments.indices.filter { arguments[$0] == "--peer" }.map { index -> String in
    guard index + 1 < arguments.count else { refuse("--peer needs a value") }
    return arguments[index + 1]
}
let configuration: PeerConfiguration
do {
    configuration = try PeerConfiguration.read(environment: ProcessInfo.processInfo.environment, peerArguments: peerArguments,
                                               listenArgument: value(after: "--listen", in: arguments))
} catch {
    refuse("\(error)")
}

/// Stops the loop on SIGTERM or SIGINT (the sources stay until main removes them).
let stopOnSignal: GSourceFunc = { _ in
    MainLoop.quit()
    return 1
}

MainActor.assumeIsolated {
    let agent: Agent
    let server: AgentServer
    do {
        agent = try Agent(identity: try DeviceIdentity.load(from: directory), identityDirectory: directory,
                          staticPeers: configuration.peers)
        try agent.start(host: configuration.listen.host, port: configuration.listen.port)
        try FileManager.default.createDirectory(atPath: (socketPath as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let socket = try listeningSocket(at: socketPath)
        server = try AgentServer(listeningSocket: socket, agent: agent)
        g_object_unref(UnsafeMutableRawPointer(socket))
    } catch {
        FileHandle.standardError.write(Data("batond: \(error)\n".utf8))
        exit(1)
    }
    let listening = PeerAddress(host: configuration.listen.host, port: agent.node.port ?? 0)
    FileHandle.standardOutput.write(Data("batond: device \(PrintableText.escaped(agent.node.identity.name)) listening on \(listening), agent socket \(socketPath)\n".utf8))
    let signals = [g_unix_signal_add(SIGTERM, stopOnSignal, nil), g_unix_signal_add(SIGINT, stopOnSignal, nil)]
    MainLoop.run()
    for id in signals { g_source_remove(id) }
    server.stop()
    agent.stop()
    unlink(socketPath)
}
exit(0)
