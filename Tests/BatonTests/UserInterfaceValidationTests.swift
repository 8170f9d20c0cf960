@testable import Baton
import Foundation
import XCTest

/// A view that handles `copy` and says whether copying is possible now.
final class ValidatingCopyView: View, Copying, UserInterfaceValidations {
    var canCopy = true
    var validatedItems: [AnyAction] = []
    override var acceptsFirstResponder: Bool { true }
    func copy(_ sender: Any?) {}
    func validateUserInterfaceItem(_ item: any ValidatedUserInterfaceItem) -> Bool {
        if let action = item.action { validatedItems.append(action) }
        return item.action == .copy ? canCopy : true
    }
}

/// An item as a menu item would be: an action and a tag.
struct MenuItemLike: ValidatedUserInterfaceItem {
    let action: AnyAction?
    var tag = 0
}

/// AppKit's automatic enabling ("Enabling Menu Items", `NSValidatedUserInterfaceItem`,
/// `NSUserInterfaceValidations`): the item's target is what `target(forAction:to:from:)` finds
/// up the responder chain; no target disables the item; a target adopting
/// `UserInterfaceValidations` decides; any other target enables it. And the update cycle
/// (`setWindowsNeedUpdate(_:)`, `updateWindows()`) that re-runs it when the chain changes.
final class UserInterfaceValidationTests: BatonTestCase {
    func testTargetForActionIsTheFirstHandlerUpTheChainFromTheKeyWindowsFirstResponder() {
        MainActor.assumeIsolated {
            let outer = CopyingView(identifier: "outer")
            let inner = View(identifier: "inner")
            let content = View(identifier: "content")
            content.addSubview(outer)
            outer.addSubview(inner)
            let window = Window(title: "target", contentViewController: nil)
            window.contentView = content
            window.makeKeyAndOrderFront(nil)
            Application.shared.activate()
            // inner does not handle copy: its superview, the first handler up the chain, does.
            XCTAssertTrue(window.makeFirstResponder(content))
            XCTAssertNil(Application.shared.target(forAction: .copy))
            let innerFirst = CopyingView(identifier: "inner handler")
            inner.addSubview(innerFirst)
            XCTAssertTrue(window.makeFirstResponder(innerFirst))
            XCTAssertTrue(Application.shared.target(forAction: .copy) === innerFirst)
            innerFirst.removeFromSuperview()
            XCTAssertTrue(window.makeFirstResponder(outer))
            XCTAssertTrue(Application.shared.target(forAction: .copy) === outer)
        }
    }

    func testAnItemIsEnabledOnlyWhenTheChainHasATargetAndItsValidatorSaysYes() {
        MainActor.assumeIsolated {
            let validating = ValidatingCopyView(identifier: "validating")
            let plain = View(identifier: "plain")
            let content = View(identifier: "content")
            content.addSubview(validating)
            content.addSubview(plain)
            let window = Window(title: "validation")
            window.contentView = content
            window.makeKeyAndOrderFront(nil)
            Application.shared.activate()
            let item = MenuItemLike(action: AnyAction(.copy), tag: 7)

            window.makeFirstResponder(plain)
            XCTAssertFalse(Application.shared.isEnabled(item), "nothing up the chain handles copy")
            window.makeFirstResponder(validating)
            XCTAssertTrue(Application.shared.isEnabled(item))
            XCTAssertEqual(validating.validatedItems, [AnyAction(.copy)])
            validating.canCopy = false
            XCTAssertFalse(Application.shared.isEnabled(item), "the target's validator said no")
            // With an explicit target, that target is asked, whatever the chain holds.
            XCTAssertFalse(Application.shared.isEnabled(item, to: validating))
            XCTAssertTrue(Application.shared.isEnabled(item, to: CopyingView(identifier: "other")))
            XCTAssertFalse(Application.shared.isEnabled(item, to: plain))
            XCTAssertFalse(Application.shared.isEnabled(MenuItemLike(action: nil)), "an item without an action")
            // An inactive app has no key window: no chain, nothing enabled.
            validating.canCopy = true
            Application.shared.deactivate()
            XCTAssertFalse(Application.shared.isEnabled(item))
        }
    }

