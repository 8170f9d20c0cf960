import Baton
import BatonTestSupport
import Foundation
import XCTest

// Apple's signatures, each copied from its page on developer.apple.com (AppKit's
// NSApplicationDelegate, NSWindowDelegate, NSResponder, NSWindow, NSViewController,
// NSViewControllerPresentationAnimator, NSWindowController, NSDocument, NSDocumentController,
// NSApplication; UIKit's UIApplicationDelegate, UIViewController, UIResponder; Foundation's
// NSUserActivityDelegate; NSUserActivityRestoring), with the types renamed only (the NS/UI prefix dropped,
// NSUserActivity → UserActivity), and each proven to be the one Baton calls: a conformer or
// subclass records the call, driven on the real application and the real GLib loop.
//
// Left out, because the porting guide lists them as deviations that stay: the `Selector`
// parameters of `noResponder(for:)`, `supplementalTarget(forAction:sender:)` and
// `tryToPerform(_:with:)` (typed actions here), `userActivity(_:didReceive:outputStream:)`'s
// Foundation streams, `NSWindowController.document` as `AnyObject?`, and
// `documentClass(forType:)`'s class being a `Document` subclass named in the manifest.

private let manifest = AppManifest(appID: "com.example.signatures", teamIdentifier: "TEAM1",
                                   activityTypes: ["com.example.signatures.view"])
private let activityType = "com.example.signatures.view"

/// NSUserActivityRestoring, adopted by a class that is no responder: `restoreUserActivityState(_:)`.
private final class SigRestorer: UserActivityRestoring {
    var restored: [String] = []
    func restoreUserActivityState(_ userActivity: UserActivity) {
        restored.append(userActivity.userInfo?["page"] as? String ?? "?")
    }
}

/// Every NSApplicationDelegate method Baton calls, as AppKit declares it.
private final class SigAppKitDelegate: ApplicationDelegate {
    var calls: [String] = []
    var reply: Application.TerminateReply = .terminateNow
    var terminatesAfterLastWindow = false
    let restorer = SigRestorer()

    func applicationWillFinishLaunching(_ notification: Notification) { calls.append("willFinishLaunching") }
    func applicationDidFinishLaunching(_ notification: Notification) { calls.append("didFinishLaunching") }
    func applicationWillBecomeActive(_ notification: Notification) { calls.append("willBecomeActive") }
    func applicationDidBecomeActive(_ notification: Notification) { calls.append("didBecomeActive") }
    func applicationWillResignActive(_ notification: Notification) { calls.append("willResignActive") }
    func applicationDidResignActive(_ notification: Notification) { calls.append("didResignActive") }
    func applicationWillHide(_ notification: Notification) { calls.append("willHide") }
    func applicationDidHide(_ notification: Notification) { calls.append("didHide") }
    func applicationWillUnhide(_ notification: Notification) { calls.append("willUnhide") }
    func applicationDidUnhide(_ notification: Notification) { calls.append("didUnhide") }
    func applicationShouldTerminate(_ sender: Application) -> Application.TerminateReply {
        calls.append("shouldTerminate")
        return reply
    }
    func applicationShouldTerminateAfterLastWindowClosed(_ sender: Application) -> Bool {
        calls.append("shouldTerminateAfterLastWindowClosed")
        return terminatesAfterLastWindow
    }
    func applicationWillTerminate(_ notification: Notification) { calls.append("willTerminate") }
    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        calls.append("willContinue")
        return true
    }
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]) -> Void) -> Bool {
        calls.append("continue")
        restorationHandler([restorer])
        return true
    }
    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String,
                     error: any Error) {
        calls.append("didFailToContinue")
    }
    func application(_ application: Application, didUpdate userActivity: UserActivity) { calls.append("didUpdate") }
}

/// Every UIApplicationDelegate method Baton calls, as UIKit declares it (default arguments and all).
private final class SigUIKitDelegate: ApplicationDelegate {
    var calls: [String] = []
    let restorer = SigRestorer()

    func application(_ application: Application,
                     willFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]? = nil) -> Bool {
        calls.append("willFinishLaunchingWithOptions")
        return true
    }
    func application(_ application: Application,
                     didFinishLaunchingWithOptions launchOptions: [Application.LaunchOptionsKey: Any]? = nil) -> Bool {
        calls.append("didFinishLaunchingWithOptions")
        return true
    }
    func applicationDidFinishLaunching(_ application: Application) { calls.append("didFinishLaunching") }
    func applicationDidBecomeActive(_ application: Application) { calls.append("didBecomeActive") }
    func applicationWillResignActive(_ application: Application) { calls.append("willResignActive") }
    func applicationDidEnterBackground(_ application: Application) { calls.append("didEnterBackground") }
    func applicationWillEnterForeground(_ application: Application) { calls.append("willEnterForeground") }
    func applicationWillTerminate(_ application: Application) { calls.append("willTerminate") }
    func application(_ application: Application, willContinueUserActivityWithType userActivityType: String) -> Bool {
        calls.append("willContinue")
        return true
    }
    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: @escaping ([any UserActivityRestoring]?) -> Void) -> Bool {
        calls.append("continue")
        restorationHandler([restorer])
        return true
    }
    func application(_ application: Application, didFailToContinueUserActivityWithType userActivityType: String,
                     error: any Error) {
        calls.append("didFailToContinue")
    }
    func application(_ application: Application, didUpdate userActivity: UserActivity) { calls.append("didUpdate") }
}

