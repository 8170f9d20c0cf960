import Baton
import BatonContinuity
import CGLib
import Foundation

/// Installs a user's own Baton app into a data directory (`$XDG_DATA_HOME`), the way
/// `InstalledApps` finds it: its desktop entry `applications/<appID>.desktop` and its manifest
/// `baton/apps/<appID>.plist` (a copy of its `Info.plist`, byte for byte); for an app installed
/// D-Bus activatable, also its D-Bus service file `dbus-1/services/<appID>.service`, which is
/// where the session bus (`dbus-daemon`'s `<standard_session_servicedirs/>`: `$XDG_DATA_HOME`
/// and `$XDG_DATA_DIRS`, each `/dbus-1/services`) finds what to start for the bus name the
/// desktop entry's `DBusActivatable=true` promises (the Desktop Entry Specification, "D-Bus
/// Activation": the app must have a D-Bus service activatable at the name its desktop file is
/// named after).
///
/// All the files are written or none (`FileTransaction`: temporary files, flushed, renamed into
/// place together, every step undone on failure). A file already there is replaced only if
/// Baton installed it for the same app — a desktop entry with `X-Baton-Installed=true`, a
/// manifest with the same `CFBundleIdentifier`, a service file that starts with
/// `serviceFileMarker` and names the app — so another app's or the user's own files are
/// never overwritten. Removing takes them all away together, and only Baton's.
public enum AppInstaller {
    /// The key that marks a desktop entry Baton wrote.
    public static let installedKey = "X-Baton-Installed"
    /// The first line of a D-Bus service file Baton wrote: a comment, which every reader of
    /// service files skips (the D-Bus specification's service file has no room for keys of
    /// others, so the mark is not a key).
    public static let serviceFileMarker = "# \(installedKey)=true (written by baton app install)"
    /// The option a `GApplication` takes to start as a D-Bus service (`--gapplication-service`:
    /// it registers on the bus and waits for the call that started it, emitting no `activate`
    /// of its own), appended to the service file's `Exec=`.
    public static let gapplicationServiceOption = "--gapplication-service"

    /// What `install` wrote.
    public struct Installation: Sendable, Equatable {
        /// The app's ID (its manifest's `CFBundleIdentifier`, the desktop entry's name).
        public var appID: String
        /// The desktop entry written, `applications/APPID.desktop`.
        public var desktopEntry: URL
        /// The manifest written, `baton/apps/APPID.plist`.
        public var manifest: URL
        /// The D-Bus service file written, `dbus-1/services/APPID.service`, when installed D-Bus
        /// activatable; nil otherwise.
        public var dbusService: URL?
        /// Whether an earlier installation of the same app was replaced.
        public var replaced: Bool
    }

    /// The data directory apps are installed in: `$XDG_DATA_HOME`, default `~/.local/share`.
    public static func dataHome(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        InstalledApps.dataDirectories(environment: environment)[0]
    }

