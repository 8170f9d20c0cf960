/// Whether an activity is offered to the user's other devices now, or the first reason it is
/// not — decided by the same rule that chooses what the app advertises
/// (`Application.advertisedUserActivity`), so what inspection says is what happens.
///
/// Apple's rules: only the current activity is advertised (handoff-programming-guide, "User
/// Activity Object"); an app that is not active advertises nothing; an activity whose
/// `expirationDate` has passed or whose `isEligibleForHandoff` is false is not advertised; an
/// invalidated activity never becomes current again.
public enum ActivityAdvertising: String, Codable, Sendable, Equatable, CaseIterable {
    /// Offered to the other devices now.
    case advertised
    /// Not the app's current activity (another one is, or it resigned, or its responder is not
    /// in the main window's responder chain).
    case notCurrent
    /// Current, but the app is not active (or hidden): an inactive app advertises nothing.
    case appInactive
    /// Current, but `isEligibleForHandoff` is false.
    case notEligibleForHandoff
    /// Current, but its `expirationDate` has passed.
    case expired
    /// Invalidated: it ended for good and never becomes current again.
    case invalidated

    /// The state in words, for people.
    public var explanation: String {
        switch self {
        case .advertised: "offered to the other devices"
        case .notCurrent: "not the current activity"
        case .appInactive: "the app is not active, so nothing is advertised"
        case .notEligibleForHandoff: "isEligibleForHandoff is false"
        case .expired: "its expiration date has passed"
        case .invalidated: "it was invalidated"
        }
    }
}