/// NSUserActivityDelegate's methods that keep Foundation's types.
private final class SigActivityDelegate: UserActivityDelegate {
    var calls: [String] = []
    func userActivityWillSave(_ userActivity: UserActivity) { calls.append("willSave") }
    func userActivityWasContinued(_ userActivity: UserActivity) { calls.append("wasContinued") }
}

/// NSUserActivityDelegate adopted as Swift 6 code written against Apple's SDK adopts it from a
/// main-actor class: Foundation's protocol is not main-actor isolated, so the methods are
/// `nonisolated` and hop to the main queue themselves.
private final class SigNonisolatedActivityDelegate: ViewController, UserActivityDelegate {
    var continued = 0
    nonisolated func userActivityWasContinued(_ userActivity: UserActivity) {
        DispatchQueue.main.async { [weak self] in
            self?.continued += 1
        }
    }
}

/// Every NSWindowDelegate method Baton has.
private final class SigWindowDelegate: WindowDelegate {
    var calls: [String] = []
    var allowsClose = true
    let undo = UndoManager()
    func windowShouldClose(_ sender: Window) -> Bool {
        calls.append("shouldClose")
        return allowsClose
    }
    func windowWillClose(_ notification: Notification) { calls.append("willClose") }
    func windowDidBecomeKey(_ notification: Notification) { calls.append("didBecomeKey") }
    func windowDidResignKey(_ notification: Notification) { calls.append("didResignKey") }
    func windowDidBecomeMain(_ notification: Notification) { calls.append("didBecomeMain") }
    func windowDidResignMain(_ notification: Notification) { calls.append("didResignMain") }
    func windowWillReturnUndoManager(_ window: Window) -> UndoManager? {
        calls.append("willReturnUndoManager")
        return undo
    }
}

/// NSResponder's overridable members (a view, as AppKit's responders mostly are).
private final class SigResponder: View {
    var calls: [String] = []
    var refusesToResign = false
    let ownUndo = UndoManager()
    override var acceptsFirstResponder: Bool { true }
    override func becomeFirstResponder() -> Bool {
        calls.append("become")
        return super.becomeFirstResponder()
    }
    override func resignFirstResponder() -> Bool {
        calls.append("resign")
        return !refusesToResign
    }
    override func validateProposedFirstResponder(_ responder: Responder, for event: Event?) -> Bool {
        calls.append("validate")
        return super.validateProposedFirstResponder(responder, for: event)
    }
    override var undoManager: UndoManager? {
        calls.append("undoManager")
        return ownUndo
    }
    override var userActivity: UserActivity? {
        didSet { calls.append("userActivity set") }
    }
    override var nextResponder: Responder? {
        get {
            calls.append("nextResponder")
            return super.nextResponder
        }
        set { super.nextResponder = newValue }
    }
    override func updateUserActivityState(_ userActivity: UserActivity) { calls.append("update") }
    override func restoreUserActivityState(_ userActivity: UserActivity) { calls.append("restore") }
}

/// UIResponder's spellings of the first-responder rules.
private final class SigUIKitResponder: View {
    var resigns = true
    override var canBecomeFirstResponder: Bool { true }
    override var canResignFirstResponder: Bool { resigns }
}

/// NSWindow's overridable members.
private final class SigWindow: Window {
    var calls: [String] = []
    var allowsKey = true
    override var canBecomeKey: Bool { allowsKey }
    override var canBecomeMain: Bool { true }
    override var title: String { didSet { calls.append("title") } }
    override func becomeKey() { calls.append("becomeKey") }
    override func resignKey() { calls.append("resignKey") }
    override func becomeMain() { calls.append("becomeMain") }
    override func resignMain() { calls.append("resignMain") }
    override func makeKey() { calls.append("makeKey"); super.makeKey() }
    override func makeMain() { calls.append("makeMain"); super.makeMain() }
    override func makeKeyAndOrderFront(_ sender: Any?) { calls.append("makeKeyAndOrderFront"); super.makeKeyAndOrderFront(sender) }
    override func orderFront(_ sender: Any?) { calls.append("orderFront"); super.orderFront(sender) }
    override func orderBack(_ sender: Any?) { calls.append("orderBack"); super.orderBack(sender) }
    override func orderOut(_ sender: Any?) { calls.append("orderOut"); super.orderOut(sender) }
    override func orderFrontRegardless() { calls.append("orderFrontRegardless"); super.orderFrontRegardless() }
    override func performClose(_ sender: Any?) { calls.append("performClose"); super.performClose(sender) }
    override func close() { calls.append("close"); super.close() }
    override func makeFirstResponder(_ responder: Responder?) -> Bool {
        calls.append("makeFirstResponder")
        return super.makeFirstResponder(responder)
    }
    override var contentViewController: ViewController? { didSet { calls.append("contentViewController") } }
    override var initialFirstResponder: View? { didSet { calls.append("initialFirstResponder") } }
}