    /// Installs the app whose `Info.plist` is `manifestFile` into `dataDirectory`, started by
    /// `exec` (a desktop-entry `Exec=` line; its program must be an executable file or on
    /// `PATH`), shown as `name` (default: the app's id). The entry says `StartupNotify=true`, so
    /// an activation token reaches the app however it starts.
    ///
    /// With `dbusActivatable`, the entry also says `DBusActivatable=true` (it keeps `Exec=` for
    /// hosts with no session bus), and the D-Bus service file `dbus-1/services/<appID>.service`
    /// is written beside it — `[D-BUS Service]`, `Name=<appID>` and an `Exec=` that the bus runs
    /// (see `serviceExec(_:name:desktopEntry:)`): `exec`'s program (resolved on `PATH` to an
    /// absolute path, as `dbus-daemon` does not search `PATH`) and its arguments, the
    /// desktop-entry field codes expanded as for a launch without files, then
    /// `--gapplication-service`. That option is always appended: an app launched by D-Bus
    /// activation must implement `org.freedesktop.Application` on the bus name it is started
    /// for, which a Baton app does as a `GApplication` (BatonGtk's `GtkApplicationMain`), and a
    /// `GApplication` takes that option to start as the service the bus waits for. Without
    /// `dbusActivatable`, a service file Baton wrote for the app earlier is removed with the
    /// same commit (one that is not Baton's is left alone).
    ///
    /// Throws `AppInstallError`; on any error nothing is changed.
    public static func install(manifestFile: URL, exec: String, name: String? = nil, dbusActivatable: Bool = false,
                               into dataDirectory: URL) throws(AppInstallError) -> Installation {
        let manifestData: Data
        let manifest: AppManifest
        do {
            manifest = try AppManifest(contentsOf: manifestFile)
            manifestData = try FileContents.read(manifestFile.path, limit: AppManifest.sizeLimit)
        } catch let error as AppManifestError {
            throw .badManifest(error.description)
        } catch {
            throw .badManifest("cannot read \(manifestFile.path)")
        }
        let appID = manifest.appID
        guard isValidAppID(appID) else { throw .invalidAppID(PrintableText.escaped(appID), manifest: manifestFile.path) }
        let name = name ?? appID
        for (option, value) in [("--exec", exec), ("--name", name)] where value.isEmpty || !PrintableText.isPrintable(value) {
            throw .invalidValue(option: option, value: PrintableText.escaped(value))
        }
        let program = try program(of: exec)
        guard !program.contains("/") || program.hasPrefix("/") else { throw .invalidValue(option: "--exec", value: "\(program) (not an absolute path)") }
        guard FileManager.default.isExecutableFile(atPath: program) || (!program.contains("/") && findInPath(program) != nil) else {
            throw .programNotFound(program)
        }

        let entryFile = desktopEntryFile(appID, in: dataDirectory)
        let manifestTarget = Self.manifestFile(appID, in: dataDirectory)
        let serviceTarget = dbusServiceFile(appID, in: dataDirectory)
        let replacedEntry = try checkReplaceable(entryFile: entryFile)
        let replacedManifest = try checkReplaceable(manifestFile: manifestTarget, appID: appID)
        var files = [(entryFile, desktopEntry(name: name, exec: exec, dbusActivatable: dbusActivatable)),
                     (manifestTarget, manifestData)]
        var staleService: URL?
        var replacedService = false
        if dbusActivatable {
            replacedService = try checkReplaceable(serviceFile: serviceTarget, appID: appID)
            files.append((serviceTarget, try serviceFile(appID: appID, exec: exec, name: name, desktopEntry: entryFile)))
        } else if isBatons(serviceFile: serviceTarget, appID: appID) {
            staleService = serviceTarget
        }

        // A stale service file is moved aside first, put back if the commit fails, and deleted
        // once it succeeded.
        let aside = try moveAside(staleService.map { [$0] } ?? [])
        let transaction = FileTransaction()
        do {
            for (target, data) in files { try transaction.write(data, to: target, mode: 0o644) }
            try transaction.commit()
        } catch {
            putBack(aside)
            guard case .cannotWrite(let path, let reason) = error else { throw .cannotWrite(path: entryFile.path, reason: "\(error)") }
            throw .cannotWrite(path: path, reason: reason)
        }
        for (_, asideFile) in aside { unlink(asideFile.path) }
        return Installation(appID: appID, desktopEntry: entryFile, manifest: manifestTarget,
                            dbusService: dbusActivatable ? serviceTarget : nil, replaced: replacedEntry || replacedManifest || replacedService)
    }

    /// Removes the app `appID` that Baton installed in `dataDirectory`: its desktop entry, its
    /// manifest and its D-Bus service file if Baton wrote one, all or none. Refuses
    /// (`wouldOverwrite`) a desktop entry or a manifest Baton did not write for the app, leaves
    /// a service file that is not Baton's alone, and says `notInstalled` when none of Baton's
    /// files is there.
    public static func remove(appID: String, from dataDirectory: URL) throws(AppInstallError) {
        guard isValidAppID(appID) else { throw .notInstalled(PrintableText.escaped(appID), dataDirectory: dataDirectory.path) }
        let entryFile = desktopEntryFile(appID, in: dataDirectory)
        let manifestTarget = Self.manifestFile(appID, in: dataDirectory)
        let serviceTarget = dbusServiceFile(appID, in: dataDirectory)
        var present = [entryFile, manifestTarget].filter { exists($0) }
        if isBatons(serviceFile: serviceTarget, appID: appID) { present.append(serviceTarget) }
        guard !present.isEmpty else { throw .notInstalled(appID, dataDirectory: dataDirectory.path) }
        _ = try checkReplaceable(entryFile: entryFile)
        _ = try checkReplaceable(manifestFile: manifestTarget, appID: appID)
        // All moved aside first (put back if one fails), then deleted.
        for (_, aside) in try moveAside(present) { unlink(aside.path) }
    }

