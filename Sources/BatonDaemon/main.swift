// `batond`: the per-user Baton agent. It owns this device (identity, listener, links, discovery)
// for all of the user's Baton apps, which join it over a Unix socket.
//
//     batond [--config DIR | --device DIR] [--listen [HOST:]PORT] [--peer HOST:PORT]…
//            [--socket PATH] [--authority DIR] [--no-notifications] [--ready-fd FD]
//
// --config/--device: the device's identity directory (default: $XDG_CONFIG_HOME/baton/device);
// --listen: where the device listens (default: `Listen=` in agent.conf, else 127.0.0.1:0);
// --peer: static peers (also those of $BATON_PEERS or $XDG_CONFIG_HOME/baton/peers);
// --socket: the agent's socket (default $BATON_AGENT_SOCKET, else
// $XDG_RUNTIME_DIR/baton/agent.socket; systemd's when socket-activated);
// --authority: the configuration folder whose group/ holds the group's authority, for pairing
// windows (`baton pair --accept` through the agent; default: `Authority=` in agent.conf, else
// the folder holding the device's identity folder);
// --no-notifications: no desktop notifications, of nearby activities or pairing requests (also
// `Notifications=false` in agent.conf);
// --ready-fd: write one byte there once listening (how an app that started it knows).
// Prints one line saying where the device listens and where the agent's socket is. A second
// agent for the same socket says so and exits with status 3. SIGTERM and SIGINT stop it.
import BatonAgent
import BatonContinuity
import BatonLoop
import CGLib
import Foundation
import Logging

func refuse(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("batond: \(message)\n".utf8))
    exit(status)
}

func value(after option: String, in arguments: [String]) -> String? {
    guard let index = arguments.firstIndex(of: option) else { return nil }
    guard index + 1 < arguments.count else { refuse("\(option) needs a value") }
    return arguments[index + 1]
}

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.contains("--help") {
    print("usage: batond [--config DIR] [--listen [HOST:]PORT] [--peer HOST:PORT]… [--socket PATH] [--authority DIR] [--no-notifications] [--ready-fd FD]")
    exit(0)
}
let directory = (value(after: "--config", in: arguments) ?? value(after: "--device", in: arguments))
    .map { URL(fileURLWithPath: $0) } ?? ConfigDirectory.standard().deviceDirectory
let runtime = value(after: "--socket", in: arguments).map(AgentRuntimeDirectory.init(socketPath:)) ?? .standard()
let readyFD: Int32? = value(after: "--ready-fd", in: arguments).map { text in
    guard let fd = Int32(text), fd >= 0 else { refuse("--ready-fd needs a descriptor number, not \(text)") }
    return fd
}
let peerArguments = arguments.indices.filter { arguments[$0] == "--peer" }.map { index -> String in
    guard index + 1 < arguments.count else { refuse("--peer needs a value") }
    return arguments[index + 1]
}
let settings: AgentSettings
do { settings = try AgentSettings.read(from: AgentSettings.file(in: ConfigDirectory.standard())) } catch { refuse("\(error)") }
let configuration: PeerConfiguration
do {
    configuration = try PeerConfiguration.read(environment: ProcessInfo.processInfo.environment, peerArguments: peerArguments,
                                               listenArgument: value(after: "--listen", in: arguments) ?? settings.listen)
} catch {
    refuse("\(error)")
}

/// Stops the loop on SIGTERM or SIGINT (the sources stay until main removes them).
let stopOnSignal: GSourceFunc = { _ in
    MainLoop.quit()
    return 1
}

MainActor.assumeIsolated {
    // The runtime directory, the lock, then the socket: a second agent stops here.
    let host: AgentHost
    do {
        host = try AgentHost(directory: runtime)
    } catch {
        if case .alreadyRunning? = error as? AgentHostError {
            refuse("\(error); not starting another", status: AgentAutostart.alreadyRunningStatus)
        }
        refuse("\(error)", status: 1)
    }
    let agent: Agent
    let server: AgentServer
    do {
        agent = try Agent(identity: try DeviceIdentity.load(from: directory), identityDirectory: directory,
                          staticPeers: configuration.peers)
        try agent.start(host: configuration.listen.host, port: configuration.listen.port)
        server = try AgentServer(listeningSocket: host.socket, agent: agent)
    } catch {
        host.stop()
        refuse("\(error)", status: 1)
    }
    // Apps not running are started from their desktop entries; the person is offered what is
    // nearby in notifications, where there is a desktop session.
    let catalog = InstalledAppCatalog()
    let launcher = DesktopAppLauncher(catalog: catalog)
    agent.launcher = launcher
    let log = Logger(label: "baton.agent")
    let notifier = ContinueNotifier(enabled: settings.notifications && !arguments.contains("--no-notifications"),
                                    destination: ContinueNotifier.destination(using: catalog)) { [weak agent] activity, token in
        agent?.continueNearby(activity, activationToken: token) { outcome in
            if case .failure(let failure) = outcome { log.notice("could not continue \(activity.activityType) from \(activity.device): \(failure)") }
        }
    }
    agent.onNearbyChanged = { [weak notifier] in notifier?.update($0) }
    notifier.start()
    // Pairing windows for the group whose authority is here, if any (read when one opens);
    // their requests are also shown as notifications on a desktop.
    let authorityFolder = (value(after: "--authority", in: arguments) ?? settings.authority).map { ConfigDirectory(url: URL(fileURLWithPath: $0)) }
        ?? ConfigDirectory(url: directory.standardizedFileURL.deletingLastPathComponent())
    let pairingNotifier = PairingNotifier(enabled: notifier.isEnabled)
    agent.enablePairing(authorityFolder: authorityFolder, notifier: pairingNotifier)
    pairingNotifier.start()

    let listening = PeerAddress(host: configuration.listen.host, port: agent.node.port ?? 0)
    let origin = host.origin == .systemd ? " (from systemd)" : ""
    FileHandle.standardOutput.write(Data("batond: device \(PrintableText.escaped(agent.node.identity.name)) listening on \(listening), agent socket \(runtime.socketPath)\(origin)\n".utf8))
    if let readyFD { AgentHost.signalReady(on: readyFD) }
    let signals = [g_unix_signal_add(SIGTERM, stopOnSignal, nil), g_unix_signal_add(SIGINT, stopOnSignal, nil)]
    MainLoop.run()
    for id in signals { g_source_remove(id) }
    notifier.stop()
    pairingNotifier.stop()
    server.stop()
    agent.stop()
    host.stop()
    withExtendedLifetime(launcher) {}
}
exit(0)