/// NSViewControllerPresentationAnimator, as AppKit declares it.
private final class SigAnimator: ViewControllerPresentationAnimator {
    var calls: [String] = []
    func animatePresentation(of viewController: ViewController, from fromViewController: ViewController) {
        calls.append("animatePresentation")
    }
    func animateDismissal(of viewController: ViewController, from fromViewController: ViewController) {
        calls.append("animateDismissal")
    }
}

/// NSViewController's (and UIViewController's presentation) overridable members.
private final class SigViewController: ViewController {
    var calls: [String] = []
    override func loadView() { calls.append("loadView"); super.loadView() }
    override func viewDidLoad() { calls.append("viewDidLoad") }
    override func addChild(_ childViewController: ViewController) { calls.append("addChild"); super.addChild(childViewController) }
    override func removeFromParent() { calls.append("removeFromParent"); super.removeFromParent() }
    override func present(_ viewController: ViewController, animator: any ViewControllerPresentationAnimator) {
        calls.append("present(_:animator:)")
        super.present(viewController, animator: animator)
    }
    override func presentAsSheet(_ viewController: ViewController) {
        calls.append("presentAsSheet")
        super.presentAsSheet(viewController)
    }
    override func presentAsModalWindow(_ viewController: ViewController) {
        calls.append("presentAsModalWindow")
        super.presentAsModalWindow(viewController)
    }
    override func present(_ viewController: ViewController, asPopoverRelativeTo positioningRect: NSRect,
                          of positioningView: View, preferredEdge: NSRectEdge, behavior: Popover.Behavior) {
        calls.append("present(asPopover)")
        super.present(viewController, asPopoverRelativeTo: positioningRect, of: positioningView,
                      preferredEdge: preferredEdge, behavior: behavior)
    }
    override func present(_ viewControllerToPresent: ViewController, animated flag: Bool, completion: (() -> Void)? = nil) {
        calls.append("present(_:animated:completion:)")
        super.present(viewControllerToPresent, animated: flag, completion: completion)
    }
    override func dismiss(_ viewController: ViewController) {
        calls.append("dismiss(viewController)")
        super.dismiss(viewController)
    }
    override func dismiss(_ sender: Any?) {
        calls.append("dismiss(sender)")
        super.dismiss(sender)
    }
    override func dismiss(animated flag: Bool, completion: (() -> Void)? = nil) {
        calls.append("dismiss(animated:completion:)")
        super.dismiss(animated: flag, completion: completion)
    }
}

/// NSWindowController's overridable members.
private final class SigWindowController: WindowController {
    var calls: [String] = []
    override func showWindow(_ sender: Any?) { calls.append("showWindow"); super.showWindow(sender) }
    override func close() { calls.append("close"); super.close() }
    override var window: Window? { didSet { calls.append("window") } }
    override var document: Document? { didSet { calls.append("document") } }
    override var contentViewController: ViewController? {
        get { super.contentViewController }
        set { calls.append("contentViewController"); super.contentViewController = newValue }
    }
}

/// NSDocument's overridable members.
private final class SigDocument: Document {
    var calls: [String] = []
    override init() { super.init() }
    override func read(from url: URL, ofType typeName: String) throws { calls.append("read") }
    override func makeWindowControllers() {
        calls.append("makeWindowControllers")
        addWindowController(WindowController(window: Window(title: "sig document")))
    }
    override func addWindowController(_ windowController: WindowController) {
        calls.append("addWindowController")
        super.addWindowController(windowController)
    }
    override func removeWindowController(_ windowController: WindowController) {
        calls.append("removeWindowController")
        super.removeWindowController(windowController)
    }
    override func showWindows() { calls.append("showWindows"); super.showWindows() }
    override func updateUserActivityState(_ userActivity: UserActivity) {
        calls.append("update")
        super.updateUserActivityState(userActivity)
    }
    override func restoreUserActivityState(_ userActivity: UserActivity) { calls.append("restore") }
    override func close() { calls.append("close"); super.close() }
    override var fileURL: URL? { didSet { calls.append("fileURL") } }
    override var fileType: String? { didSet { calls.append("fileType") } }
}

/// NSDocumentController's overridable members.
private final class SigDocumentController: DocumentController {
    var calls: [String] = []
    override func documentClass(forType typeName: String) -> AnyClass? {
        calls.append("documentClass")
        return SigDocument.self
    }
    override func typeForContents(of url: URL) throws -> String {
        calls.append("typeForContents")
        return try super.typeForContents(of: url)
    }
    override func makeDocument(withContentsOf url: URL, ofType typeName: String) throws -> Document {
        calls.append("makeDocument")
        return try super.makeDocument(withContentsOf: url, ofType: typeName)
    }
    override func openDocument(withContentsOf url: URL, display displayDocument: Bool,
                               completionHandler: @escaping (Document?, Bool, (any Error)?) -> Void) {
        calls.append("openDocument")
        super.openDocument(withContentsOf: url, display: displayDocument, completionHandler: completionHandler)
    }
    override func document(for url: URL) -> Document? {
        calls.append("document(for:)")
        return super.document(for: url)
    }
    override var currentDocument: Document? {
        calls.append("currentDocument")
        return super.currentDocument
    }
    override func addDocument(_ document: Document) { calls.append("addDocument"); super.addDocument(document) }
    override func removeDocument(_ document: Document) { calls.append("removeDocument"); super.removeDocument(document) }
}

