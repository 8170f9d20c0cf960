/// Why an installed app was not started; each names the app, and the file where one is at fault.
public enum AppLaunchError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No installed app has this id (no desktop entry with its manifest; see `InstalledAppCatalog`).
    case notInstalled(appID: String)
    /// The app's manifest does not declare the activity type it was to continue.
    case doesNotContinue(appID: String, activityType: String, manifest: String)
    /// GIO refused the desktop entry: its `Exec` program is not on `PATH`, or its `TryExec` fails.
    case notLaunchable(appID: String, desktopEntry: String)
    /// GIO could not start it: the desktop entry and GIO's reason.
    case failed(appID: String, desktopEntry: String, reason: String)

    public var description: String {
        switch self {
        case .notInstalled(let appID):
            "no app \(appID) is installed (a desktop entry applications/\(appID).desktop and a manifest baton/apps/\(appID).plist)"
        case .doesNotContinue(let appID, let type, let manifest):
            "the app \(appID) does not continue \(type) (its manifest \(manifest) does not declare it)"
        case .notLaunchable(let appID, let entry):
            "the app \(appID) cannot be started from \(entry): its Exec program is not on PATH, or its TryExec fails"
        case .failed(let appID, let entry, let reason):
            "the app \(appID) did not start from \(entry): \(reason)"
        }
    }
}
