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
/// It prints `ready PORT` once it listens. A line `launch ENTRY` on its input starts the app of
/// the desktop entry file ENTRY through GIO, the way its launcher does, but only to
/// `didFinishLaunching` (the launch figure's baseline, started from this small process as the
/// agent's launches are). End of input stops it and every app it launched.
///
/// The apps its launcher starts write to their log (`LaunchedAppLog`), not to this process's
/// output: when one ends, the `restored` and `failed` lines its launch added to the log are
/// printed on this process's output (their times are the app's own, so printing them late
/// changes no figure).
@MainActor
enum AgentMode {
    /// Set in the environment of a baseline launch: the bench app ends once it has printed
    /// `launched NS`.
    static let exitAfterLaunchVariable = "BATON_BENCH_EXIT_AFTER_LAUNCH"

    /// Starts the app of `entry` with `exitAfterLaunchVariable` set; its process ID, or nil
    /// (said on the output) when GIO could not.
    private static func launchToFinish(entry: String) -> pid_t? {
        guard let info = g_desktop_app_info_new_from_filename(entry) else {
            say("launch failed: \(entry) is not a launchable desktop entry")
            return nil
        }
        defer { g_object_unref(UnsafeMutableRawPointer(info)) }
        let context = g_app_launch_context_new()!
        defer { g_object_unref(UnsafeMutableRawPointer(context)) }
        g_app_launch_context_setenv(context, exitAfterLaunchVariable, "1")
        var pid: pid_t = 0
        var error: UnsafeMutablePointer<GError>?
        let launched = withUnsafeMutablePointer(to: &pid) { pidPointer in
            g_desktop_app_info_launch_uris_as_manager(info, nil, context, G_SPAWN_SEARCH_PATH, nil, nil,
                                                      { _, pid, data in data!.assumingMemoryBound(to: pid_t.self).pointee = pid },
                                                      pidPointer, &error)
        }
        guard launched != 0 else {
            say("launch failed: \(GLibError(consuming: error!).message)")
            return nil
        }
        return pid
    }

    static func run(_ arguments: [String]) -> Never {
        guard arguments.count >= 2 else {
            say("usage: BatonBench --agent-mode SOCKET DEVICE-DIR [PEER-HOST:PORT…]")
            exit(2)
        }
        let socketPath = arguments[0], directory = URL(fileURLWithPath: arguments[1])
        let launcher = DesktopAppLauncher(catalog: InstalledAppCatalog())
        var launched: [pid_t] = []
        launcher.onLaunched = { _, pid in launched.append(pid) }
        var logRead: [String: UInt64] = [:]  // by log file: the bytes already printed
        let log = launcher.log
        launcher.onExited = { exit in
            guard let file = log.file(of: exit.appID), let handle = try? FileHandle(forReadingFrom: file) else { return }
            defer { try? handle.close() }
            try? handle.seek(toOffset: logRead[file.path] ?? 0)
            let added = (try? handle.readToEnd()) ?? Data()
            logRead[file.path, default: 0] += UInt64(added.count)
            for line in String(decoding: added, as: UTF8.self).split(separator: "\n")
            where line.hasPrefix("restored ") || line.hasPrefix("failed ") {
                say(String(line))
            }
        }
        // GIO's spawn detaches the apps (they are not this process's children): each one still
        // running is killed, checked to be a bench app first, as its process ID may be reused.
        func stopLaunched() {
            for pid in launched {
                let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
                if command.contains("--agent-app-mode") { kill(pid, SIGKILL) }
            }
        }
        do {
            let peers = arguments.dropFirst(2).compactMap { PeerAddress($0) }
            let agent = try Agent(identity: try DeviceIdentity.load(from: directory), identityDirectory: directory, staticPeers: peers)
            agent.launcher = launcher
            try agent.start(host: "127.0.0.1")
            let socket = try AgentListeningSocket.bind(socketPath)
            let server = try AgentServer(listeningSocket: socket, agent: agent)
            g_object_unref(UnsafeMutableRawPointer(socket))
            let input = StandardInputLines(atEnd: { MainLoop.quit() }) { line in
                guard line.hasPrefix("launch ") else { return }
                if let pid = launchToFinish(entry: String(line.dropFirst("launch ".count))) { launched.append(pid) }
            }
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