@MainActor
private func pageActivity(_ page: String) -> UserActivity {
    let activity = UserActivity(activityType: activityType)
    activity.userInfo = ["page": page]
    return activity
}

/// Offers a continuation this app's manifest does not declare, so it fails; returns once it ended.
@MainActor
private func handOffUndeclared() {
    var finished = false
    Application.shared.continueUserActivity(ofType: "com.example.signatures.undeclared",
                                            completionHandler: { finished = true }) { Data() }
    spin(until: { finished })
}

/// A view controller whose view owns `activity`, in a key and main window.
@MainActor
private func windowOwning(_ activity: UserActivity) -> Window {
    let controller = ViewController(title: "owner")
    let window = Window(title: "owner", contentViewController: controller)
    controller.userActivity = activity
    window.makeKeyAndOrderFront(nil)
    return window
}

final class AppleSignaturesTests: PortingTestCase {
    // MARK: NSApplicationDelegate

    func testAppKitDelegateMethodsAreCalled() throws {
        try MainActor.assumeIsolated {
            let delegate = SigAppKitDelegate()
            launch(manifest, delegate)
            XCTAssertEqual(delegate.calls, ["willFinishLaunching", "didFinishLaunching", "willBecomeActive", "didBecomeActive"])

            delegate.calls = []
            Application.shared.hide(nil)
            Application.shared.unhide(nil)
            XCTAssertEqual(delegate.calls, ["willHide", "willResignActive", "didResignActive", "didHide",
                                            "willUnhide", "willBecomeActive", "didBecomeActive", "didUnhide"])

            delegate.calls = []
            try handOff(pageActivity("appkit"))
            XCTAssertEqual(delegate.calls, ["willContinue", "continue"])
            XCTAssertEqual(delegate.restorer.restored, ["appkit"])

            delegate.calls = []
            handOffUndeclared()
            XCTAssertEqual(delegate.calls, ["willContinue", "didFailToContinue"])

            delegate.calls = []
            let activity = pageActivity("updated")
            let window = windowOwning(activity)
            defer { window.close() }
            activity.needsSave = true
            spin(until: { delegate.calls.contains("didUpdate") })

            delegate.calls = []
            delegate.reply = .terminateLater
            Application.shared.terminate(nil)
            XCTAssertEqual(delegate.calls, ["shouldTerminate"])
            Application.shared.reply(toApplicationShouldTerminate: true)
            XCTAssertEqual(delegate.calls, ["shouldTerminate", "willTerminate"])
        }
    }

    /// `applicationShouldTerminateAfterLastWindowClosed(_:)`: asked when the last window closes
    /// (a panel's closing does not count), and terminating when it says so.
    func testTerminateAfterLastWindowClosedIsAsked() {
        MainActor.assumeIsolated {
            let delegate = SigAppKitDelegate()
            delegate.terminatesAfterLastWindow = true
            launch(manifest, delegate)
            let first = Window(title: "first")
            let second = Window(title: "second")
            let panel = Panel(title: "panel")
            first.makeKeyAndOrderFront(nil)
            second.makeKeyAndOrderFront(nil)
            panel.orderFront(nil)
            delegate.calls = []
            first.close()
            panel.close()
            XCTAssertEqual(delegate.calls, [], "windows remain")
            second.close()
            XCTAssertEqual(delegate.calls, ["shouldTerminateAfterLastWindowClosed", "shouldTerminate", "willTerminate"])
        }
    }

    func testUIKitDelegateMethodsAreCalled() throws {
        try MainActor.assumeIsolated {
            let delegate = SigUIKitDelegate()
            launch(manifest, delegate)
            XCTAssertEqual(delegate.calls, ["willFinishLaunchingWithOptions", "didFinishLaunching",
                                            "didFinishLaunchingWithOptions", "didBecomeActive"])

            delegate.calls = []
            Application.shared.hide(nil)
            Application.shared.unhide(nil)
            XCTAssertEqual(delegate.calls, ["willResignActive", "didEnterBackground", "willEnterForeground", "didBecomeActive"])

            delegate.calls = []
            try handOff(pageActivity("uikit"))
            XCTAssertEqual(delegate.calls, ["willContinue", "continue"])
            XCTAssertEqual(delegate.restorer.restored, ["uikit"])

            delegate.calls = []
            handOffUndeclared()
            XCTAssertEqual(delegate.calls, ["willContinue", "didFailToContinue"])

            delegate.calls = []
            let activity = pageActivity("updated")
            let window = windowOwning(activity)
            defer { window.close() }
            activity.needsSave = true
            spin(until: { delegate.calls.contains("didUpdate") })

            delegate.calls = []
            Application.shared.terminate(nil)
            XCTAssertEqual(delegate.calls, ["willTerminate"])
        }
    }

