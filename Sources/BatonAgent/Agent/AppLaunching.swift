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
    /// Starts the app as `launch(appID:activityType:activationToken:)` does, and calls `exited`
    /// on the loop when a process it started for this launch ends, once per process. The agent
    /// calls this one: a launched app that ends before it has joined fails the continuation
    /// waiting for it at once, with how it ended and its last lines, instead of when
    /// `Agent.launchJoinTimeout` passes. A launcher that cannot watch what it started (an app
    /// started by D-Bus activation has no process of the launcher's) never calls `exited`, and
    /// the timeout stays the bound.
    ///
    /// By default, `launch(appID:activityType:activationToken:)`, and `exited` is never called.
    func launch(appID: String, activityType: String, activationToken: String?,
                exited: @escaping @MainActor (LaunchedAppExit) -> Void) throws
}

extension AppLaunching {
    public func appID(continuing activity: NearbyActivity) -> String? { activity.appID }

    /// Starts the app with `launch(appID:activityType:activationToken:)`; never calls `exited`,
    /// so a continuation waiting for this launcher's app is bounded by the join timeout alone.
    public func launch(appID: String, activityType: String, activationToken: String?,
                       exited: @escaping @MainActor (LaunchedAppExit) -> Void) throws {
        try launch(appID: appID, activityType: activityType, activationToken: activationToken)
    }
}
