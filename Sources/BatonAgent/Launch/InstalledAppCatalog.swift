import Baton
import Foundation

/// The installed apps the agent may start to continue an activity: for each, its desktop
/// entry (`applications/<appID>.desktop`, the desktop id being the app's id as GApplication
/// names them) and its manifest (`baton/apps/<appID>.plist`, the app's own `Info.plist`), under
/// `$XDG_DATA_HOME` then each of `$XDG_DATA_DIRS`, first found winning.
///
/// The manifest stays a property list beside the desktop entry, not `X-Baton-…` keys in it: it
/// is the file the app itself loads, read by one parser (`AppManifest`), and its nested keys
/// (document types, associated domains) have no faithful desktop-entry form. The pairing rules
/// are `InstalledApps`' — the same rules decide `NearbyActivity.continuesInBrowser` — so an
/// activity this catalog has an app for never goes to the browser, and one it has none for
/// does, if it has a web page.
///
/// The files are read at each query (a few small files; bounded by
/// `InstalledApps.maximumManifests`, `AppManifest.sizeLimit`, `DesktopEntry.sizeLimit`), so an
/// app installed or removed while the agent runs counts at once. A malformed desktop entry or
/// manifest is skipped, with one message naming the file (once per catalog, however often it is
/// read); nothing here throws.
@MainActor
public final class InstalledAppCatalog {
    /// The environment whose XDG variables name the folders searched.
    public let environment: [String: String]
    private let report: (String) -> Void
    private var reported: Set<String> = []
    /// The most distinct messages remembered as said (past it, nothing more is said).
    private static let maximumReported = 256

    /// A catalog of the apps under the XDG data directories that `environment` names (by
    /// default, this process's). Each problem found goes once to `report` (by default, the
    /// "baton" logger at notice level, once per process: `InstalledApps.logOnce`).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                report: ((String) -> Void)? = nil) {
        self.environment = environment
        self.report = report ?? InstalledApps.logOnce
    }

    /// Every installed app, the user's first.
    public var apps: [InstalledApp] {
        InstalledApps.apps(environment: environment) { [self] message in
            guard reported.count < Self.maximumReported, reported.insert(message).inserted else { return }
            report(message)
        }
    }

    /// The installed app with id `appID`, if any.
    public func app(withID appID: String) -> InstalledApp? {
        apps.first { $0.appID == appID }
    }

    /// The installed app that continues `activity`: one whose manifest declares its type for its
    /// team (or, for a web-browsing activity, claims its page's domain), preferring the app the
    /// activity came from; nil if none does.
    public func app(continuing activity: NearbyActivity) -> InstalledApp? {
        let candidates = apps.filter { $0.manifest.canContinue(activity) }
        return candidates.first { $0.appID == activity.appID } ?? candidates.first
    }
}
