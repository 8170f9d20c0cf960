import Foundation
import Logging

/// The application's delegate: AppKit's `NSApplicationDelegate`, with UIKit's
/// `UIApplicationDelegate` forms where the two differ. Every method is optional: the protocol
/// extensions supply defaults.
///
/// Where AppKit and UIKit spell a method differently, both spellings are requirements, and the
/// default of the one Baton calls forwards to the other, so a method written either way (types
/// renamed) is the one that runs:
/// - `applicationDidFinishLaunching`, `applicationDidBecomeActive`, `applicationWillResignActive`
///   and `applicationWillTerminate` take a `Notification` (AppKit) or the `Application` (UIKit).
/// - `application(_:continue:restorationHandler:)` takes AppKit's
///   `([any UserActivityRestoring]) -> Void`, UIKit's `([any UserActivityRestoring]?) -> Void`,
///   or Baton's own `@MainActor ([any UserActivityRestoring]) -> Void` (see
///   `ApplicationDelegate+Handoff.swift`). Implement one of them, not several.
///
/// The notification-taking methods receive the same `Notification` that is posted, with the
/// application as `object`.
@MainActor
public protocol ApplicationDelegate: AnyObject {
    /// The app is about to finish launching (AppKit's `applicationWillFinishLaunching(_:)`).
    func applicationWillFinishLaunching(_ notification: Notification)
    /// The app finished launching (AppKit's `applicationDidFinishLaunching(_:)`). The default
    /// calls the UIKit form, `applicationDidFinishLaunching(_ application:)`.
    func applicationDidFinishLaunching(_ notification: Notification)
    /// UIKit's `applicationDidFinishLaunching(_:)`, taking the application; called by the
    /// default of the AppKit form.
    func applicationDidFinishLaunching(_ application: Application)
    /// The app is about to become active (AppKit's `applicationWillBecomeActive(_:)`).
    func applicationWillBecomeActive(_ notification: Notification)
    /// The app became active (AppKit's `applicationDidBecomeActive(_:)`). The default calls the
    /// UIKit form, `applicationDidBecomeActive(_ application:)`.
    func applicationDidBecomeActive(_ notification: Notification)
    /// UIKit's `applicationDidBecomeActive(_:)`, taking the application; called by the default
    /// of the AppKit form.
    func applicationDidBecomeActive(_ application: Application)
    /// The app is about to stop being active (AppKit's `applicationWillResignActive(_:)`). The
    /// default calls the UIKit form, `applicationWillResignActive(_ application:)`.
    func applicationWillResignActive(_ notification: Notification)
    /// UIKit's `applicationWillResignActive(_:)`, taking the application; called by the
    /// default of the AppKit form.
    func applicationWillResignActive(_ application: Application)
    /// The app stopped being active (AppKit's `applicationDidResignActive(_:)`).
    func applicationDidResignActive(_ notification: Notification)
    /// The app is about to hide (AppKit's `applicationWillHide(_:)`), sent by `hide(_:)`.
    func applicationWillHide(_ notification: Notification)
    /// The app is about to update its windows (AppKit's `applicationWillUpdate(_:)`), sent by
    /// `updateWindows()`.
    func applicationWillUpdate(_ notification: Notification)
    /// The app's windows did update (AppKit's `applicationDidUpdate(_:)`), sent by
    /// `updateWindows()`.
    func applicationDidUpdate(_ notification: Notification)
    /// The app is hidden (AppKit's `applicationDidHide(_:)`). The default calls UIKit's
    /// `applicationDidEnterBackground(_:)`: a hidden Baton app is what a backgrounded UIKit app is.
    func applicationDidHide(_ notification: Notification)
    /// UIKit's `applicationDidEnterBackground(_:)`, taking the application; called by the
    /// default of `applicationDidHide(_:)`, once `hide(_:)` has hidden the app.
    func applicationDidEnterBackground(_ application: Application)
    /// The app is about to show again (AppKit's `applicationWillUnhide(_:)`), sent by
    /// `unhide(_:)`. The default calls UIKit's `applicationWillEnterForeground(_:)`.
    func applicationWillUnhide(_ notification: Notification)
    /// UIKit's `applicationWillEnterForeground(_:)`, taking the application; called by the
    /// default of `applicationWillUnhide(_:)`, before `unhide(_:)` shows the app again.
    func applicationWillEnterForeground(_ application: Application)
    /// The app shows again (AppKit's `applicationDidUnhide(_:)`).
    func applicationDidUnhide(_ notification: Notification)
    /// Whether the app may terminate now (AppKit's `applicationShouldTerminate(_:)`). Return
    /// `.terminateCancel` to keep running; the default is `.terminateNow`.
    func applicationShouldTerminate(_ sender: Application) -> Application.TerminateReply
    /// Whether the app terminates once its last window (a `Window` that is not a `Panel`) has
    /// closed (AppKit's `applicationShouldTerminateAfterLastWindowClosed(_:)`): true calls
    /// `terminate(_:)`, which asks `applicationShouldTerminate(_:)` as usual. The default is false.
    func applicationShouldTerminateAfterLastWindowClosed(_ sender: Application) -> Bool
    /// The app is about to terminate (AppKit's `applicationWillTerminate(_:)`). The default
    /// calls the UIKit form, `applicationWillTerminate(_ application:)`.
    func applicationWillTerminate(_ notification: Notification)
    /// UIKit's `applicationWillTerminate(_:)`, taking the application; called by the default
    /// of the AppKit form.
    func applicationWillTerminate(_ application: Application)
    /// Open `urls` (AppKit's `application(_:open:)`): files the person opened with the app,
    /// or another launch of it passed on. Baton's core never sends it; a host that receives
    /// files to open does (BatonGtk, from GApplication's `open`). The default opens each as a
    /// document (`DocumentController.openDocument(withContentsOf:display:)`), as AppKit does
    /// when the delegate does not implement it, and logs those that cannot be opened.
    func application(_ application: Application, open urls: [URL])

