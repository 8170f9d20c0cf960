import Baton

/// Starts an installed app that is to continue an activity (the agent calls it when the
/// app that declares the type is not running).
@MainActor public protocol AppLaunching: AnyObject {
    /// The installed app that would continue `activity` here, if any (by default the app it
    /// came from).
    func appID(continuing activity: NearbyActivity) -> String?
    /// Starts the app `appID` so that it continues an activity of `activityType` (passed in its
    /// launch options as `Application.LaunchOptionsKey.userActivityType`); `activationToken` is
    /// the desktop's token for focusing the new window, if any. Throws when the app cannot be
    /// started; the continuation then fails with a Handoff error.
    func launch(appID: String, activityType: String, activationToken: String?) throws
}

extension AppLaunching {
    public func appID(continuing activity: NearbyActivity) -> String? { activity.appID }
}
