/// Starts an installed app that declares `activityType` (implemented by the launcher).
@MainActor public protocol AppLaunching: AnyObject { func launch(appID: String, activityType: String, activationToken: String?) throws }
