// `batond`: the per-user Baton agent. It owns this device (identity, listener, links, discovery)
// for all of the user's Baton apps, which join it over a Unix socket.
//
//     batond [--config DIR | --device DIR] [--listen [HOST:]PORT | --local] [--peer HOST:PORT]…
//            [--socket PATH] [--authority DIR] [--no-notifications] [--ready-fd FD] [--version]
//
// --config: the configuration folder, as for `baton` (default: $XDG_CONFIG_HOME/baton): the
// identity in DIR/device, the settings in DIR/agent.conf, the static peers in DIR/peers;
// --device: the device's identity folder alone (settings and peers then from the default
// configuration folder);
// --listen: where the device listens (default: `Listen=` in agent.conf, else every interface,
// IPv6 and IPv4, on any free port; the admission gate and mutual TLS keep strangers out);
// --local: listen on loopback only (127.0.0.1), so no other machine reaches the device;
// --peer: static peers (also those of $BATON_PEERS or the configuration folder's peers);
// --socket: the agent's socket (default $BATON_AGENT_SOCKET, else
// $XDG_RUNTIME_DIR/baton/agent.socket; systemd's when socket-activated);
// --authority: the configuration folder whose group/ holds the group's authority, for pairing
// windows (`baton pair --accept` through the agent; default: `Authority=` in agent.conf, else
// the folder holding the device's identity folder);
// --no-notifications: no desktop notifications, of nearby activities or pairing requests (also
// `Notifications=false` in agent.conf);
// --ready-fd: write one byte there once listening (how an app that started it knows).
// Prints one line saying where the device listens and where the agent's socket is, and one
// saying whether the group's devices can find it (discovery). A second agent for the same
// socket says so and exits with status 3. SIGTERM and SIGINT stop it.
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
    print("usage: batond [--config DIR | --device DIR] [--listen [HOST:]PORT | --local] [--peer HOST:PORT]… [--socket PATH] [--authority DIR] [--no-notifications] [--ready-fd FD] [--version]")
    exit(0)
}
if arguments.contains("--version") {
    print("batond \(BatonVersion.current)")
    exit(0)
}
let explicitFolder = value(after: "--config", in: arguments)
if explicitFolder != nil, value(after: "--device", in: arguments) != nil { refuse("give --config (the configuration folder) or --device (the identity folder), not both") }
let configFolder = explicitFolder.map { ConfigDirectory(url: URL(fileURLWithPath: $0)) } ?? .standard()
if let explicitFolder, !FileManager.default.fileExists(atPath: configFolder.deviceDirectory.path),
   FileManager.default.fileExists(atPath: URL(fileURLWithPath: explicitFolder).appendingPathComponent("certificate.pem").path) {
    refuse("--config takes the configuration folder (the one that holds device/), as for baton; \(PrintableText.escaped(explicitFolder)) is a device's identity folder: give it with --device")
}
let directory = value(after: "--device", in: arguments).map { URL(fileURLWithPath: $0) } ?? configFolder.deviceDirectory
let runtime = value(after: "--socket", in: arguments).map(AgentRuntimeDirectory.init(socketPath:)) ?? .standard()
let readyFD: Int32? = value(after: "--ready-fd", in: arguments).map { text in
    guard let fd = Int32(text), fd >= 0 else { refuse("--ready-fd needs a descriptor number, not \(text)") }
    return fd
}
let peerArguments = arguments.indices.filter { arguments[$0] == "--peer" }.map { index -> String in
    guard index + 1 < arguments.count else { refuse("--peer needs a value") }
    return arguments[index + 1]
}
let local = arguments.contains("--local")
if local, value(after: "--listen", in: arguments) != nil { refuse("give --listen or --local, not both") }
let settings: AgentSettings
do { settings = try AgentSettings.read(from: AgentSettings.file(in: configFolder)) } catch { refuse("\(error)") }
var configuration: PeerConfiguration
do {
    configuration = try PeerConfiguration.read(directory: configFolder, environment: ProcessInfo.processInfo.environment,
                                               peerArguments: peerArguments,
                                               listenArgument: local ? nil : value(after: "--listen", in: arguments) ?? settings.listen)
} catch {
    refuse("\(error)")
}
if local { configuration.listen = .loopback }

/// Stops the loop on SIGTERM or SIGINT (the sources stay until main removes them).
let stopOnSignal: GSourceFunc = { _ in
    MainLoop.quit()
    return 1
}

/// Set once every linked peer has been told goodbye (or the time for it has passed).
@MainActor
final class GoodbyesSaid {
    var done = false
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
        agent.startedBy = host.origin == .systemd ? .systemd : readyFD != nil ? .autostart : .command
        agent.socketPath = runtime.socketPath
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
    launcher.agentSocketPath = runtime.socketPath  // a launched app joins this agent, wherever its socket is
    agent.launcher = launcher
    let log = Logger(label: "baton.agent")
    let notifier = ContinueNotifier(enabled: settings.notifications && !arguments.contains("--no-notifications"),
                                    destination: ContinueNotifier.destination(using: catalog, agent: agent)) { [weak agent] activity, token in
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

    let listening = PeerAddress(host: agent.node.listeningHost ?? configuration.listen.host, port: agent.node.port ?? 0)
    let origin = host.origin == .systemd ? " (from systemd)" : ""
    FileHandle.standardOutput.write(Data("batond: device \(PrintableText.escaped(agent.node.identity.name)) listening on \(listening), agent socket \(runtime.socketPath)\(origin)\n".utf8))
    // Once, at start, in words a person can act on: whether the group's devices can find this
    // one. (Discovery's later changes are logged, and `baton status` shows the state now.)
    let discoveryNow = agent.node.discoveryStatus
    if !discoveryNow.isWorking, discoveryNow != .stopped {
        FileHandle.standardOutput.write(Data("batond: discovery \(discoveryNow.explanation)\n".utf8))
    }
    if let readyFD { AgentHost.signalReady(on: readyFD) }
    let signals = [g_unix_signal_add(SIGTERM, stopOnSignal, nil), g_unix_signal_add(SIGINT, stopOnSignal, nil)]
    MainLoop.run()
    for id in signals { g_source_remove(id) }
    notifier.stop()
    pairingNotifier.stop()
    server.stop()
    // The peers are told with TLS close_notify (bounded: a peer that does not read cannot hold
    // the stop up), then everything else stops, the socket goes and the lock is released.
    let goodbyes = GoodbyesSaid()
    Task { @MainActor in
        await agent.node.closeLinks()
        goodbyes.done = true
    }
    MainLoop.run(until: { goodbyes.done }, timeout: ContinuityNode.goodbyeDeadline * 2)
    agent.stop()
    host.stop()
    withExtendedLifetime(launcher) {}
}
exit(0)
