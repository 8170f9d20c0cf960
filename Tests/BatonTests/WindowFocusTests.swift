@testable import Baton
import BatonTestSupport
import Foundation
import XCTest

/// Records the key/main notifications, in order.
@MainActor
final class FocusLog {
    private(set) var entries: [String] = []
    nonisolated(unsafe) private var tokens: [NSObjectProtocol] = []

    init() {
        let names: [(Notification.Name, String)] = [
            (Window.didResignKeyNotification, "resignKey"), (Window.didResignMainNotification, "resignMain"),
            (Window.didBecomeMainNotification, "becomeMain"), (Window.didBecomeKeyNotification, "becomeKey"),
        ]
        for (name, label) in names {
            tokens.append(NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
                nonisolated(unsafe) let object = note.object
                MainActor.assumeIsolated {
                    let title = (object as? Window)?.title ?? "?"
                    self?.entries.append("\(label) \(title)")
                }
            })
        }
    }

    func take() -> [String] { defer { entries = [] }; return entries }

    deinit { for token in tokens { NotificationCenter.default.removeObserver(token) } }
}

/// AppKit's key and main windows (NSWindow "Key and Main Windows"; NSPanel cannot become main;
/// NSApplication keyWindow/mainWindow are nil while the app is inactive).
@MainActor private var app: Application { .shared }

final class WindowFocusTests: BatonTestCase {

    func testMakeKeyAndOrderFrontMakesADocumentWindowKeyAndMain() {
        MainActor.assumeIsolated {
            app.activate()
            let log = FocusLog()
            let window = Window(title: "A")
            XCTAssertFalse(window.isVisible)
            window.makeKeyAndOrderFront(nil)
            XCTAssertTrue(window.isVisible)
            XCTAssertTrue(window.isKeyWindow)
            XCTAssertTrue(window.isMainWindow)
            XCTAssertTrue(app.keyWindow === window)
            XCTAssertEqual(log.take(), ["becomeMain A", "becomeKey A"])
        }
    }

    func testAPanelBecomesKeyButNeverMain() {
        MainActor.assumeIsolated {
            app.activate()
            let document = Window(title: "doc")
            document.makeKeyAndOrderFront(nil)
            let log = FocusLog()
            let panel = Panel(title: "panel")
            panel.makeKeyAndOrderFront(nil)
            XCTAssertTrue(panel.isKeyWindow)
            XCTAssertFalse(panel.isMainWindow)
            XCTAssertTrue(document.isMainWindow)
            XCTAssertEqual(log.take(), ["resignKey doc", "becomeKey panel"])
            panel.makeMain()
            XCTAssertTrue(document.isMainWindow)
            assertRefused("windowCannotBecome", mentioning: "'panel'")
        }
    }

    func testClosingTheKeyPanelGivesKeyBackToTheMainWindow() {
        MainActor.assumeIsolated {
            app.activate()
            let document = Window(title: "doc")
            document.makeKeyAndOrderFront(nil)
            let panel = Panel(title: "panel")
            panel.makeKeyAndOrderFront(nil)
            let log = FocusLog()
            panel.close()
            XCTAssertTrue(document.isKeyWindow)
            XCTAssertTrue(document.isMainWindow)
            XCTAssertEqual(log.take(), ["resignKey panel", "becomeKey doc"])
        }
    }

    func testOrderingOutTheKeyAndMainWindowHandsBothToTheNextWindow() {
        MainActor.assumeIsolated {
            app.activate()
            let back = Window(title: "back"), front = Window(title: "front")
            back.makeKeyAndOrderFront(nil)
            front.makeKeyAndOrderFront(nil)
            let log = FocusLog()
            front.orderOut(nil)
            XCTAssertFalse(front.isVisible)
            XCTAssertTrue(back.isKeyWindow && back.isMainWindow)
            XCTAssertEqual(log.take(), ["resignKey front", "resignMain front", "becomeMain back", "becomeKey back"])
            XCTAssertEqual(app.windows.count, 2, "ordered-out windows stay in windows")
            XCTAssertEqual(app.orderedWindows.map(\.title), ["back"])
        }
    }

    func testClosingTheLastWindowLeavesNoKeyOrMain() {
        MainActor.assumeIsolated {
            app.activate()
            let only = Window(title: "only")
            only.makeKeyAndOrderFront(nil)
            only.close()
            XCTAssertNil(app.keyWindow)
            XCTAssertNil(app.mainWindow)
            XCTAssertTrue(app.windows.isEmpty)
        }
    }

