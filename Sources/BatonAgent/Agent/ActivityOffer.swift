import Baton
import Foundation

/// Where an activity advertised by another device of the group goes when the person continues
/// it here, or why it goes nowhere: the answer of `Agent.offer(for:)`, the one function that
/// `Agent.continueNearby` follows, so what `baton why` says is what continuing does.
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
