import Foundation
import Logging

/// The Handoff apps installed on this device. Each puts its manifest (its `Info.plist`) in
/// `baton/apps/` under an XDG data directory — `$XDG_DATA_HOME` (default `~/.local/share`),
/// then each of `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`) — the way desktop
/// entries go in `applications/`. This decides whether an activity from another device can
/// continue in an app here, or goes to the web browser.
public enum InstalledApps {
    /// The folders searched, first the user's.
    public static func directories(environment: [String: String] = ProcessInfo.processInfo.environment) -> [URL] {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        let dataDirs = (environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map(String.init)
        return ([dataHome] + dataDirs).map { URL(fileURLWithPath: $0).appendingPathComponent("baton/apps") }
    }

    /// Every readable manifest in those folders; unreadable ones are logged and skipped.
    public static func manifests(environment: [String: String] = ProcessInfo.processInfo.environment) -> [AppManifest] {
        directories(environment: environment).flatMap { directory -> [AppManifest] in
            let files = (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? []
            return files.filter { $0.pathExtension == "plist" }.sorted { $0.path < $1.path }.compactMap { file in
                do { return try AppManifest(contentsOf: file) } catch {
                    Logger(label: "baton").notice("ignoring the app manifest \(file.path): \(error)")
                    return nil
                }
            }
        }
    }

    /// Whether an installed app of the activity's team declares its type.
    public static func canContinue(_ activity: NearbyActivity,
                                   environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        manifests(environment: environment).contains { $0.canContinue(activity) }
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
    /// and no app here (this one, or an installed one) of its team declares its type.
    @MainActor
    public var continuesInBrowser: Bool {
        guard webpageURL != nil else { return false }
        if let manifest = Application.shared.manifest, manifest.canContinue(self) { return false }
        return !InstalledApps.canContinue(self)
    }
}