    func testInactiveAppHasNoKeyWindowAndGetsItBackOnActivation() {
        MainActor.assumeIsolated {
            app.activate()
            let a = Window(title: "A")
            a.makeKeyAndOrderFront(nil)
            let log = FocusLog()
            app.deactivate()
            XCTAssertNil(app.keyWindow)
            XCTAssertNil(app.mainWindow)
            XCTAssertFalse(a.isKeyWindow)
            app.activate()
            XCTAssertTrue(a.isKeyWindow && a.isMainWindow)
            XCTAssertEqual(log.take(), ["resignKey A", "resignMain A", "becomeMain A", "becomeKey A"])
        }
    }

    func testMakeKeyWhileInactiveTakesEffectOnActivation() {
        MainActor.assumeIsolated {
            let a = Window(title: "A")
            a.makeKeyAndOrderFront(nil)
            XCTAssertNil(app.keyWindow)
            app.activate()
            XCTAssertTrue(app.keyWindow === a)
        }
    }

    func testActivationWithoutAKeyWindowPicksTheFrontmostEligible() {
        MainActor.assumeIsolated {
            let panel = Panel(title: "p"), doc = Window(title: "d")
            doc.orderFront(nil)
            panel.orderFront(nil)
            app.activate()
            XCTAssertTrue(app.mainWindow === doc)
            XCTAssertTrue(app.keyWindow === doc, "key goes to the main window when it can be key")
        }
    }

    func testMakingAnInvisibleWindowKeyIsRefusedAndChangesNothing() {
        MainActor.assumeIsolated {
            app.activate()
            let shown = Window(title: "shown")
            shown.makeKeyAndOrderFront(nil)
            let hidden = Window(title: unique("hidden"))
            hidden.makeKey()
            hidden.makeMain()
            XCTAssertTrue(app.keyWindow === shown)
            XCTAssertTrue(app.mainWindow === shown)
            let found = CapturedLog.shared.refusals(mentioning: hidden.title)
            XCTAssertEqual(found.map(\.refusal), [.windowNotVisible(window: hidden.responderDescription, wanted: "makeKey()"),
                                                   .windowNotVisible(window: hidden.responderDescription, wanted: "makeMain()")])
            XCTAssertTrue(found[0].message.contains("makeKey()"), found[0].message)
        }
    }

    func testClosingTwiceIsRefusedAndChangesNothing() {
        MainActor.assumeIsolated {
            app.activate()
            let other = Window(title: "other")
            other.makeKeyAndOrderFront(nil)
            let window = Window(title: unique("twice"))
            window.close()
            XCTAssertTrue(window.isClosed)
            window.close()
            window.makeKeyAndOrderFront(nil)
            XCTAssertTrue(app.keyWindow === other)
            XCTAssertFalse(app.windows.contains { $0 === window })
            XCTAssertEqual(CapturedLog.shared.refusals(mentioning: window.title).map(\.refusal?.kind),
                           ["windowAlreadyClosed", "windowClosed"])
        }
    }

    func testWindowControllerOwnsAndShowsItsWindow() {
        MainActor.assumeIsolated {
            app.activate()
            let controller = WindowController(window: Window(title: "managed"))
            controller.showWindow(nil)
            XCTAssertTrue(controller.window?.isKeyWindow == true)
            XCTAssertTrue(controller.window?.windowController === controller)
            XCTAssertTrue(controller.window?.nextResponder === controller)
            controller.close()
            XCTAssertNil(app.keyWindow)
        }
    }
}

final class RecordingDelegate: ApplicationDelegate {
    var calls: [String] = []
    var cancelTermination = false
    func applicationWillFinishLaunching(_ n: Notification) { calls.append("willFinishLaunching") }
    func applicationDidFinishLaunching(_ n: Notification) { calls.append("didFinishLaunching") }
    func applicationWillBecomeActive(_ n: Notification) { calls.append("willBecomeActive") }
    func applicationDidBecomeActive(_ n: Notification) { calls.append("didBecomeActive") }
    func applicationWillResignActive(_ n: Notification) { calls.append("willResignActive") }
    func applicationDidResignActive(_ n: Notification) { calls.append("didResignActive") }
    func applicationShouldTerminate(_ sender: Application) -> Application.TerminateReply {
        calls.append("shouldTerminate")
        return cancelTermination ? .terminateCancel : .terminateNow
    }
    func applicationWillTerminate(_ n: Notification) { calls.append("willTerminate") }
}

