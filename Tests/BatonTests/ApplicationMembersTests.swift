@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// Records the application notifications named in `names`, in order.
@MainActor
/// The names of the watched notifications posted while it lives, in order.
final class NotificationLog {
    private(set) var names: [String] = []
    nonisolated(unsafe) private var tokens: [NSObjectProtocol] = []

    init(_ watched: [Notification.Name]) {
        for name in watched {
            tokens.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
                let name = note.name.rawValue
                MainActor.assumeIsolated { self?.names.append(name) }
            })
        }
    }

    deinit { for token in tokens { NotificationCenter.default.removeObserver(token) } }
}

/// A delegate that answers `applicationShouldTerminate` with `reply`.
@MainActor
private final class TerminationDelegate: ApplicationDelegate {
    var reply: Application.TerminateReply = .terminateLater
    var calls: [String] = []
    func applicationShouldTerminate(_ sender: Application) -> Application.TerminateReply {
        calls.append("shouldTerminate")
        return reply
    }
    func applicationWillTerminate(_ notification: Notification) { calls.append("willTerminate") }
}

@MainActor private var app: Application { .shared }

/// NSApplication's members (https://developer.apple.com/documentation/appkit/nsapplication).
final class ApplicationMembersTests: BatonTestCase {
    /// hide(_:) / unhide(_:) / isHidden: hiding deactivates the app and takes its windows off
    /// the screen; unhiding shows them again, active, with key and main back
    /// (https://developer.apple.com/documentation/appkit/nsapplication/hide(_:),
    /// .../unhide(_:), .../ishidden, NSApplication.didHideNotification).
    func testHideAndUnhide() {
        MainActor.assumeIsolated {
            app.activate()
            let back = Window(title: "back"), front = Window(title: "front")
            back.makeKeyAndOrderFront(nil)
            front.makeKeyAndOrderFront(nil)
            let log = NotificationLog([Application.willHideNotification, Application.didHideNotification,
                                       Application.willUnhideNotification, Application.didUnhideNotification,
                                       Application.didResignActiveNotification, Application.didBecomeActiveNotification])
            app.hide(nil)
            XCTAssertTrue(app.isHidden)
            XCTAssertFalse(app.isActive)
            XCTAssertNil(app.keyWindow)
            XCTAssertFalse(front.isVisible)
            XCTAssertEqual(app.orderedWindows.count, 0)
            app.hide(nil)  // no second notification
            app.unhide(nil)
            XCTAssertFalse(app.isHidden)
            XCTAssertTrue(app.isActive)
            XCTAssertTrue(front.isVisible && back.isVisible)
            XCTAssertTrue(app.keyWindow === front && app.mainWindow === front)
            XCTAssertEqual(app.orderedWindows.map(\.title), ["front", "back"])
            XCTAssertEqual(log.names, ["BatonApplicationWillHide", "BatonApplicationDidResignActive", "BatonApplicationDidHide",
                                       "BatonApplicationWillUnhide", "BatonApplicationDidBecomeActive",
                                       "BatonApplicationDidUnhide"])
        }
    }

    /// A hidden app's windows leave the screen, so each window's backing (a toolkit's window)
    /// is told to hide it, and to show it again on unhide, the backmost first so the toolkit
    /// stacks them as they were; the windows stay ordered in (NSApplication hide(_:): the
    /// windows come back on unhide(_:)).
    func testHidingTellsEachWindowsBackingToHideItAndUnhidingToShowIt() {
        MainActor.assumeIsolated {
            final class RecordingBacking: WindowBacking {
                var calls: [String] = []
                func windowDidOrderIn(_ window: Window) { calls.append("in \(window.title)") }
                func windowDidOrderOut(_ window: Window) { calls.append("out \(window.title)") }
                func windowDidBecomeKey(_ window: Window) { calls.append("key \(window.title)") }
                func windowDidAskForFirstResponder(_ window: Window) {}
                func windowTitleDidChange(_ window: Window) {}
                func windowContentViewDidChange(_ window: Window) {}
                func windowDidClose(_ window: Window) {}
            }
            let backing = RecordingBacking()
            app.activate()
            let back = Window(title: "back"), front = Window(title: "front"), never = Window(title: "never shown")
            for window in [back, front, never] { window.backing = backing }
            back.makeKeyAndOrderFront(nil)
            front.makeKeyAndOrderFront(nil)
            backing.calls = []
            app.hide(nil)
            XCTAssertEqual(backing.calls, ["out front", "out back"])
            backing.calls = []
            app.unhide(nil)
            XCTAssertEqual(backing.calls, ["in back", "in front", "key front"])
            for window in [back, front, never] { window.backing = nil }
        }
    }

    /// The delegate hears hiding and unhiding, with the notification that is posted, before
    /// observers do (NSApplicationDelegate applicationWillHide(_:), applicationDidHide(_:),
    /// applicationWillUnhide(_:), applicationDidUnhide(_:)).
    func testTheDelegateHearsHideAndUnhide() {
        MainActor.assumeIsolated {
            final class HidingDelegate: ApplicationDelegate {
                var heard: [String] = []
                func applicationWillHide(_ notification: Notification) { heard.append("will hide \(notification.name.rawValue)") }
                func applicationDidHide(_ notification: Notification) { heard.append("did hide") }
                func applicationWillUnhide(_ notification: Notification) { heard.append("will unhide") }
                func applicationDidUnhide(_ notification: Notification) { heard.append("did unhide") }
            }
            let delegate = HidingDelegate()
            app.delegate = delegate
            app.activate()
            Window(title: "w").makeKeyAndOrderFront(nil)
            app.hide(nil)
            app.unhide(nil)
            XCTAssertEqual(delegate.heard, ["will hide BatonApplicationWillHide", "did hide", "will unhide", "did unhide"])
        }
    }

