import Baton
import BatonLoop
import CBatonStreams
import CGLib
import Foundation
import Logging

/// Starts an installed app to continue an activity, through GIO's `GDesktopAppInfo`, from the
/// desktop entry `InstalledAppCatalog` finds for it: by D-Bus activation
/// (`org.freedesktop.Application.Activate`) when the entry says `DBusActivatable=true` and there
/// is a session bus, else by its `Exec=` line (so an entry Baton writes always keeps one).
///
/// The launch context gives the app:
/// - `BATON_CONTINUE_ACTIVITY_TYPE=<type>` (Exec launches only; D-Bus activation passes no
///   environment), which the app finds in its launch options as
///   `Application.LaunchOptionsKey.userActivityType`;
/// - the activation token, two ways, because GLib 2.74 alone passes none of it to a headless
///   launcher: `XDG_ACTIVATION_TOKEN` and `DESKTOP_STARTUP_ID` in the environment of an Exec
///   launch (set on the context, whatever the entry says), and the context's startup-notify id
///   (a `GAppLaunchContext` subclass in C, `baton_app_launch_context_new`), which GIO hands to
///   a D-Bus activated app as platform data `desktop-startup-id` — the one way a token reaches
///   it — when the entry says `StartupNotify=true`. A token that is empty, over 256 bytes or
///   not printable ASCII is not passed (and logged);
/// - none of systemd's socket-activation variables (`LISTEN_FDS`, `LISTEN_PID`,
///   `LISTEN_FDNAMES`), which are the agent's own: they are unset in the context's environment.
///
/// An Exec launch gives the app `/dev/null` as standard input and its log
/// (`LaunchedAppLog`: `$XDG_STATE_HOME/baton/apps/<appID>.log`) as standard output and error;
/// GIO's spawn closes every other descriptor in the app. The app stays the launcher's child
/// (`G_SPAWN_DO_NOT_REAP_CHILD`: without it GLib's spawn reaps the app through an intermediate
/// process, and no one here could learn how it ended): a child watch on the loop's context reaps
/// it and reports how it ended, with its last lines, to `launch(…, exited:)`'s handler and to
/// `onExited`. A D-Bus activated app is the bus's child, not the launcher's: nothing reports
/// its end.
///
/// The launch is synchronous (GIO's own call; a D-Bus activation is sent and not waited for). It
/// starts on the app's loop (what GIO attaches, a session-bus connection, attaches there). A
/// child watch lives until its process ends, even past the launcher.
@MainActor
public final class DesktopAppLauncher: AppLaunching {
    /// Where installed apps are looked up.
    public let catalog: InstalledAppCatalog
    /// Called with the app's id and process id after each Exec launch (not for D-Bus
    /// activation, where the bus starts the app).
    public var onLaunched: ((_ appID: String, _ processID: pid_t) -> Void)?
    /// Called when a process of an Exec launch ends (after the handler given to that launch).
    public var onExited: ((LaunchedAppExit) -> Void)?
    /// Where the output of the apps started by their Exec line goes.
    public let log: LaunchedAppLog

    /// The agent's socket, passed to Exec-launched apps as `BATON_AGENT_SOCKET`, so an app
    /// started with no `--agent` joins the agent that launched it wherever its socket is
    /// (`batond --socket`); nil passes nothing (the app finds the user's default socket).
    public var agentSocketPath: String?

    /// The environment variables a launched app never inherits from the agent.
    nonisolated public static let withheldVariables = ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"]
    /// The longest activation token passed on.
    nonisolated public static let maximumTokenLength = 256

    /// A launcher for the apps `catalog` finds (by default, the user's and the system's),
    /// writing their output to `log` (by default, under the state directory of the catalog's
    /// environment).
    public init(catalog: InstalledAppCatalog = InstalledAppCatalog(), log: LaunchedAppLog? = nil) {
        self.catalog = catalog
        self.log = log ?? LaunchedAppLog(environment: catalog.environment)
    }

    /// The installed app that continues `activity` (`InstalledAppCatalog.app(continuing:)`).
    public func appID(continuing activity: NearbyActivity) -> String? { catalog.app(continuing: activity)?.appID }

    /// Starts the installed app `appID` to continue an activity of `activityType`, passing
    /// `activationToken` (see the type's description). Throws `AppLaunchError`.
    public func launch(appID: String, activityType: String, activationToken: String?) throws {
        try launch(appID: appID, activityType: activityType, activationToken: activationToken) { _ in }
    }