/// NSApplicationDelegate: launch, activation and termination messages, in AppKit's order.
final class ApplicationDelegateTests: BatonTestCase {
    func testLaunchActivationAndTerminationReachTheDelegateInOrder() {
        MainActor.assumeIsolated {
            let delegate = RecordingDelegate()
            Application.shared.delegate = delegate
            Application.shared.finishLaunching()
            Application.shared.finishLaunching()  // only the first call acts
            Application.shared.deactivate()
            Application.shared.activate()
            delegate.cancelTermination = true
            Application.shared.terminate(nil)
            delegate.cancelTermination = false
            Application.shared.terminate(nil)
            XCTAssertEqual(delegate.calls, [
                "willFinishLaunching", "didFinishLaunching", "willBecomeActive", "didBecomeActive",
                "willResignActive", "didResignActive", "willBecomeActive", "didBecomeActive",
                "shouldTerminate", "shouldTerminate", "willTerminate",
            ])
        }
    }

    func testTerminatingWhileLaunchingEndsRunAtOnce() {
        MainActor.assumeIsolated {
            final class QuitsAtLaunch: ApplicationDelegate {
                func applicationDidFinishLaunching(_ notification: Notification) { Application.shared.terminate(nil) }
            }
            let delegate = QuitsAtLaunch()
            Application.shared.delegate = delegate
            // Had the loop started, this idle source would run (and the timer would end the run).
            var loopIterated = false
            let idle = MainLoop.idle { loopIterated = true }
            let safety = MainLoop.after(.seconds(20)) { Application.shared.terminate(nil) }
            defer { idle.cancel(); safety.cancel() }
            Application.shared.run()  // returns: the loop never starts
            XCTAssertFalse(loopIterated, "run() iterated the loop after a terminate while launching")
        }
    }

    func testRunReturnsAfterTerminate() {
        MainActor.assumeIsolated {
            let delegate = RecordingDelegate()
            Application.shared.delegate = delegate
            var runningInTheLoop = false
            MainLoop.idle {
                runningInTheLoop = Application.shared.isRunning
                Application.shared.terminate(nil)
            }
            Application.shared.run()
            XCTAssertTrue(runningInTheLoop, "isRunning is true while the loop runs")
            XCTAssertFalse(Application.shared.isRunning)
            XCTAssertEqual(delegate.calls.last, "willTerminate")
        }
    }
}

/// Application.main() in a real process of its own.
final class ApplicationMainProcessTests: XCTestCase {
    func testMainRunsTasksAwaitsAndDispatchOnTheLoopThenReturns() throws {
        try MainActor.assumeIsolated {
            let run = try runProduct("LoopProbe", ["lifecycle"])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertEqual(run.stdout.split(separator: "\n"), [
                "willFinishLaunching", "didFinishLaunching", "willBecomeActive", "didBecomeActive",
                "task on main thread: true", "await resumed on main thread: true value: 42",
                "DispatchQueue.main.async on main thread: true", "willTerminate", "main returned",
            ])
        }
    }

    func testAnAsyncMainIsDetectedWithAMessageSayingWhatToDo() throws {
        try MainActor.assumeIsolated {
            let run = try runProduct("AsyncMainProbe")
            XCTAssertNotEqual(run.status, 0)
            XCTAssertFalse(run.stdout.contains("unreachable"))
            XCTAssertTrue(run.stderr.contains("Application.main() must be called from synchronous code"), run.stderr)
            XCTAssertTrue(run.stderr.contains("Task { @MainActor in"), run.stderr)
        }
    }

    func testUIAPIOffTheMainThreadTrapsWithAMessage() throws {
        try MainActor.assumeIsolated {
            let run = try runProduct("LoopProbe", ["window-off-main"])
            XCTAssertNotEqual(run.status, 0)
            XCTAssertTrue(run.stderr.contains("Window.init must be called on the main actor"), run.stderr)
        }
    }
}

/// The example apps, run as a user would: each ends by itself and shows the runtime's behaviour.
final class ExampleAppTests: XCTestCase {
    func testTheReadmesHelloAppGreetsThroughTheResponderChain() throws {
        let run = try runProduct("baton-hello")
        XCTAssertEqual(run.status, 0, run.stderr)
        XCTAssertEqual(run.stdout, "hello from greeter in window Main\n")
    }

    func testDemoRunsToTheEndAndShowsFocusAndActions() throws {
        let run = try runProduct("baton-screens", ["--demo"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let out = run.stdout
        XCTAssertTrue(out.contains("copy → Field 'subject' copied \"Weekly notes\""), out)
        XCTAssertTrue(out.contains("refresh → MailboxController 'mailbox' fetched"), out)
        XCTAssertTrue(out.contains("Inspector became key"), out)
        XCTAssertTrue(out.contains("chain: Field 'message list' → View 'inbox' → MailboxController 'mailbox' → Window 'Inbox' → Application"), out)
        XCTAssertTrue(out.hasSuffix("terminating\n"), out)
    }
}
