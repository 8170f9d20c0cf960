import Foundation
import Logging
import Synchronization

/// The Handoff apps installed on this device, found the Linux way.
///
/// An installed app is a pair of files under one of the XDG data directories —
/// `$XDG_DATA_HOME` (default `~/.local/share`), then each of `$XDG_DATA_DIRS` (default
/// `/usr/local/share:/usr/share`):
///
/// - its desktop entry `applications/<appID>.desktop`, whose desktop id is the app's id
///   (`CFBundleIdentifier`), as GApplication names them: it says how the app starts (`Exec=`,
///   or `DBusActivatable=true` with an `Exec=` for hosts without a session bus);
/// - its manifest `baton/apps/<appID>.plist`: the app's own `Info.plist` (`AppManifest`),
///   unchanged, which says which activity types it continues.
///
/// The manifest stays a property list beside the entry rather than `X-Baton-…` keys inside it:
/// it is the same file the app loads for itself (`BATON_MANIFEST`), read by one parser, and
/// its nested keys (document types with their own activity types, associated domains) have no
/// faithful form as desktop-entry strings. For each app id the first file found wins, each of
/// the two separately (a user's entry or manifest shadows the system's); a manifest whose
/// `CFBundleIdentifier` is not its file name, one without a desktop entry, a hidden entry
/// (`Hidden=true`) or a malformed file is not an installed app — the last three are reported,
/// naming the file. At most `maximumManifests` files are looked at in all.
///
/// This decides whether an activity from another device can continue in an app here, or goes
/// to the web browser (`NearbyActivity.continuesInBrowser`); the agent's catalog of apps to
/// launch is built on the same pairs.
public enum InstalledApps {
    /// The most manifest files looked at, over all the data directories.
    public static let maximumManifests = 512

    /// The XDG data directories, first the user's.
    public static func dataDirectories(environment: [String: String] = ProcessInfo.processInfo.environment) -> [URL] {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        let dataDirs = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init)
        return ([dataHome] + dataDirs).map { URL(fileURLWithPath: $0) }
    }

    /// The folders searched for manifests, first the user's.
    public static func directories(environment: [String: String] = ProcessInfo.processInfo.environment) -> [URL] {
        dataDirectories(environment: environment).map { $0.appendingPathComponent("baton/apps") }
    }

    /// Every installed app (see the type's description), in the order found. What is not an
    /// installed app though it looks like one is passed to `report`, in words that name the file
    /// (by default logged, each message once per process).
    public static func apps(environment: [String: String] = ProcessInfo.processInfo.environment,
                            report: (String) -> Void = logOnce) -> [InstalledApp] {
        let dataDirectories = dataDirectories(environment: environment)
        var decided = Set<String>()
        var apps: [InstalledApp] = []
        var budget = maximumManifests
        for folder in dataDirectories.map({ $0.appendingPathComponent("baton/apps") }) {
            guard budget > 0 else { break }
            let (names, truncated) = listing(of: folder, atMost: budget)
            budget -= names.count
            if truncated { report("looked at only the first \(maximumManifests) app manifests; the rest in \(folder.path) are ignored") }
            for name in names.sorted() where name.hasSuffix(".plist") {
                let appID = String(name.dropLast(".plist".count))
                guard !appID.isEmpty, decided.insert(appID).inserted else { continue }  // shadowed
                let file = folder.appendingPathComponent(name)
                let manifest: AppManifest
                do { manifest = try AppManifest(contentsOf: file) } catch {
                    report("ignoring the app manifest \(file.path): \(error)")
                    continue
                }
                guard manifest.appID == appID else {
                    report("ignoring the app manifest \(file.path): its CFBundleIdentifier is "
                           + "\(PrintableText.escaped(manifest.appID)), not \(PrintableText.escaped(appID))")
                    continue
                }
                guard let entryFile = dataDirectories.lazy.map({ $0.appendingPathComponent("applications/\(appID).desktop") })
                    .first(where: { FileManager.default.fileExists(atPath: $0.path) }) else {
                    report("ignoring the app manifest \(file.path): no desktop entry applications/\(appID).desktop in the XDG data directories")
                    continue
                }
                let entry: DesktopEntry
                do { entry = try DesktopEntry(contentsOf: entryFile) } catch {
                    report("ignoring the app \(appID): \(error)")
                    continue
                }
                guard !entry.isHidden else {
                    report("ignoring the app \(appID): its desktop entry \(entryFile.path) is Hidden")
                    continue
                }
                apps.append(InstalledApp(desktopEntry: entry, manifest: manifest, manifestFile: file))
            }
        }
        return apps
    }

    /// The manifests of the installed apps.
    public static func manifests(environment: [String: String] = ProcessInfo.processInfo.environment) -> [AppManifest] {
        apps(environment: environment).map(\.manifest)
    }

    /// Whether an installed app of the activity's team declares its type.
    public static func canContinue(_ activity: NearbyActivity,
                                   environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        apps(environment: environment).contains { $0.manifest.canContinue(activity) }
    }

    /// The messages logged so far (at most 256 remembered; past that, nothing more is logged).
    private static let logged = Mutex<Set<String>>([])

    /// Logs `message` at notice level unless it was logged before.
    public static func logOnce(_ message: String) {
        let isNew = logged.withLock { said in said.count < 256 && said.insert(message).inserted }
        if isNew { Logger(label: "baton").notice("\(message)") }
    }

    /// Up to `limit` names in `folder` (none if it cannot be read), and whether there were more.
    /// The listing is read entry by entry, so a huge folder costs no more than `limit` names.
    private static func listing(of folder: URL, atMost limit: Int) -> (names: [String], truncated: Bool) {
        guard let stream = opendir(folder.path) else { return ([], false) }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafePointer(to: entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: Int(NAME_MAX) + 1) { String(cString: $0) }
            }
            guard name != ".", name != ".." else { continue }
            guard names.count < limit else { return (names, true) }
            names.append(name)
        }
        return (names, false)
    }
}

extension AppManifest {
    /// Whether this app may continue `activity`: as `canContinue(activityType:fromTeam:)`, and
    /// for web browsing, only if it claims the page's domain.
    public func canContinue(_ activity: NearbyActivity) -> Bool {
        if activity.activityType == UserActivity.browsingWebType {
            return activity.webpageURL.flatMap(claimedDomain(for:)) != nil
        }
        return canContinue(activityType: activity.activityType, fromTeam: activity.teamIdentifier)
    }
}

extension NearbyActivity {
    /// Whether continuing this activity here opens its `webpageURL` in the browser: it has one,
    /// and no app here (this one, or an installed one) of its team declares its type — the
    /// browser offer of `offerHere(naming:)`, the rule `Agent.offer(for:)` follows too.
    @MainActor
    public var continuesInBrowser: Bool {
        if case .browser = offerHere(naming: false) { true } else { false }
    }
}