    /// Starts the app as `launch(appID:activityType:activationToken:)` does; `exited` is called
    /// on the loop when a process started by its Exec line ends (never for D-Bus activation).
    public func launch(appID: String, activityType: String, activationToken: String?,
                       exited: @escaping @MainActor (LaunchedAppExit) -> Void) throws {
        guard let app = catalog.app(withID: appID) else { throw AppLaunchError.notInstalled(appID: appID) }
        let manifest = app.manifest
        let declared = activityType == UserActivity.browsingWebType ? !manifest.continuationDomains.isEmpty
            : manifest.activityTypes.contains(activityType) || manifest.documentTypes.contains { $0.activityType == activityType }
        guard declared else {
            throw AppLaunchError.doesNotContinue(appID: appID, activityType: activityType, manifest: app.manifestFile.path)
        }
        let entry = app.desktopEntry.file.path
        let token = activationToken.flatMap { token -> String? in
            guard Self.isAcceptable(token: token) else {
                Logger(label: "baton").notice("not passing an activation token to \(appID): it is not a printable ASCII string of 1-\(Self.maximumTokenLength) bytes")
                return nil
            }
            return token
        }

        // GIO opens the entry again, blocking: make sure first, without blocking, that it is
        // still a regular file (a FIFO put in its place since the catalog read it would hang the loop).
        do { _ = try FileContents.read(entry, limit: DesktopEntry.sizeLimit) } catch {
            throw AppLaunchError.notLaunchable(appID: appID, desktopEntry: entry)
        }
        let opened: LaunchedAppLog.Opened?
        do { opened = try log.open(for: appID) } catch {
            Logger(label: "baton").notice("\(PrintableText.escaped(appID))'s output is not logged: \(error)")
            opened = nil
        }
        let result: (pids: [pid_t], error: String?, launchable: Bool) = MainLoop.withThreadDefaultContext {
            guard let info = g_desktop_app_info_new_from_filename(entry) else { return ([], nil, false) }
            defer { g_object_unref(UnsafeMutableRawPointer(info)) }
            let context = baton_app_launch_context_new(token)!.assumingMemoryBound(to: GAppLaunchContext.self)
            defer { g_object_unref(context) }
            g_app_launch_context_setenv(context, LaunchEnvironment.continueActivityTypeVariable, activityType)
            if let socket = agentSocketPath { g_app_launch_context_setenv(context, "BATON_AGENT_SOCKET", socket) }
            if let token {
                g_app_launch_context_setenv(context, "XDG_ACTIVATION_TOKEN", token)
                g_app_launch_context_setenv(context, "DESKTOP_STARTUP_ID", token)
            } else {
                g_app_launch_context_unsetenv(context, "XDG_ACTIVATION_TOKEN")
                g_app_launch_context_unsetenv(context, "DESKTOP_STARTUP_ID")
            }
            for variable in Self.withheldVariables { g_app_launch_context_unsetenv(context, variable) }
            var pids: [pid_t] = []
            var error: UnsafeMutablePointer<GError>?
            let flags = GSpawnFlags(G_SPAWN_SEARCH_PATH.rawValue | G_SPAWN_DO_NOT_REAP_CHILD.rawValue)
            let output = opened?.descriptor ?? -1
            let launched = withUnsafeMutablePointer(to: &pids) { pidsPointer in
                g_desktop_app_info_launch_uris_as_manager_with_fds(info, nil, context, flags, nil, nil,
                                                                   { _, pid, data in
                                                                       data!.assumingMemoryBound(to: [pid_t].self).pointee.append(pid)
                                                                   }, pidsPointer, -1, output, output, &error)
            }
            guard launched != 0 else { return (pids, GLibError(consuming: error!).message, true) }
            return (pids, nil, true)
        }
        // Every process GIO spawned is watched (and so reaped), even when the launch failed after
        // spawning some: with G_SPAWN_DO_NOT_REAP_CHILD nobody else would.
        for pid in result.pids {
            watch(pid, of: appID, output: opened, exited: exited)
            if result.error == nil { onLaunched?(appID, pid) }
        }
        guard result.launchable else { throw AppLaunchError.notLaunchable(appID: appID, desktopEntry: entry) }
        if let reason = result.error { throw AppLaunchError.failed(appID: appID, desktopEntry: entry, reason: reason) }
    }

    /// Reaps `pid` when it ends, on the loop's context, and reports how it ended with the last
    /// lines of `output`; the watch source and its box are released then (and `output` closed
    /// with the last box that holds it).
    private func watch(_ pid: pid_t, of appID: String, output: LaunchedAppLog.Opened?,
                       exited: @escaping @MainActor (LaunchedAppExit) -> Void) {
        let logFile = output == nil ? nil : log.file(of: appID)
        let box = ChildWatchBox { [weak self] pid, waitStatus in
            let exit = LaunchedAppExit(appID: appID, processID: pid, status: LaunchedAppExit.status(waitStatus: waitStatus),
                                       lastLines: output.map(LaunchedAppLog.lastLines(of:)) ?? [])
            let said = "launched app \(PrintableText.escaped(appID)) (pid \(pid)) \(exit.statusDescription)"
                + (logFile.map { "; its output is in \(PrintableText.escaped($0.path))" } ?? "")
            Logger(label: "baton").info("\(said)")
            exited(exit)
            self?.onExited?(exit)
        }
        let source = g_child_watch_source_new(pid)!
        g_source_set_callback(source, unsafeBitCast(childWatchTrampoline, to: GSourceFunc.self), box.retainedOpaque(),
                              CallbackBox.destroyNotify)
        g_source_attach(source, MainLoop.context.gContext)
        g_source_unref(source)
    }

    /// Whether `token` may be passed on: 1–`maximumTokenLength` bytes of printable ASCII (what
    /// startup-notification ids and xdg-activation tokens are).
    nonisolated static func isAcceptable(token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= maximumTokenLength && token.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}

/// The closure a child watch runs, handed to GLib as `user_data`.
private final class ChildWatchBox: CallbackBox, @unchecked Sendable {
    let body: @MainActor (pid_t, Int32) -> Void
    init(_ body: @escaping @MainActor (pid_t, Int32) -> Void) { self.body = body }
}

/// GLib's `GChildWatchFunc` for `ChildWatchBox`: runs on the loop's (main) thread. GLib reaps
/// the child before calling it, and removes the source after.
private let childWatchTrampoline: GChildWatchFunc = { pid, waitStatus, userData in
    let box = ChildWatchBox.borrow(userData!)
    MainActor.assumeIsolated { box.body(pid, waitStatus) }
}