    // MARK: NSUserActivityDelegate

    func testUserActivityDelegateMethodsAreCalled() {
        MainActor.assumeIsolated {
            launch(manifest, SigAppKitDelegate())
            let delegate = SigActivityDelegate()
            let activity = UserActivity(activityType: activityType)
            activity.delegate = delegate
            defer { activity.invalidate() }
            activity.becomeCurrent()
            activity.needsSave = true
            spin(until: { delegate.calls.contains("willSave") })
            // What the continuity layer does on this device once another continued it.
            activity.delegate?.userActivityWasContinued(activity)
            XCTAssertEqual(delegate.calls, ["willSave", "wasContinued"])
        }
    }

    func testNonisolatedUserActivityDelegateMethodsAreCalled() {
        MainActor.assumeIsolated {
            let delegate = SigNonisolatedActivityDelegate(title: "nonisolated")
            let activity = UserActivity(activityType: activityType)
            activity.delegate = delegate
            defer { activity.invalidate() }
            activity.delegate?.userActivityWasContinued(activity)
            spin(until: { delegate.continued == 1 })
        }
    }

    // MARK: NSWindowDelegate

    func testWindowDelegateMethodsAreCalled() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let delegate = SigWindowDelegate()
            let window = Window(title: "delegated")
            window.delegate = delegate
            window.makeKeyAndOrderFront(nil)
            XCTAssertEqual(Set(delegate.calls), ["didBecomeKey", "didBecomeMain"])

            delegate.calls = []
            let other = Window(title: "other")
            other.makeKeyAndOrderFront(nil)
            XCTAssertEqual(Set(delegate.calls), ["didResignKey", "didResignMain"])
            other.close()

            delegate.calls = []
            XCTAssertTrue(window.undoManager === delegate.undo)
            XCTAssertEqual(delegate.calls, ["willReturnUndoManager"])