    func testErasedActionsCompareByNameAndHandlerProtocol() {
        MainActor.assumeIsolated {
            XCTAssertEqual(AnyAction(.copy), AnyAction(Action<any Copying>.copy))
            XCTAssertTrue(AnyAction(.copy) == .copy)
            XCTAssertNotEqual(AnyAction(.copy), AnyAction(Action<any Copying>("paste") { _, _ in }))
            XCTAssertNotEqual(AnyAction(.copy), AnyAction(Action<any ValidatedUserInterfaceItem>("copy") { _, _ in }))
            XCTAssertFalse(Optional<AnyAction>.none == Action<any Copying>.copy)
        }
    }

    func testAChangeOfFirstResponderUpdatesTheWindowsOnceInTheLoopsNextTurn() {
        MainActor.assumeIsolated {
            let content = View(identifier: "content")
            let view = CopyingView(identifier: "view")
            content.addSubview(view)
            let window = Window(title: "updates")
            window.contentView = content
            let watched = [Application.willUpdateNotification, Window.didUpdateNotification, Application.didUpdateNotification]
            let cycle = ["BatonApplicationWillUpdate", "BatonWindowDidUpdate", "BatonApplicationDidUpdate"]
            var log = NotificationLog(watched)
            window.makeKeyAndOrderFront(nil)
            Application.shared.activate()
            window.makeFirstResponder(view)
            XCTAssertEqual(log.names, [], "the update waits for the loop")
            XCTAssertTrue(MainLoop.run(until: { !log.names.isEmpty }, timeout: .seconds(10)))
            drainLoop()
            XCTAssertEqual(log.names, cycle, "several changes, one update of each visible window")
            // setWindowsNeedUpdate(false) cancels a scheduled update.
            log = NotificationLog(watched)
            window.makeFirstResponder(nil)
            Application.shared.setWindowsNeedUpdate(false)
            drainLoop()
            XCTAssertEqual(log.names, [])
            Application.shared.updateWindows()
            XCTAssertEqual(log.names, cycle)
        }
    }

    /// The delegates hear the update (NSApplicationDelegate `applicationWillUpdate(_:)`,
    /// `applicationDidUpdate(_:)`; NSWindowDelegate `windowDidUpdate(_:)`); a window not on
    /// screen gets no `update()` (`updateWindows()`: "each onscreen window").
    func testTheDelegatesHearTheUpdateOfTheWindowsOnScreen() {
        MainActor.assumeIsolated {
            final class Delegate: ApplicationDelegate, WindowDelegate {
                var calls: [String] = []
                func applicationWillUpdate(_ notification: Notification) { calls.append("app will") }
                func applicationDidUpdate(_ notification: Notification) { calls.append("app did") }
                func windowDidUpdate(_ notification: Notification) {
                    calls.append("window \((notification.object as? Window)?.title ?? "?")")
                }
            }
            let delegate = Delegate()
            Application.shared.delegate = delegate
            let shown = Window(title: "shown"), offscreen = Window(title: "offscreen")
            shown.delegate = delegate
            offscreen.delegate = delegate
            shown.makeKeyAndOrderFront(nil)
            Application.shared.updateWindows()
            XCTAssertEqual(delegate.calls, ["app will", "window shown", "app did"])
            delegate.calls = []
            Application.shared.hide(nil)
            Application.shared.updateWindows()
            XCTAssertEqual(delegate.calls, ["app will", "app did"], "a hidden app has no window on screen")
            Application.shared.delegate = nil
        }
    }
}

/// Runs what is already queued on the loop: a low-priority idle runs after it.
@MainActor private func drainLoop() {
    var done = false
    _ = MainLoop.idle(priority: .low) { done = true }
    XCTAssertTrue(MainLoop.run(until: { done }, timeout: .seconds(10)))
}