    /// UIKit's `application(_:willFinishLaunchingWithOptions:)`: the launch process began.
    /// `launchOptions` says why the app was launched (`Application.LaunchOptionsKey`); it is
    /// optional, as in UIKit. Return false to refuse what the app was launched for: then no
    /// continuation callback is sent (handoff-programming-guide, "Continuing an Activity").
    /// The default returns true.
    func application(_ application: Application,
                     willFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]?) -> Bool
    /// UIKit's `application(_:didFinishLaunchingWithOptions:)`: launching is almost done.
    /// Returning false refuses the continuation as `willFinishLaunchingWithOptions` does. The
    /// default returns true.
    func application(_ application: Application,
                     didFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]?) -> Bool

    // Handoff (defaults in Activities/ApplicationDelegate+Handoff.swift).

    /// Sent at once when an activity starts to be continued; tell the user it is coming
    /// (`application(_:willContinueUserActivityWithType:)`, AppKit and UIKit). Return true if
    /// you told the user; the default returns false.
    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool
    /// The form Baton calls of `application(_:continue:restorationHandler:)`: the continued
    /// activity. Configure the app and return true, passing the objects that should restore
    /// state to `restorationHandler` (now or later, on the main actor). Return false (or
    /// implement no form) to let a document-based app open the activity's document. The
    /// default forwards to AppKit's form, whose default forwards to UIKit's.
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping @MainActor ([any UserActivityRestoring]) -> Void) -> Bool
    /// AppKit's `application(_:continue:restorationHandler:)`, exactly as `NSApplicationDelegate`
    /// declares it (types renamed). Called by the default of Baton's `@MainActor` form; its own
    /// default forwards to UIKit's form. Call the handler on the main actor, as AppKit requires.
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool
    /// UIKit's `application(_:continue:restorationHandler:)`, exactly as `UIApplicationDelegate`
    /// declares it (types renamed); a nil array restores nothing. Called by the default of
    /// AppKit's form; its own default returns false and notes that no form was implemented, so
    /// an unhandled continuation can say so in the log.
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]?) -> Void) -> Bool
    /// The continuation failed (`application(_:didFailToContinueUserActivityWithType:error:)`,
    /// AppKit and UIKit); `error` is a `CocoaError` with one of the four Handoff codes.
    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String,
                     error: any Error)
    /// A runtime-managed activity was saved (`application(_:didUpdate:)`, AppKit and UIKit).
    func application(_ application: Application, didUpdate userActivity: UserActivity)
}

