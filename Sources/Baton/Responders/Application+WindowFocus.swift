import Foundation

/// Who is key and who is main: the one place these rules live.
///
/// - A window becomes key by `makeKey()`; a key window that can be main becomes main too.
///   A panel can be key, never main. `makeMain()` changes only the main window.
/// - An inactive app has no key and no main window; activating gives the status back to the
///   windows that had it (or, if none, to the frontmost eligible ones).
/// - When the key or main window is hidden or closed, the frontmost visible window that can
///   be main becomes main, and key goes to the main window if it can be key, else to the
///   frontmost window that can.
/// - Each change tells the windows (`resignKey`, `resignMain`, `becomeMain`, `becomeKey`, in
///   that order) and posts the matching `Window` notifications, each given first to the
///   window's `WindowDelegate`.
/// - A hidden app (`hide(_:)`) is inactive and shows no window; `unhide(_:)` and
///   `activate()` show them again, in the same order, and give key and main back.
extension Application {
    /// The key window: it receives keyboard actions first. Nil while the app is inactive.
    public var keyWindow: Window? { isActive ? keyCandidate : nil }

    /// The main window: the document window the user works in, whose responder chain
    /// supplies the current user activity. Nil while the app is inactive.
    public var mainWindow: Window? { isActive ? mainCandidate : nil }

    /// Makes the app active: `applicationWillBecomeActive`, key and main restored,
    /// `applicationDidBecomeActive` (`activate()`). A hidden app is unhidden first, as AppKit
    /// unhides an app it activates.
    public func activate() {
        if isHidden { return unhide(nil) }
        guard !isActive else { return }
        post(Application.willBecomeActiveNotification) { $0.applicationWillBecomeActive($1) }
        let main = mainCandidate ?? windowStack.first { $0.canBecomeMain }
        let key = keyCandidate ?? (main?.canBecomeKey == true ? main : windowStack.first { $0.canBecomeKey })
        changeFocus { keyCandidate = key; mainCandidate = main; isActive = true }
        responderStateDidChange()
        post(Application.didBecomeActiveNotification) { $0.applicationDidBecomeActive($1) }
    }

    /// Makes the app active, as `activate()` does (`activate(ignoringOtherApps:)`, deprecated
    /// in AppKit since macOS 14 in favour of `activate()`). Baton has no other applications
    /// to take the focus from, so `ignoringOtherApps` changes nothing.
    public func activate(ignoringOtherApps: Bool) { activate() }

    /// Makes the app inactive: its key and main windows resign until it is active again
    /// (`deactivate()`).
    public func deactivate() {
        guard isActive else { return }
        post(Application.willResignActiveNotification) { $0.applicationWillResignActive($1) }
        changeFocus { isActive = false }
        responderStateDidChange()
        post(Application.didResignActiveNotification) { $0.applicationDidResignActive($1) }
    }

    /// Hides the app (`hide(_:)`): tells the delegate and posts `willHideNotification`, deactivates it (key and main
    /// resign), takes its windows off the screen (`isVisible` false, `orderedWindows` empty;
    /// they keep their order and stay ordered in, as AppKit's hidden windows come back on
    /// unhide; their view controllers disappear; each window's backing hides its toolkit
    /// window), and tells the delegate and posts `didHideNotification`. Does nothing when hidden.
    public func hide(_ sender: Any?) {
        guard !isHidden else { return }
        post(Application.willHideNotification) { $0.applicationWillHide($1) }
        deactivate()
        ViewControllerAppearance.transition(of: windowStack.windows.compactMap(\.contentView), appearing: false) {
            isHidden = true
        }
        for window in windowStack.windows { window.backing?.windowDidOrderOut(window) }
        post(Application.didHideNotification) { $0.applicationDidHide($1) }
    }

    /// Shows a hidden app again and activates it (`unhide(_:)`): posts
    /// `willUnhideNotification`, puts its windows back on screen in the order they had (their
    /// view controllers appear; each backing shows its toolkit window, the backmost first),
    /// activates the app (key and main come back), and posts `didUnhideNotification`. Does
    /// nothing when the app is not hidden.
    public func unhide(_ sender: Any?) {
        guard isHidden else { return }
        post(Application.willUnhideNotification) { $0.applicationWillUnhide($1) }
        ViewControllerAppearance.transition(of: windowStack.windows.compactMap(\.contentView), appearing: true) {
            isHidden = false
        }
        // Back to front, so that the toolkit stacks them as they were.
        for window in windowStack.windows.reversed() { window.backing?.windowDidOrderIn(window) }
        activate()
        post(Application.didUnhideNotification) { $0.applicationDidUnhide($1) }
    }

    func register(_ window: Window) { windows.append(window) }

    func windowWantsKey(_ window: Window) {
        changeFocus {
            keyCandidate = window
            if window.canBecomeMain { mainCandidate = window }
        }
    }

    func windowWantsMain(_ window: Window) {
        changeFocus { mainCandidate = window }
    }

    func windowDidOrderFront(_ window: Window) {
        windowStack.bringToFront(window)
    }

    func windowDidOrderBack(_ window: Window) {
        windowStack.sendToBack(window)
    }

    func windowDidOrderOut(_ window: Window) {
        windowStack.remove(window)
        changeFocus {
            if mainCandidate === window { mainCandidate = windowStack.first { $0.canBecomeMain } }
            if keyCandidate === window {
                keyCandidate = mainCandidate?.canBecomeKey == true
                    ? mainCandidate : windowStack.first { $0.canBecomeKey }
            }
        }
    }

    func windowDidClose(_ window: Window) {
        windows.removeAll { $0 === window }
        // AppKit's applicationShouldTerminateAfterLastWindowClosed(_:): asked when the last
        // window (panels do not count) of a launched app closes.
        if isFinishedLaunching, !(window is Panel), !windows.contains(where: { !($0 is Panel) }),
           let delegate, delegate.applicationShouldTerminateAfterLastWindowClosed(self) {
            terminate(self)
        }
    }

    func firstResponderDidChange(in window: Window) {
        responderStateDidChange()
    }

    /// Applies `change`, then tells the windows and observers what it changed.
    private func changeFocus(_ change: () -> Void) {
        let (oldKey, oldMain) = (keyWindow, mainWindow)
        change()
        let (newKey, newMain) = (keyWindow, mainWindow)
        if oldKey !== newKey, let oldKey {
            oldKey.resignKey()
            oldKey.post(Window.didResignKeyNotification) { $0.windowDidResignKey($1) }
        }
        if oldMain !== newMain, let oldMain {
            oldMain.resignMain()
            oldMain.post(Window.didResignMainNotification) { $0.windowDidResignMain($1) }
        }
        if oldMain !== newMain, let newMain {
            newMain.becomeMain()
            newMain.post(Window.didBecomeMainNotification) { $0.windowDidBecomeMain($1) }
        }
        if oldKey !== newKey, let newKey {
            newKey.becomeKey()
            newKey.backing?.windowDidBecomeKey(newKey)
            newKey.post(Window.didBecomeKeyNotification) { $0.windowDidBecomeKey($1) }
        }
        if oldKey !== newKey || oldMain !== newMain { responderStateDidChange() }
    }

    /// Called after anything that can change which responders are in front: the key or main
    /// window, a first responder, activation. The user-activity layer hooks in here, and the
    /// windows are updated in the loop's next turn (`setWindowsNeedUpdate(_:)`), so the items
    /// the responder chain enables follow it.
    func responderStateDidChange() {
        ActivityRegistry.shared.refreshFromMainWindow()
        setWindowsNeedUpdate(true)
    }
}
