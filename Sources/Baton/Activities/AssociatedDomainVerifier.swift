import Foundation

/// Confirms an app's claim to a web domain (web-to-app handoff, handoff-programming-guide,
/// "Web Browser-to-Native App Handoff"): the domain's associated-domain file must list the app.
/// The continuity layer provides one that fetches the file over HTTPS.
@MainActor
public protocol AssociatedDomainVerifier: AnyObject {
    /// Whether `domain` lists `appIdentifier` (`TEAM.appID`) for activity continuation.
    /// Throws when the file cannot be fetched or read.
    func verify(_ domain: String, lists appIdentifier: String) async throws -> Bool
}
