/// Starts an installed app that is to continue an activity (the agent calls it when the
/// app that declares the type is not running).
@MainActor public protocol AppLaunching: AnyObject {
    func launch(appID: String, activityType: String, activationToken: String?) throws
}