    /// `<dataDirectory>/applications/<appID>.desktop`.
    public static func desktopEntryFile(_ appID: String, in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("applications/\(appID).desktop")
    }

    /// `<dataDirectory>/baton/apps/<appID>.plist`.
    public static func manifestFile(_ appID: String, in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("baton/apps/\(appID).plist")
    }

    /// `<dataDirectory>/dbus-1/services/<appID>.service`: the session bus's service directory
    /// under a data directory.
    public static func dbusServiceFile(_ appID: String, in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("dbus-1/services/\(appID).service")
    }

    /// The command line a D-Bus service file starts for an app whose desktop entry at
    /// `desktopEntry`, named `name`, says `Exec=exec` (unescaped): the field codes expanded as
    /// GIO does for a launch without files (`%f %F %u %U %d %D %n %N %i %m` and unknown codes
    /// dropped, `%c` the name, `%k` the desktop entry's path, `%%` a `%`), the program resolved
    /// on `PATH` when it is a bare name, and `--gapplication-service` appended unless already
    /// there; each argument shell-quoted, as `dbus-daemon` splits `Exec=` the way
    /// `g_shell_parse_argv` does. Nil when the result does not parse or its program is not found.
    static func serviceExec(_ exec: String, name: String, desktopEntry: URL) -> [String]? {
        var expanded = ""
        var characters = exec.makeIterator()
        while let character = characters.next() {
            guard character == "%" else {
                expanded.append(character)
                continue
            }
            guard let code = characters.next() else {
                expanded.append(character)
                break
            }
            switch code {
            case "%": expanded.append("%")
            case "c": expanded += shellQuoted(name)
            case "k": expanded += shellQuoted(desktopEntry.path)
            default: break
            }
        }
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var count: Int32 = 0
        guard g_shell_parse_argv(expanded, &count, &argv, nil) != 0, let argv else { return nil }
        defer { g_strfreev(argv) }
        var arguments = (0..<Int(count)).compactMap { argv[$0].map { String(cString: $0) } }
        guard let program = arguments.first else { return nil }
        if !program.contains("/") {
            guard let found = findInPath(program) else { return nil }
            arguments[0] = found
        }
        if !arguments.dropFirst().contains(gapplicationServiceOption) { arguments.append(gapplicationServiceOption) }
        return arguments
    }

    /// GApplication's rules for an application id (`g_application_id_is_valid`).
    public static func isValidAppID(_ id: String) -> Bool {
        g_application_id_is_valid(id) != 0
    }

    // MARK: Contents

    /// The desktop entry's text.
    private static func desktopEntry(name: String, exec: String, dbusActivatable: Bool) -> Data {
        var lines = ["[Desktop Entry]", "Type=Application", "Name=\(escaped(name))", "Exec=\(escaped(exec))",
                     "StartupNotify=true", "\(installedKey)=true"]
        if dbusActivatable { lines.insert("DBusActivatable=true", at: 4) }
        return Data((lines + [""]).joined(separator: "\n").utf8)
    }

    /// The D-Bus service file's text: the mark, `[D-BUS Service]`, `Name=` and `Exec=` (shell
    /// quoted, then escaped as a key-file value: `dbus-daemon` undoes backslash escapes).
    private static func serviceFile(appID: String, exec: String, name: String, desktopEntry: URL) throws(AppInstallError) -> Data {
        guard let arguments = serviceExec(exec, name: name, desktopEntry: desktopEntry) else {
            throw .noServiceCommand(PrintableText.escaped(exec))
        }
        let command = arguments.map(shellQuoted).joined(separator: " ")
        let lines = [serviceFileMarker, "[D-BUS Service]", "Name=\(appID)", "Exec=\(escaped(command))", ""]
        return Data(lines.joined(separator: "\n").utf8)
    }

    // MARK: Checks