            delegate.calls = []
            delegate.allowsClose = false
            window.performClose(nil)
            XCTAssertFalse(window.isClosed)
            delegate.allowsClose = true
            window.performClose(nil)
            XCTAssertTrue(window.isClosed)
            XCTAssertEqual(delegate.calls.filter { $0 == "shouldClose" || $0 == "willClose" },
                           ["shouldClose", "shouldClose", "willClose"])
        }
    }

    // MARK: NSResponder

    func testResponderOverridesAreCalled() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let controller = ViewController(title: "responders")
            let window = Window(title: "responders", contentViewController: controller)
            defer { window.close() }
            window.makeKeyAndOrderFront(nil)
            let outer = SigResponder(identifier: "outer")
            let inner = SigResponder(identifier: "inner")
            controller.view.addSubview(outer)
            outer.addSubview(inner)

            XCTAssertTrue(window.makeFirstResponder(inner))
            XCTAssertTrue(inner.calls.contains("become"))
            XCTAssertTrue(outer.calls.contains("validate"), "asked for the responder below it")

            inner.refusesToResign = true
            XCTAssertFalse(window.makeFirstResponder(outer))
            XCTAssertTrue(inner.calls.contains("resign"))
            XCTAssertTrue(window.firstResponder === inner)
            inner.refusesToResign = false

            XCTAssertTrue(inner.undoManager === inner.ownUndo)
            outer.calls = []
            XCTAssertTrue(outer.nextResponder === controller.view)
            XCTAssertEqual(outer.calls, ["nextResponder"])

            let activity = pageActivity("responder")
            inner.userActivity = activity
            XCTAssertTrue(inner.calls.contains("userActivity set"))
            activity.needsSave = true
            spin(until: { inner.calls.contains("update") })
            inner.restoreUserActivityState(activity)  // as a restoration handler does
            let restorer: any UserActivityRestoring = inner
            restorer.restoreUserActivityState(activity)
            XCTAssertEqual(inner.calls.filter { $0 == "restore" }.count, 2)
        }
    }

    /// UIKit's `canBecomeFirstResponder` and `canResignFirstResponder`, overridden instead of
    /// AppKit's `acceptsFirstResponder` and `resignFirstResponder()`, decide as well.
    func testUIKitFirstResponderPropertiesDecide() {
        MainActor.assumeIsolated {
            let controller = ViewController(title: "uikit responders")
            let window = Window(title: "uikit responders", contentViewController: controller)
            defer { window.close() }
            window.makeKeyAndOrderFront(nil)
            let field = SigUIKitResponder(identifier: "field")
            controller.view.addSubview(field)
            XCTAssertTrue(window.makeFirstResponder(field))
            XCTAssertTrue(window.firstResponder === field)
            field.resigns = false
            XCTAssertFalse(window.makeFirstResponder(nil))
            XCTAssertTrue(window.firstResponder === field)
            field.resigns = true
            XCTAssertTrue(window.makeFirstResponder(nil))
            XCTAssertTrue(window.firstResponder === window)
        }
    }

    // MARK: NSWindow

    func testWindowOverridesAreCalled() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let window = SigWindow(title: "sig")
            defer { if !window.isClosed { window.close() } }
            window.title = "renamed"
            window.contentViewController = ViewController(title: "content")
            let field = SigResponder(identifier: "field")
            window.contentViewController?.view.addSubview(field)
            window.initialFirstResponder = field
            window.makeKeyAndOrderFront(nil)
            XCTAssertEqual(Array(window.calls.prefix(4)), ["title", "contentViewController", "initialFirstResponder",
                                                             "makeKeyAndOrderFront"])
            XCTAssertTrue(window.calls.contains("becomeKey"))
            XCTAssertTrue(window.calls.contains("becomeMain"))
            XCTAssertTrue(window.calls.contains("makeFirstResponder"), "the initial first responder is made first")
            XCTAssertTrue(window.firstResponder === field)

            window.calls = []
            let other = Window(title: "other")
            other.makeKeyAndOrderFront(nil)
            XCTAssertEqual(Set(window.calls), ["resignKey", "resignMain"])
            window.calls = []
            window.makeKey()
            window.makeMain()
            XCTAssertEqual(window.calls.filter { $0.hasPrefix("make") }, ["makeKey", "makeMain"])
            other.close()

            window.calls = []
            window.orderBack(nil)
            window.orderFront(nil)
            window.orderFrontRegardless()
            window.orderOut(nil)
            XCTAssertEqual(window.calls.filter { $0.hasPrefix("order") },
                           ["orderBack", "orderFront", "orderFrontRegardless", "orderFront", "orderOut"])
            window.calls = []
            window.performClose(nil)
            XCTAssertEqual(window.calls.filter { $0 == "performClose" || $0 == "close" }, ["performClose", "close"])
            XCTAssertTrue(window.isClosed)
        }
    }

    // MARK: NSViewController

    func testViewControllerOverridesAreCalled() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let presenter = SigViewController(title: "presenter")
            let window = Window(title: "presenter", contentViewController: presenter)
            defer { window.close() }
            window.makeKeyAndOrderFront(nil)
            XCTAssertEqual(presenter.calls, ["loadView", "viewDidLoad"])

            presenter.calls = []
            let child = ViewController(title: "child")
            presenter.addChild(child)
            child.removeFromParent()
            XCTAssertEqual(presenter.calls, ["addChild"], "removeFromParent is the child's")

            presenter.calls = []
            let sheet = ViewController(title: "sheet")
            presenter.presentAsSheet(sheet)
            let presented: [ViewController]? = presenter.presentedViewControllers
            XCTAssertTrue(presented?.first === sheet)
            XCTAssertTrue(sheet.presentingViewController === presenter)
            sheet.dismiss(nil as Any?)
            XCTAssertNil(presenter.presentedViewControllers)

            let modal = ViewController(title: "modal")
            presenter.presentAsModalWindow(modal)
            presenter.dismiss(modal)

            let popover = ViewController(title: "popover")
            presenter.present(popover, asPopoverRelativeTo: NSRect(x: 0, y: 0, width: 1, height: 1),
                              of: presenter.view, preferredEdge: .maxY, behavior: .transient)
            presenter.dismiss(popover)

            let animator = SigAnimator()
            let animated = ViewController(title: "animated")
            presenter.present(animated, animator: animator)
            presenter.dismiss(animated)
            XCTAssertEqual(animator.calls, ["animatePresentation", "animateDismissal"])

            var completions = 0
            let uikit = ViewController(title: "uikit")
            presenter.present(uikit, animated: true) { completions += 1 }
            XCTAssertTrue(presenter.presentedViewController === uikit)
            presenter.dismiss(animated: true) { completions += 1 }
            XCTAssertNil(presenter.presentedViewController)
            XCTAssertEqual(completions, 2)

            XCTAssertEqual(presenter.calls, [
                "presentAsSheet", "dismiss(viewController)",
                "presentAsModalWindow", "dismiss(viewController)",
                "present(asPopover)", "dismiss(viewController)",
                "present(_:animator:)", "dismiss(viewController)",
                "present(_:animated:completion:)", "presentAsSheet",
                "dismiss(animated:completion:)", "dismiss(viewController)",
            ])

            // dismiss(_ sender:) of AppKit's action form, on the presented controller.
            let presented2 = SigViewController(title: "presented")
            presenter.presentAsSheet(presented2)
            let closeButton: Any? = View(identifier: "close")
            presented2.dismiss(closeButton)
            XCTAssertTrue(presented2.calls.contains("dismiss(sender)"))
            XCTAssertNil(presenter.presentedViewControllers)
        }
    }

    // MARK: NSWindowController

    func testWindowControllerOverridesAreCalled() {
        MainActor.assumeIsolated {
            Application.shared.activate()
            let controller = SigWindowController(window: nil)
            let window = Window(title: "managed")
            controller.window = window
            controller.contentViewController = ViewController(title: "content")
            let document = Document()
            controller.document = document
            controller.showWindow(nil)
            XCTAssertTrue(Application.shared.keyWindow === window)
            controller.close()
            XCTAssertTrue(window.isClosed)
            XCTAssertEqual(controller.calls, ["window", "contentViewController", "document", "showWindow", "close"])
        }
    }

    // MARK: NSDocument and NSDocumentController

    func testDocumentAndDocumentControllerOverridesAreCalled() throws {
        try MainActor.assumeIsolated {
            Application.shared.activate()
            forgetSharedDocumentController()
            defer { forgetSharedDocumentController() }
            Application.shared.manifest = AppManifest(
                appID: "com.example.signatures", teamIdentifier: "TEAM1",
                documentTypes: [.init(name: "Signature", extensions: ["signature"],
                                      activityType: "com.example.signatures.editing")])
            let controller = SigDocumentController()
            XCTAssertTrue(DocumentController.shared === controller)
            let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(UUID().uuidString).signature")
            try Data("x".utf8).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }

            var opened: Document?
            controller.openDocument(withContentsOf: url, display: true) { document, alreadyOpen, error in
                XCTAssertFalse(alreadyOpen)
                XCTAssertNil(error)
                opened = document
            }
            let document = try XCTUnwrap(opened as? SigDocument)
            XCTAssertEqual(controller.calls, ["openDocument", "document(for:)", "typeForContents", "makeDocument",
                                              "documentClass", "addDocument"])
            XCTAssertEqual(document.calls.first, "read")
            XCTAssertEqual(document.calls.filter { ["makeWindowControllers", "addWindowController", "showWindows"].contains($0) },
                           ["makeWindowControllers", "addWindowController", "showWindows"])
            XCTAssertTrue(controller.currentDocument === document)
            XCTAssertTrue(controller.calls.contains("currentDocument"))
            document.calls = []
            document.fileType = "Signature"
            document.fileURL = url
            XCTAssertEqual(document.calls, ["fileType", "fileURL"])

            let activity = try XCTUnwrap(document.userActivity)
            activity.needsSave = true
            spin(until: { document.calls.contains("update") })
            let restorer: any UserActivityRestoring = document
            restorer.restoreUserActivityState(activity)
            XCTAssertTrue(document.calls.contains("restore"))

            controller.calls = []
            document.close()
            XCTAssertTrue(document.calls.contains("close"))
            XCTAssertTrue(controller.calls.contains("removeDocument"))
        }
    }
}

