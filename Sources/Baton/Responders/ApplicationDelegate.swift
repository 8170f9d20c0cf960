import Foundation

/// The application's delegate (AppKit's `NSApplicationDelegate`). Every method is optional:
/// the protocol extension supplies defaults. The notification-taking methods receive the
/// same `Notification` that is posted, with the application as `object`.
@MainActor
public protocol ApplicationDelegate: AnyObject {
    func applicationWillFinishLaunching(_ notification: Notification)
    func applicationDidFinishLaunching(_ notification: Notification)
    func applicationWillBecomeActive(_ notification: Notification)
    func applicationDidBecomeActive(_ notification: Notification)
    func applicationWillResignActive(_ notification: Notification)
    func applicationDidResignActive(_ notification: Notification)
    /// Return `.terminateCancel` to keep running.
    func applicationShouldTerminate(_ sender: Application) -> Application.TerminateReply
    func applicationWillTerminate(_ notification: Notification)

    /// Return false to refuse what the app was launched for: then no continuation callback
    /// is sent (UIKit's rule, handoff-programming-guide "Continuing an Activity").
    func application(_ application: Application, willFinishLaunchingWithOptions options: [Application.LaunchOptionsKey: Any]) -> Bool
    func application(_ application: Application, didFinishLaunchingWithOptions options: [Application.LaunchOptionsKey: Any]) -> Bool

    // Handoff (defaults in Activities/ApplicationDelegate+Handoff.swift).

    /// Sent at once when an activity starts to be continued; tell the user it is coming.
    /// Return true if you told the user.
    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool
    /// The continued activity: configure the app and return true, passing the objects that
    /// should restore state to `restorationHandler` (now or later, on the main actor). Return
    /// false (or leave it out) to let a document-based app open the activity's document.
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool
    /// The continuation failed; `error` is a `CocoaError` with one of the four Handoff codes.
    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String,
                     error: any Error)
    /// A runtime-managed activity was saved.
    func application(_ application: Application, didUpdate userActivity: UserActivity)
}

extension ApplicationDelegate {
    public func applicationWillFinishLaunching(_ notification: Notification) {}
    public func applicationDidFinishLaunching(_ notification: Notification) {}
    public func applicationWillBecomeActive(_ notification: Notification) {}
    public func applicationDidBecomeActive(_ notification: Notification) {}
    public func applicationWillResignActive(_ notification: Notification) {}
    public func applicationDidResignActive(_ notification: Notification) {}
    public func applicationShouldTerminate(_ sender: Application) -> Application.TerminateReply { .terminateNow }
    public func applicationWillTerminate(_ notification: Notification) {}
}

extension Application {
    /// The delegate's answer to `applicationShouldTerminate(_:)`.
    public enum TerminateReply: Sendable {
        case terminateNow
        case terminateCancel
        /// Decide later: the app runs on until `reply(toApplicationShouldTerminate:)`.
        case terminateLater
    }
}