    /// Whether `entryFile` exists (and was Baton's, else it throws).
    private static func checkReplaceable(entryFile: URL) throws(AppInstallError) -> Bool {
        guard exists(entryFile) else { return false }
        let keys = g_key_file_new()!
        defer { g_key_file_free(keys) }
        guard let data = try? FileContents.read(entryFile.path, limit: DesktopEntry.sizeLimit),
              data.withUnsafeBytes({ g_key_file_load_from_data(keys, $0.baseAddress?.assumingMemoryBound(to: CChar.self),
                                                               gsize($0.count), G_KEY_FILE_NONE, nil) }) != 0,
              g_key_file_get_boolean(keys, DesktopEntry.group, installedKey, nil) != 0 else {
            throw .wouldOverwrite(entryFile.path)
        }
        return true
    }

    /// Whether `manifestFile` exists (and is `appID`'s, else it throws).
    private static func checkReplaceable(manifestFile: URL, appID: String) throws(AppInstallError) -> Bool {
        guard exists(manifestFile) else { return false }
        guard let existing = try? AppManifest(contentsOf: manifestFile), existing.appID == appID else {
            throw .wouldOverwrite(manifestFile.path)
        }
        return true
    }

    /// Whether `serviceFile` exists (and is Baton's for `appID`, else it throws).
    private static func checkReplaceable(serviceFile: URL, appID: String) throws(AppInstallError) -> Bool {
        guard exists(serviceFile) else { return false }
        guard isBatons(serviceFile: serviceFile, appID: appID) else { throw .wouldOverwrite(serviceFile.path) }
        return true
    }

    /// Whether `serviceFile` is a D-Bus service file Baton wrote for `appID`: a regular file
    /// whose first line is `serviceFileMarker` and that says `Name=<appID>`.
    private static func isBatons(serviceFile: URL, appID: String) -> Bool {
        var info = stat()
        guard lstat(serviceFile.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
              let data = try? FileContents.read(serviceFile.path, limit: DesktopEntry.sizeLimit),
              let text = String(data: data, encoding: .utf8) else { return false }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.first.map(String.init) == serviceFileMarker && lines.contains { $0 == "Name=\(appID)" }
    }

    private static func exists(_ file: URL) -> Bool {
        var info = stat()
        return lstat(file.path, &info) == 0
    }

    /// The program an `Exec` line starts (its first word, desktop-entry quoting undone).
    private static func program(of exec: String) throws(AppInstallError) -> String {
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        guard g_shell_parse_argv(exec, nil, &argv, nil) != 0, let argv, let first = argv[0] else {
            throw .invalidValue(option: "--exec", value: PrintableText.escaped(exec))
        }
        defer { g_strfreev(argv) }
        return String(cString: first)
    }

    /// The absolute path of `program` found on `PATH`, or nil.
    private static func findInPath(_ program: String) -> String? {
        guard let found = g_find_program_in_path(program) else { return nil }
        defer { g_free(found) }
        return String(cString: found)
    }

    /// `value` quoted for a shell-like command line (`g_shell_quote`: single quotes).
    private static func shellQuoted(_ value: String) -> String {
        let quoted = g_shell_quote(value)!
        defer { g_free(quoted) }
        return String(cString: quoted)
    }

    // MARK: Moving files

    /// Moves each of `files` aside (a hidden name in its folder), all or none: if one cannot
    /// be moved, those moved are put back and the error names it. Returns (original, aside).
    private static func moveAside(_ files: [URL]) throws(AppInstallError) -> [(URL, URL)] {
        var moved: [(URL, URL)] = []
        for file in files {
            let aside = file.deletingLastPathComponent()
                .appendingPathComponent(".\(file.lastPathComponent).removed-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
            guard rename(file.path, aside.path) == 0 else {
                let reason = String(cString: strerror(errno))
                putBack(moved)
                throw .cannotWrite(path: file.path, reason: reason)
            }
            moved.append((file, aside))
        }
        return moved
    }

    /// Undoes `moveAside`.
    private static func putBack(_ moved: [(URL, URL)]) {
        for (original, aside) in moved.reversed() { rename(aside.path, original.path) }
    }

    /// A desktop-entry string value: backslash, newline, tab and carriage return escaped.
    private static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\t", with: "\\t").replacingOccurrences(of: "\r", with: "\\r")
    }
}