// MARK: - Life-cycle members: view appearance, window loading, document reading and writing

/// NSViewController's designated initializer and appearance methods, as AppKit declares them.
private final class SigAppearingViewController: ViewController {
    var calls: [String] = []
    override init(nibName nibNameOrNil: Nib.Name?, bundle nibBundleOrNil: Bundle?) {
        super.init(nibName: nibNameOrNil, bundle: nibBundleOrNil)
        calls.append("init(nibName:bundle:)")
    }
    required init?(coder: NSCoder) { fatalError("init(coder:) has not been implemented") }
    override func viewWillAppear() { super.viewWillAppear(); calls.append("viewWillAppear") }
    override func viewDidAppear() { super.viewDidAppear(); calls.append("viewDidAppear") }
    override func viewWillDisappear() { super.viewWillDisappear(); calls.append("viewWillDisappear") }
    override func viewDidDisappear() { super.viewDidDisappear(); calls.append("viewDidDisappear") }
}

/// UIViewController's designated initializer and appearance methods, as UIKit declares them.
private final class SigUIKitAppearingViewController: ViewController {
    var calls: [String] = []
    override init(nibName nibNameOrNil: String?, bundle nibBundleOrNil: Bundle?) {
        super.init(nibName: nibNameOrNil, bundle: nibBundleOrNil)
    }
    override func viewWillAppear(_ animated: Bool) { super.viewWillAppear(animated); calls.append("viewWillAppear(\(animated))") }
    override func viewDidAppear(_ animated: Bool) { super.viewDidAppear(animated); calls.append("viewDidAppear(\(animated))") }
    override func viewWillDisappear(_ animated: Bool) { super.viewWillDisappear(animated); calls.append("viewWillDisappear(\(animated))") }
    override func viewDidDisappear(_ animated: Bool) { super.viewDidDisappear(animated); calls.append("viewDidDisappear(\(animated))") }
}

/// NSWindowController's window-loading members, as AppKit declares them.
private final class SigLoadingWindowController: WindowController {
    var calls: [String] = []
    override var windowNibName: Nib.Name? { "SigWindow" }
    override var isWindowLoaded: Bool {
        calls.append("isWindowLoaded")
        return super.isWindowLoaded
    }
    override func windowWillLoad() { super.windowWillLoad(); calls.append("windowWillLoad") }
    override func loadWindow() {
        calls.append("loadWindow")
        window = Window(title: windowNibName ?? "")
    }
    override func windowDidLoad() { super.windowDidLoad(); calls.append("windowDidLoad") }
}

