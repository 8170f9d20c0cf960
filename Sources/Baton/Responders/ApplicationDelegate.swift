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
    }
}
