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
/// GIO's spawn closes every descriptor but 0–2 in the app and does not wait for it. The launch
/// is synchronous (GIO's own call; a D-Bus activation is sent and not waited for). It starts on
/// the app's loop (what GIO attaches, a session-bus connection, attaches there).
@MainActor
public final class DesktopAppLauncher: AppLaunching {
    /// Where installed apps are looked up.
    public let catalog: InstalledAppCatalog
    /// Called with the app's id and process id after each Exec launch (not for D-Bus
    /// activation, where the bus starts the app).
    public var onLaunched: ((_ appID: String, _ processID: pid_t) -> Void)?

    /// The environment variables a launched app never inherits from the agent.
    nonisolated public static let withheldVariables = ["LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES"]
    /// The longest activation token passed on.
    nonisolated public static let maximumTokenLength = 256

    /// A launcher for the apps `catalog` finds (by default, the user's and the system's).
    public init(catalog: InstalledAppCatalog = InstalledAppCatalog()) {
        self.catalog = catalog
    }

    /// The installed app that continues `activity` (`InstalledAppCatalog.app(continuing:)`).
    public func appID(continuing activity: NearbyActivity) -> String? { catalog.app(continuing: activity)?.appID }

    /// Starts the installed app `appID` to continue an activity of `activityType`, passing
    /// `activationToken` (see the type's description). Throws `AppLaunchError`.
    public func launch(appID: String, activityType: String, activationToken: String?) throws {
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

        let result: (pids: [pid_t], error: String?, launchable: Bool) = MainLoop.withThreadDefaultContext {
            guard let info = g_desktop_app_info_new_from_filename(entry) else { return ([], nil, false) }
            defer { g_object_unref(UnsafeMutableRawPointer(info)) }
            let context = baton_app_launch_context_new(token)!.assumingMemoryBound(to: GAppLaunchContext.self)
            defer { g_object_unref(context) }
            g_app_launch_context_setenv(context, LaunchEnvironment.continueActivityTypeVariable, activityType)
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
            let launched = withUnsafeMutablePointer(to: &pids) { pidsPointer in
                g_desktop_app_info_launch_uris_as_manager(info, nil, context, G_SPAWN_SEARCH_PATH, nil, nil,
                                                          { _, pid, data in
                                                              data!.assumingMemoryBound(to: [pid_t].self).pointee.append(pid)
                                                          }, pidsPointer, &error)
            }
            guard launched != 0 else { return (pids, GLibError(consuming: error!).message, true) }
            return (pids, nil, true)
        }
        guard result.launchable else { throw AppLaunchError.notLaunchable(appID: appID, desktopEntry: entry) }
        if let reason = result.error { throw AppLaunchError.failed(appID: appID, desktopEntry: entry, reason: reason) }
        for pid in result.pids { onLaunched?(appID, pid) }
    }

    /// Whether `token` may be passed on: 1–`maximumTokenLength` bytes of printable ASCII (what
    /// startup-notification ids and xdg-activation tokens are).
    nonisolated static func isAcceptable(token: String) -> Bool {
        !token.isEmpty && token.utf8.count <= maximumTokenLength && token.utf8.allSatisfy { (0x21...0x7E).contains($0) }
    }
}
