/// The default Handoff methods of `ApplicationDelegate`.
///
/// `application(_:continue:restorationHandler:)` has three forms; Baton calls the `@MainActor`
/// one, whose default forwards to AppKit's form, whose default forwards to UIKit's, whose
/// default declines. So whichever form a delegate implements (with or without `any`, which is
/// the same type) is the one that runs, and a delegate that implements none is noticed
/// (`UnansweredContinuation`).
extension ApplicationDelegate {
    /// Returns true: the launch goes ahead.
    public func application(_ application: Application,
                            willFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]?) -> Bool { true }
    /// Returns true: the launch goes ahead.
    public func application(_ application: Application,
                            didFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]?) -> Bool { true }
    /// Returns false: the user was not told.
    public func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        false
    }
    /// Forwards to AppKit's form, `restorationHandler: @escaping ([any UserActivityRestoring]) -> Void`.
    public func application(_ application: Application, continue userActivity: UserActivity,
                            restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
        let appKitHandler: ([any UserActivityRestoring]) -> Void = { restorationHandler($0) }
        return self.application(application, continue: userActivity, restorationHandler: appKitHandler)
    }
    /// Forwards to UIKit's form, `restorationHandler: @escaping ([any UserActivityRestoring]?) -> Void`.
    public func application(_ application: Application, continue userActivity: UserActivity,
                            restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        let uiKitHandler: ([any UserActivityRestoring]?) -> Void = { restorationHandler($0 ?? []) }
        return self.application(application, continue: userActivity, restorationHandler: uiKitHandler)
    }
    /// Returns false, and notes that no form was implemented (the continuation then logs a
    /// notice if nothing else handles the activity).
    public func application(_ application: Application, continue userActivity: UserActivity,
                            restorationHandler: @escaping ([any UserActivityRestoring]?) -> Void) -> Bool {
        application.continuationReachedBottomDefault = true
        return false
    }
    /// Does nothing.
    public func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String,
                            error: any Error) {}
    /// Does nothing.
    public func application(_ application: Application, didUpdate userActivity: UserActivity) {}
}

/// What the notice of an unhandled continuation says. Whether the last
/// `application(_:continue:restorationHandler:)` call reached the bottom default (the delegate
/// implements none of the three forms, or one whose signature is none of them, so it is not the
/// protocol's witness) is `Application.continuationReachedBottomDefault`.
enum UnansweredContinuation {
    /// The signatures that bind, for the notice.
    static let acceptedSignatures = """
        application(_ application: Application, continue userActivity: UserActivity, \
        restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool (AppKit), \
        the same with ([any UserActivityRestoring]?) -> Void (UIKit), \
        or with @escaping @MainActor ([any UserActivityRestoring]) -> Void (Baton)
        """
}