extension ApplicationDelegate {
    /// Does nothing.
    public func applicationWillFinishLaunching(_ notification: Notification) {}
    /// Calls UIKit's form, `applicationDidFinishLaunching(_ application:)`.
    public func applicationDidFinishLaunching(_ notification: Notification) {
        applicationDidFinishLaunching(Self.application(of: notification))
    }
    /// Does nothing.
    public func applicationDidFinishLaunching(_ application: Application) {}
    /// Does nothing.
    public func applicationWillBecomeActive(_ notification: Notification) {}
    /// Calls UIKit's form, `applicationDidBecomeActive(_ application:)`.
    public func applicationDidBecomeActive(_ notification: Notification) {
        applicationDidBecomeActive(Self.application(of: notification))
    }
    /// Does nothing.
    public func applicationDidBecomeActive(_ application: Application) {}
    /// Calls UIKit's form, `applicationWillResignActive(_ application:)`.
    public func applicationWillResignActive(_ notification: Notification) {
        applicationWillResignActive(Self.application(of: notification))
    }
    /// Does nothing.
    public func applicationWillResignActive(_ application: Application) {}
    /// Does nothing.
    public func applicationDidResignActive(_ notification: Notification) {}
    /// Does nothing.
    public func applicationWillHide(_ notification: Notification) {}
    /// Does nothing.
    public func applicationWillUpdate(_ notification: Notification) {}
    /// Does nothing.
    public func applicationDidUpdate(_ notification: Notification) {}
    /// Calls UIKit's `applicationDidEnterBackground(_:)`.
    public func applicationDidHide(_ notification: Notification) {
        applicationDidEnterBackground(Self.application(of: notification))
    }
    /// Does nothing.
    public func applicationDidEnterBackground(_ application: Application) {}
    /// Calls UIKit's `applicationWillEnterForeground(_:)`.
    public func applicationWillUnhide(_ notification: Notification) {
        applicationWillEnterForeground(Self.application(of: notification))
    }
    /// Does nothing.
    public func applicationWillEnterForeground(_ application: Application) {}
    /// Does nothing.
    public func applicationDidUnhide(_ notification: Notification) {}
    /// Returns `.terminateNow`.
    public func applicationShouldTerminate(_ sender: Application) -> Application.TerminateReply { .terminateNow }
    /// Returns false.
    public func applicationShouldTerminateAfterLastWindowClosed(_ sender: Application) -> Bool { false }
    /// Calls UIKit's form, `applicationWillTerminate(_ application:)`.
    public func applicationWillTerminate(_ notification: Notification) {
        applicationWillTerminate(Self.application(of: notification))
    }
    /// Does nothing.
    public func applicationWillTerminate(_ application: Application) {}
    /// Opens each URL as a document, showing its windows; logs those that cannot be opened.
    public func application(_ application: Application, open urls: [URL]) {
        for url in urls {
            do { try DocumentController.shared.openDocument(withContentsOf: url, display: true) } catch {
                Logger(label: "baton").error("cannot open \(PrintableText.escaped(url.path)): \(error)", error: error)
            }
        }
    }

    /// The application a notification is about (its `object`), else the shared one.
    private static func application(of notification: Notification) -> Application {
        notification.object as? Application ?? Application.shared
    }
}

extension Application {
    /// The delegate's answer to `applicationShouldTerminate(_:)` (AppKit's
    /// `NSApplication.TerminateReply`).
    public enum TerminateReply: Sendable {
        /// Terminate now.
        case terminateNow
        /// Keep running.
        case terminateCancel
        /// Decide later: the app runs on until `reply(toApplicationShouldTerminate:)`.
        case terminateLater
    }
}