    /// Activating a hidden app unhides it (NSApplication activate: "makes the app active",
    /// and AppKit unhides an app it activates).
    func testActivatingAHiddenAppUnhidesIt() {
        MainActor.assumeIsolated {
            app.activate()
            let window = Window(title: "w")
            window.makeKeyAndOrderFront(nil)
            app.hide(nil)
            app.activate(ignoringOtherApps: true)
            XCTAssertFalse(app.isHidden)
            XCTAssertTrue(app.isActive)
            XCTAssertTrue(window.isKeyWindow)
        }
    }

    /// activate(ignoringOtherApps:) activates as activate() does
    /// (https://developer.apple.com/documentation/appkit/nsapplication/activate(ignoringotherapps:)).
    func testActivateIgnoringOtherApps() {
        MainActor.assumeIsolated {
            let window = Window(title: "w")
            window.makeKeyAndOrderFront(nil)
            XCTAssertNil(app.keyWindow, "inactive: no key window")
            app.activate(ignoringOtherApps: false)
            XCTAssertTrue(app.isActive)
            XCTAssertTrue(app.keyWindow === window)
        }
    }

    /// stop(_:): "exit the current run loop as soon as it finishes processing the current
    /// event", without terminating; isRunning is false after it
    /// (https://developer.apple.com/documentation/appkit/nsapplication/stop(_:), .../isrunning).
    func testStopEndsRunWithoutTerminating() {
        MainActor.assumeIsolated {
            let delegate = TerminationDelegate()
            app.delegate = delegate
            var runningAfterStop: Bool?
            var laterTurnRan = false
            MainLoop.idle {
                app.stop(nil)
                runningAfterStop = app.isRunning
                // Queued after stop: the loop must not run it before run() returns.
                MainLoop.idle { laterTurnRan = true }
            }
            let safety = MainLoop.after(.seconds(20)) { MainLoop.quit() }
            defer { safety.cancel() }
            app.run()
            XCTAssertEqual(runningAfterStop, false)
            XCTAssertFalse(laterTurnRan, "run() returned after the turn that called stop")
            XCTAssertEqual(delegate.calls, [], "stop does not ask to terminate")
            XCTAssertTrue(app.isFinishedLaunching, "the app is still launched")
            // run() again resumes the stopped app.
            MainLoop.idle { app.stop(nil) }
            app.run()
            XCTAssertTrue(laterTurnRan)
        }
    }

    /// applicationShouldTerminate returning .terminateLater: the app keeps running until
    /// reply(toApplicationShouldTerminate:) (https://developer.apple.com/documentation/appkit/nsapplication/terminatereply/terminatelater,
    /// https://developer.apple.com/documentation/appkit/nsapplication/reply(toapplicationshouldterminate:)).
    func testTerminateLaterWaitsForTheReply() {
        MainActor.assumeIsolated {
            let delegate = TerminationDelegate()
            app.delegate = delegate
            var events: [String] = []
            MainLoop.idle {
                app.terminate(nil)
                events.append("terminate returned, running: \(app.isRunning)")
                app.terminate(nil)  // ignored while the answer is awaited
                MainLoop.idle {
                    events.append("loop still runs")
                    app.reply(toApplicationShouldTerminate: false)  // cancelled
                    events.append("cancelled, running: \(app.isRunning)")
                    app.terminate(nil)
                    MainLoop.idle {
                        delegate.reply = .terminateNow  // not asked again: the reply decides
                        app.reply(toApplicationShouldTerminate: true)
                    }
                }
            }
            let safety = MainLoop.after(.seconds(20)) { MainLoop.quit() }
            defer { safety.cancel() }
            app.run()
            XCTAssertEqual(events, ["terminate returned, running: true", "loop still runs", "cancelled, running: true"])
            XCTAssertEqual(delegate.calls, ["shouldTerminate", "shouldTerminate", "willTerminate"])
            XCTAssertFalse(app.isRunning)
        }
    }

    /// A reply with no answer awaited changes nothing.
    func testAReplyNobodyAwaitsIsIgnored() {
        MainActor.assumeIsolated {
            let delegate = TerminationDelegate()
            app.delegate = delegate
            app.finishLaunching()
            app.reply(toApplicationShouldTerminate: true)
            XCTAssertTrue(app.isFinishedLaunching)
            XCTAssertEqual(delegate.calls, [])
        }
    }

    /// orderedWindows: the windows on screen, front to back; "panels are not included"
    /// (https://developer.apple.com/documentation/appkit/nsapplication/orderedwindows).
    func testOrderedWindowsAreFrontToBack() {
        MainActor.assumeIsolated {
            let a = Window(title: "a"), b = Window(title: "b"), c = Window(title: "c")
            a.orderFront(nil)
            b.orderFront(nil)
            c.orderFront(nil)
            a.orderFront(nil)
            Panel(title: "panel").orderFront(nil)
            XCTAssertEqual(app.orderedWindows.map(\.title), ["a", "c", "b"], "front to back, no panels")
            c.close()
            XCTAssertEqual(app.orderedWindows.map(\.title), ["a", "b"])
        }
    }
}