/// NSDocument's data-based reading and writing, saving, naming and nib-loading members, as
/// AppKit declares them.
private final class SigDataDocument: Document {
    var calls: [String] = []
    var text = ""
    override func read(from data: Data, ofType typeName: String) throws {
        calls.append("read(from:data)")
        text = String(decoding: data, as: UTF8.self)
    }
    override func data(ofType typeName: String) throws -> Data {
        calls.append("data(ofType:)")
        return Data(text.utf8)
    }
    override func write(to url: URL, ofType typeName: String) throws {
        calls.append("write(to:ofType:)")
        try super.write(to: url, ofType: typeName)
    }
    override func save(to url: URL, ofType typeName: String, for saveOperation: Document.SaveOperationType,
                       completionHandler: @escaping ((any Error)?) -> Void) {
        calls.append("save")
        super.save(to: url, ofType: typeName, for: saveOperation, completionHandler: completionHandler)
    }
    override var displayName: String! {
        get { "Sig " + super.displayName }
        set { super.displayName = newValue }
    }
    override func windowControllerWillLoadNib(_ windowController: WindowController) { calls.append("willLoadNib") }
    override func windowControllerDidLoadNib(_ windowController: WindowController) { calls.append("didLoadNib") }
}

/// UIResponder's `next`, as UIKit declares it.
private final class SigNextResponder: View {
    weak var elsewhere: Responder?
    override var next: Responder? { elsewhere ?? super.next }
}

/// NSApplication subclassed, as AppKit code does it.
private final class SigApplication: Application {
    var calls: [String] = []
    override init() { super.init() }
    override func terminate(_ sender: Any?) { calls.append("terminate"); super.terminate(sender) }
}

final class AppleLifecycleSignaturesTests: PortingTestCase {
    // MARK: NSViewController / UIViewController

    func testViewControllerInitializerAndAppearanceAreCalled() {
        MainActor.assumeIsolated {
            let controller = SigAppearingViewController(nibName: nil, bundle: nil)
            let uikit = SigUIKitAppearingViewController(nibName: nil, bundle: nil)
            controller.view.addSubview(uikit.view)
            let window = Window(title: "appearing", contentViewController: controller)
            window.makeKeyAndOrderFront(nil)
            window.close()
            XCTAssertEqual(controller.calls, ["init(nibName:bundle:)", "viewWillAppear", "viewDidAppear",
                                              "viewWillDisappear", "viewDidDisappear"])
            XCTAssertEqual(uikit.calls, ["viewWillAppear(false)", "viewDidAppear(false)",
                                         "viewWillDisappear(false)", "viewDidDisappear(false)"])
        }
    }

    // MARK: NSWindowController

    func testWindowControllerLoadingIsCalled() {
        MainActor.assumeIsolated {
            let controller = SigLoadingWindowController(window: nil)
            let document = SigDataDocument()
            document.addWindowController(controller)
            controller.showWindow(nil)
            XCTAssertEqual(controller.window?.title, "SigWindow")
            XCTAssertEqual(controller.calls.filter { $0 != "isWindowLoaded" }, ["windowWillLoad", "loadWindow", "windowDidLoad"])
            XCTAssertEqual(controller.calls.first, "isWindowLoaded", "the getter asks isWindowLoaded first")
            XCTAssertEqual(document.calls, ["willLoadNib", "didLoadNib"])
            controller.close()
        }
    }

    // MARK: NSDocument

    func testDocumentDataReadingWritingAndSavingAreCalled() throws {
        try MainActor.assumeIsolated {
            let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(UUID().uuidString).sig")
            try Data("read me".utf8).write(to: url)
            let copy = url.appendingPathExtension("copy")
            defer { for file in [url, copy] { try? FileManager.default.removeItem(at: file) } }
            let document = try SigDataDocument(contentsOf: url, ofType: "Sig")
            XCTAssertEqual(document.text, "read me")
            var saved: [Bool] = []
            document.save(to: copy, ofType: "Sig", for: .saveToOperation) { saved.append($0 == nil) }
            XCTAssertEqual(saved, [true])
            XCTAssertEqual(try String(contentsOf: copy, encoding: .utf8), "read me")
            XCTAssertEqual(document.calls, ["read(from:data)", "save", "write(to:ofType:)", "data(ofType:)"])
            XCTAssertEqual(document.displayName, "Sig " + url.deletingPathExtension().lastPathComponent)
        }
    }

    // MARK: UIResponder

    func testNextIsFollowed() {
        MainActor.assumeIsolated {
            let responder = SigNextResponder(identifier: "next")
            let elsewhere = Responder()
            responder.elsewhere = elsewhere
            XCTAssertTrue(Array(ResponderChain.from(responder)).last === elsewhere)
        }
    }

    // MARK: NSApplication

    func testApplicationSubclassOverridesAreCalled() {
        MainActor.assumeIsolated {
            let original = Application.shared
            replaceSharedApplication(with: nil)
            defer { replaceSharedApplication(with: original) }
            let app = SigApplication()
            XCTAssertTrue(Application.shared === app)
            Application.shared.terminate(nil)
            XCTAssertEqual(app.calls, ["terminate"])
        }
    }
}
