import Foundation

/// Notifications with AppKit's names, posted on `NotificationCenter.default` on the main
/// actor. Window notifications carry the window as `object`; application ones the application.
extension Window {
    nonisolated public static let didBecomeKeyNotification = Notification.Name("BatonWindowDidBecomeKey")
    nonisolated public static let didResignKeyNotification = Notification.Name("BatonWindowDidResignKey")
    nonisolated public static let didBecomeMainNotification = Notification.Name("BatonWindowDidBecomeMain")
    nonisolated public static let didResignMainNotification = Notification.Name("BatonWindowDidResignMain")
    nonisolated public static let willCloseNotification = Notification.Name("BatonWindowWillClose")
}

extension Application {
    nonisolated public static let willFinishLaunchingNotification = Notification.Name("BatonApplicationWillFinishLaunching")
    nonisolated public static let didFinishLaunchingNotification = Notification.Name("BatonApplicationDidFinishLaunching")
    nonisolated public static let willBecomeActiveNotification = Notification.Name("BatonApplicationWillBecomeActive")
    nonisolated public static let didBecomeActiveNotification = Notification.Name("BatonApplicationDidBecomeActive")
    nonisolated public static let willResignActiveNotification = Notification.Name("BatonApplicationWillResignActive")
    nonisolated public static let didResignActiveNotification = Notification.Name("BatonApplicationDidResignActive")
    nonisolated public static let willTerminateNotification = Notification.Name("BatonApplicationWillTerminate")
    /// Posted by `hide(_:)` before the app hides (`NSApplication.willHideNotification`).
    nonisolated public static let willHideNotification = Notification.Name("BatonApplicationWillHide")
    /// Posted by `hide(_:)` once the app is hidden (`NSApplication.didHideNotification`).
    nonisolated public static let didHideNotification = Notification.Name("BatonApplicationDidHide")
    /// Posted by `unhide(_:)` before the app shows again (`NSApplication.willUnhideNotification`).
    nonisolated public static let willUnhideNotification = Notification.Name("BatonApplicationWillUnhide")
    /// Posted by `unhide(_:)` once the app shows again (`NSApplication.didUnhideNotification`).
    nonisolated public static let didUnhideNotification = Notification.Name("BatonApplicationDidUnhide")
}
