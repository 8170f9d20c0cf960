import Foundation

/// Where an activity advertised by another device of the group goes when the person continues
/// it here, or why it goes nowhere: the answer of `ActivityOffer.decide`, the one rule that
/// `Agent.offer(for:)` and `Agent.continueNearby` follow, and `NearbyActivity.offerHere(naming:)`
/// (`continuesInBrowser`, `baton continue` without an agent) too, so what `baton why` says is
/// what continuing does.
///
/// Apple's rules (about-handoff; handoff-programming-guide, "Native App-to-Web Browser
/// Handoff"): an activity continues only in an app of the same team that declares its type;
/// if no app here does and the activity has a `webpageURL`, the page opens in the default
/// browser.
public enum ActivityOffer: Codable, Sendable, Equatable {
    /// Offered to the app `appID`: a joined app (`isRunning`), else the installed app the
    /// agent would launch.
    case app(appID: String, isRunning: Bool)
    /// No app here continues it; its web page opens in the browser. `otherTeamApps` are the
    /// apps here that declare the type for another team (which cannot take it).
    case browser(url: URL, otherTeamApps: [String])
    /// Apps here declare the type, but for another team than the activity's, and it has no
    /// web page.
    case differentTeam(apps: [String])
    /// No app here declares the type (for a web-browsing activity: claims its page's domain),
    /// and it has no web page for the browser.
    case noAppDeclaresType

    /// Whether the person is offered anything here (an app or the browser).
    public var isOffered: Bool {
        switch self {
        case .app, .browser: true
        case .differentTeam, .noAppDeclaresType: false
        }
    }

    /// The answer in one sentence, for an activity of type `activityType` from team `team`;
    /// app ids and URLs are escaped (`PrintableText.escaped`): they come from the network or
    /// from files.
    public func sentence(activityType: String, team: String) -> String {
        let type = PrintableText.escaped(activityType), team = PrintableText.escaped(team)
        switch self {
        case .app(let appID, true):
            return "\(type) is offered to \(PrintableText.escaped(appID)), which is running and declares it for team \(team)."
        case .app(let appID, false):
            return "\(type) is offered to \(PrintableText.escaped(appID)), installed here; it is launched to continue."
        case .browser(let url, let others):
            let but = others.isEmpty ? "" : " (\(Self.list(others)) declare it, but for another team than \(team))"
            return "No app here continues \(type) of team \(team)\(but); its web page \(PrintableText.escaped(url.absoluteString)) opens in the browser."
        case .differentTeam(let apps):
            return "\(type) is not offered: \(Self.list(apps)) declare it, but for another team than \(team), and it has no web page."
        case .noAppDeclaresType:
            return "\(type) is not offered: no app here declares it, and it has no web page for the browser."
        }
    }

    private static func list(_ apps: [String]) -> String {
        apps.map { PrintableText.escaped($0) }.joined(separator: ", ")
    }
}

extension ActivityOffer {
    /// The rule, in order (about-handoff; handoff-programming-guide, "Native App-to-Web
    /// Browser Handoff"): `runningApp`, a running app of the activity's team that declares its
    /// type; else `installedApp()`, the installed one that would be launched; else, with a web
    /// page, the browser (naming `otherTeamApps()` when `naming`); else no app, and then
    /// whether `otherTeamApps()` declare the type for another team.
    public static func decide(_ activity: NearbyActivity, runningApp: String?, installedApp: () -> String?,
                              otherTeamApps: () -> [String], naming: Bool = true) -> ActivityOffer {
        if let runningApp { return .app(appID: runningApp, isRunning: true) }
        if let installed = installedApp() { return .app(appID: installed, isRunning: false) }
        if let url = activity.webpageURL { return .browser(url: url, otherTeamApps: naming ? otherTeamApps() : []) }
        let others = otherTeamApps()
        return others.isEmpty ? .noAppDeclaresType : .differentTeam(apps: others)
    }

    /// The installed apps that declare `activity`'s type (or a document type of it) for a team
    /// other than its own, each once.
    public static func installedAppsOfOtherTeams(declaring activity: NearbyActivity) -> [String] {
        var found: [String] = []
        for installed in InstalledApps.apps(report: { _ in }) where installed.manifest.teamIdentifier != activity.teamIdentifier {
            let manifest = installed.manifest
            guard manifest.activityTypes.contains(activity.activityType)
                    || manifest.documentTypes.contains(where: { $0.activityType == activity.activityType }) else { continue }
            if !found.contains(manifest.appID) { found.append(manifest.appID) }
        }
        return found
    }
}

extension NearbyActivity {
    /// Where this activity goes if continued by this app, which runs no agent (`ActivityOffer.decide`):
    /// this app when its manifest lets it continue it, else an installed app that does, else
    /// the browser for its web page. Without `naming`, the apps of other teams are not looked
    /// up for a browser offer (that reads the installed apps' files).
    @MainActor
    public func offerHere(naming: Bool = true) -> ActivityOffer {
        let manifest = Application.shared.manifest
        return ActivityOffer.decide(self, runningApp: manifest.flatMap { $0.canContinue(self) ? $0.appID : nil },
                                    installedApp: { InstalledApps.apps(report: { _ in }).first { $0.manifest.canContinue(self) }?.manifest.appID },
                                    otherTeamApps: { ActivityOffer.installedAppsOfOtherTeams(declaring: self) }, naming: naming)
    }
}
