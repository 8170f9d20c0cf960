import ArgumentParser
import Baton
import BatonAgent
import Foundation

/// `baton app`: installs, lists and removes the user's own Baton apps (desktop entry and
/// manifest in $XDG_DATA_HOME, and the D-Bus service file of a D-Bus activatable one), so the
/// agent can start the one that continues an activity.
struct AppCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app", abstract: "Install, list and remove Baton apps.",
        discussion: """
            An installed app is a desktop entry applications/APPID.desktop (its desktop id is the \
            app's CFBundleIdentifier) and its manifest baton/apps/APPID.plist (a copy of its Info.plist), \
            under $XDG_DATA_HOME or one of $XDG_DATA_DIRS. The agent starts it from there to continue \
            an activity of a type its manifest declares.
            """,
        subcommands: [Install.self, List.self, Remove.self])

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install an app into $XDG_DATA_HOME.",
            discussion: """
                Writes the desktop entry and the manifest (and, with --dbus-activatable, the D-Bus service file \
                dbus-1/services/APPID.service) together or not at all. Files already there are replaced only if \
                baton installed them for the same app; reinstalling without --dbus-activatable removes the \
                service file baton wrote before.
                """)
        @Argument(help: "The app's Info.plist (CFBundleIdentifier, BatonTeamIdentifier, NSUserActivityTypes…).")
        var manifest: String
        @Option(name: .long, help: "The desktop entry's Exec line: the program (an absolute path, or a name on PATH) and its arguments, quoted as in a desktop entry (%% for a literal %).")
        var exec: String
        @Option(name: .long, help: "The name the desktop shows (default: the app's id).") var name: String?
        @Flag(name: .long, help: """
            Start it by D-Bus activation where there is a session bus: DBusActivatable=true, and a D-Bus service \
            file that runs the --exec command line (field codes expanded as for a launch without files) with \
            --gapplication-service appended, for an app that is a GApplication (a BatonGtk app).
            """)
        var dbusActivatable = false

        func run() throws {
            let installed = try AppInstaller.install(manifestFile: URL(fileURLWithPath: manifest), exec: exec, name: name,
                                                     dbusActivatable: dbusActivatable, into: AppInstaller.dataHome())
            let files = [installed.desktopEntry, installed.manifest] + (installed.dbusService.map { [$0] } ?? [])
            print("\(installed.replaced ? "updated" : "installed") \(shown(installed.appID)): \(files.map { shown($0.path) }.joined(separator: ", "))")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the installed apps, the user's first.",
            discussion: "One line each: id, team, the activity types it continues, its desktop entry. What is skipped, and why, goes to standard error.")

        func run() throws {
            let apps = InstalledApps.apps { FileHandle.standardError.write(Data("baton app list: \(shown($0))\n".utf8)) }
            if apps.isEmpty { print("no Baton apps installed; install one with `baton app install INFO.PLIST --exec PROGRAM`") }
            for app in apps {
                let types = app.manifest.activityTypes + app.manifest.documentTypes.compactMap(\.activityType)
                print("\(shown(app.appID))\t\(shown(app.manifest.teamIdentifier))\t\(shown(types.joined(separator: ",")))\t\(shown(app.desktopEntry.file.path))")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an app installed with `baton app install` from $XDG_DATA_HOME.",
            discussion: "Removes its desktop entry, manifest and D-Bus service file together; files baton did not write are left alone.")
        @Argument(help: "The app's id.") var appID: String

        func run() throws {
            let folder = AppInstaller.dataHome()
            try AppInstaller.remove(appID: appID, from: folder)
            print("removed \(shown(appID)) from \(shown(folder.path))")
        }
    }
}
