import Foundation

/// Notifications with AppKit's names, posted on `NotificationCenter.default` on the main
/// actor. Window notifications carry the window as `object`; application ones the application.
extension Window {
    /// Posted when the window becomes key (`NSWindow.didBecomeKeyNotification`).
    nonisolated public static let didBecomeKeyNotification = Notification.Name("BatonWindowDidBecomeKey")
    /// Posted when the window stops being key (`NSWindow.didResignKeyNotification`).
    nonisolated public static let didResignKeyNotification = Notification.Name("BatonWindowDidResignKey")
    /// Posted when the window becomes main (`NSWindow.didBecomeMainNotification`).
    nonisolated public static let didBecomeMainNotification = Notification.Name("BatonWindowDidBecomeMain")
    /// Posted when the window stops being main (`NSWindow.didResignMainNotification`).
    nonisolated public static let didResignMainNotification = Notification.Name("BatonWindowDidResignMain")
    /// Posted by `close()` before the window closes (`NSWindow.willCloseNotification`).
    nonisolated public static let willCloseNotification = Notification.Name("BatonWindowWillClose")
    /// Posted by `update()` (`NSWindow.didUpdateNotification`).
    nonisolated public static let didUpdateNotification = Notification.Name("BatonWindowDidUpdate")
}

extension Application {
    /// Posted by `finishLaunching()` first (`NSApplication.willFinishLaunchingNotification`).
    nonisolated public static let willFinishLaunchingNotification = Notification.Name("BatonApplicationWillFinishLaunching")
    /// Posted by `finishLaunching()` once launched (`NSApplication.didFinishLaunchingNotification`).
    nonisolated public static let didFinishLaunchingNotification = Notification.Name("BatonApplicationDidFinishLaunching")
    /// Posted by `activate()` before the app is active (`NSApplication.willBecomeActiveNotification`).
    nonisolated public static let willBecomeActiveNotification = Notification.Name("BatonApplicationWillBecomeActive")
    /// Posted by `activate()` once the app is active (`NSApplication.didBecomeActiveNotification`).
    nonisolated public static let didBecomeActiveNotification = Notification.Name("BatonApplicationDidBecomeActive")
    /// Posted by `deactivate()` before the app is inactive (`NSApplication.willResignActiveNotification`).
    nonisolated public static let willResignActiveNotification = Notification.Name("BatonApplicationWillResignActive")
    /// Posted by `deactivate()` once the app is inactive (`NSApplication.didResignActiveNotification`).
    nonisolated public static let didResignActiveNotification = Notification.Name("BatonApplicationDidResignActive")
    /// Posted by `terminate(_:)` before the loop stops (`NSApplication.willTerminateNotification`).
    nonisolated public static let willTerminateNotification = Notification.Name("BatonApplicationWillTerminate")
    /// Posted by `hide(_:)` before the app hides (`NSApplication.willHideNotification`).
    nonisolated public static let willHideNotification = Notification.Name("BatonApplicationWillHide")
    /// Posted by `hide(_:)` once the app is hidden (`NSApplication.didHideNotification`).
    nonisolated public static let didHideNotification = Notification.Name("BatonApplicationDidHide")
    /// Posted by `unhide(_:)` before the app shows again (`NSApplication.willUnhideNotification`).
    nonisolated public static let willUnhideNotification = Notification.Name("BatonApplicationWillUnhide")
    /// Posted by `updateWindows()` before the windows update (`NSApplication.willUpdateNotification`).
    nonisolated public static let willUpdateNotification = Notification.Name("BatonApplicationWillUpdate")
    /// Posted by `updateWindows()` once the windows updated (`NSApplication.didUpdateNotification`).
    nonisolated public static let didUpdateNotification = Notification.Name("BatonApplicationDidUpdate")
    /// Posted by `unhide(_:)` once the app shows again (`NSApplication.didUnhideNotification`).
    nonisolated public static let didUnhideNotification = Notification.Name("BatonApplicationDidUnhide")
}
