import Baton
import BatonContinuity
import CGLib
import Foundation

/// Installs a user's own Baton app into a data directory (`$XDG_DATA_HOME`), the way
/// `InstalledApps` finds it: its desktop entry `applications/<appID>.desktop` and its manifest
/// `baton/apps/<appID>.plist` (a copy of its `Info.plist`, byte for byte).
///
/// Both files are written or neither (`FileTransaction`: temporary files, flushed, renamed into
/// place together, every step undone on failure). A file already there is replaced only if
/// Baton installed it for the same app — a desktop entry with `X-Baton-Installed=true`, a
/// manifest with the same `CFBundleIdentifier` — so another app's or the user's own files are
/// never overwritten. Removing takes both files away together, and only Baton's.
public enum AppInstaller {
    /// The key that marks a desktop entry Baton wrote.
    public static let installedKey = "X-Baton-Installed"

    /// What `install` wrote.
    public struct Installation: Sendable, Equatable {
        /// The app's ID (its manifest's `CFBundleIdentifier`, the desktop entry's name).
        public var appID: String
        /// The desktop entry written, `applications/APPID.desktop`.
        public var desktopEntry: URL
        /// The manifest written, `baton/apps/APPID.plist`.
        public var manifest: URL
        /// Whether an earlier installation of the same app was replaced.
        public var replaced: Bool
    }

    /// The data directory apps are installed in: `$XDG_DATA_HOME`, default `~/.local/share`.
    public static func dataHome(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        InstalledApps.dataDirectories(environment: environment)[0]
    }

    /// Installs the app whose `Info.plist` is `manifestFile` into `dataDirectory`, started by
    /// `exec` (a desktop-entry `Exec=` line; its program must be an executable file or on
    /// `PATH`), shown as `name` (default: the app's id); with `dbusActivatable`, the entry also
    /// says `DBusActivatable=true` (it keeps `Exec=` for hosts with no session bus). The entry
    /// says `StartupNotify=true`, so an activation token reaches the app however it starts.
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
        guard FileManager.default.isExecutableFile(atPath: program) || (!program.contains("/") && findInPath(program)) else {
            throw .programNotFound(program)
        }

        let entryFile = desktopEntryFile(appID, in: dataDirectory)
        let manifestTarget = Self.manifestFile(appID, in: dataDirectory)
        let replacedEntry = try checkReplaceable(entryFile: entryFile)
        let replacedManifest = try checkReplaceable(manifestFile: manifestTarget, appID: appID)

        var lines = ["[Desktop Entry]", "Type=Application", "Name=\(escaped(name))", "Exec=\(escaped(exec))",
                     "StartupNotify=true", "\(installedKey)=true"]
        if dbusActivatable { lines.insert("DBusActivatable=true", at: 4) }
        let entry = Data((lines + [""]).joined(separator: "\n").utf8)

        let transaction = FileTransaction()
        do {
            try transaction.write(entry, to: entryFile, mode: 0o644)
            try transaction.write(manifestData, to: manifestTarget, mode: 0o644)
            try transaction.commit()
        } catch {
            guard case .cannotWrite(let path, let reason) = error else { throw .cannotWrite(path: entryFile.path, reason: "\(error)") }
            throw .cannotWrite(path: path, reason: reason)
        }
        return Installation(appID: appID, desktopEntry: entryFile, manifest: manifestTarget, replaced: replacedEntry || replacedManifest)
    }

    /// Removes the app `appID` that Baton installed in `dataDirectory`: its desktop entry and
    /// its manifest, both or neither. Refuses (`wouldOverwrite`) a desktop entry Baton did not
    /// write, and says `notInstalled` when neither file is there.
    public static func remove(appID: String, from dataDirectory: URL) throws(AppInstallError) {
        guard isValidAppID(appID) else { throw .notInstalled(PrintableText.escaped(appID), dataDirectory: dataDirectory.path) }
        let entryFile = desktopEntryFile(appID, in: dataDirectory)
        let manifestTarget = Self.manifestFile(appID, in: dataDirectory)
        let present = [entryFile, manifestTarget].filter { exists($0) }
        guard !present.isEmpty else { throw .notInstalled(appID, dataDirectory: dataDirectory.path) }
        _ = try checkReplaceable(entryFile: entryFile)
        _ = try checkReplaceable(manifestFile: manifestTarget, appID: appID)
        // Both moved aside first (undone if either fails), then deleted.
        var moved: [(URL, URL)] = []
        for file in present {
            let aside = file.deletingLastPathComponent()
                .appendingPathComponent(".\(file.lastPathComponent).removed-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
            guard rename(file.path, aside.path) == 0 else {
                let reason = String(cString: strerror(errno))
                for (original, asideFile) in moved.reversed() { rename(asideFile.path, original.path) }
                throw .cannotWrite(path: file.path, reason: reason)
            }
            moved.append((file, aside))
        }
        for (_, aside) in moved { unlink(aside.path) }
    }

    /// `<dataDirectory>/applications/<appID>.desktop`.
    public static func desktopEntryFile(_ appID: String, in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("applications/\(appID).desktop")
    }

    /// `<dataDirectory>/baton/apps/<appID>.plist`.
    public static func manifestFile(_ appID: String, in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent("baton/apps/\(appID).plist")
    }

    /// GApplication's rules for an application id (`g_application_id_is_valid`).
    public static func isValidAppID(_ id: String) -> Bool {
        g_application_id_is_valid(id) != 0
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

    private static func findInPath(_ program: String) -> Bool {
        guard let found = g_find_program_in_path(program) else { return false }
        g_free(found)
        return true
    }

    /// A desktop-entry string value: backslash, newline, tab and carriage return escaped.
    private static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\t", with: "\\t").replacingOccurrences(of: "\r", with: "\\r")
    }
}
