/// The default, do-nothing Handoff methods of `ApplicationDelegate`.
extension ApplicationDelegate {
    public func application(_ application: Application,
                            willFinishLaunchingWithOptions options: [Application.LaunchOptionsKey: Any]) -> Bool { true }
    public func application(_ application: Application,
                            didFinishLaunchingWithOptions options: [Application.LaunchOptionsKey: Any]) -> Bool { true }
    public func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        false
    }
    public func application(_ application: Application, continue userActivity: UserActivity,
                            restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool {
        false
    }
    public func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String,
                            error: any Error) {}
    public func application(_ application: Application, didUpdate userActivity: UserActivity) {}
}
