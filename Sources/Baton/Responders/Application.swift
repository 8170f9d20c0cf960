import Foundation
import Logging

/// The application (AppKit's `NSApplication`): its windows, its key and main window, whether
/// it is active, its delegate, and the run loop.
///
/// There is one, `Application.shared`. The key and main windows are stored here and nowhere
/// else; `Window.isKeyWindow` and friends ask. The rules for who becomes key or main are in
/// `Application+WindowFocus.swift`.
///
/// It may be subclassed, as `NSApplication` may (AppKit's `NSPrincipalClass`): make the
/// subclass's instance first thing in the program, before anything reads
/// `Application.shared`, and it is the shared application —
/// `let app = MyApplication(); Application.main(delegate: AppDelegate())`. The members
/// declared in the class are `open` (`run()`, `terminate(_:)`, `sendAction(_:to:from:)`, …);
/// those of its extensions (`activate()`, `hide(_:)`, `keyWindow`, …) cannot be overridden in
/// Swift.
@MainActor
open class Application: Responder {
    /// The application object (`shared`): the first `Application` made in the process; if none
    /// was made yet, reading this makes a plain `Application`.
    ///
    /// Deviation: AppKit's `MyApplication.shared` makes an instance of the class it is read
    /// on; Swift could only do that through a `required init()`, which would refuse AppKit's
    /// `override init()` in a subclass. So make the subclass yourself, first.
    public static var shared: Application { sharedInstance ?? Application() }
    /// The first application made.
    private static var sharedInstance: Application?

    /// The delegate (weak, as in AppKit). When it is a `Responder` it is the last link of the
    /// responder chain; either way actions reach it last.
    open weak var delegate: (any ApplicationDelegate)? {
        didSet { nextResponder = delegate as? Responder }
    }
    /// Keeps the delegate given to `main(delegate:)` alive while the app runs.
    private var retainedDelegate: (any ApplicationDelegate)?

    /// Every window not yet closed, visible or not, in the order they were made (`windows`).
    public internal(set) var windows: [Window] = []
    /// The app's windows on screen, front to back (`orderedWindows`): none while the app is
    /// hidden, and, as in AppKit, no panels (AppKit lists only the windows scripting can
    /// address, and "panels are not included").
    public var orderedWindows: [Window] { isHidden ? [] : windowStack.windows.filter { !($0 is Panel) } }

    /// The window numbered `windowNumber` (`window(withWindowNumber:)`): one of `windows`, or nil.
    public func window(withWindowNumber windowNumber: Int) -> Window? {
        windows.first { $0.windowNumber == windowNumber }
    }
    var windowStack = WindowStack()

    /// The window that is key while the app is active (`keyWindow` is nil while inactive).
    var keyCandidate: Window?
    /// The window that is main while the app is active.
    var mainCandidate: Window?

    /// Whether the app is active; an inactive app has no key and no main window (`isActive`).
    public internal(set) var isActive = false
    /// Whether the app is hidden (`isHidden`): set by `hide(_:)`, cleared by `unhide(_:)` and
    /// `activate()`. A hidden app is inactive and none of its windows is visible.
    public internal(set) var isHidden = false
    /// True between `finishLaunching()` and termination.
    public private(set) var isFinishedLaunching = false
    /// True while `run()` runs the loop.
    public private(set) var isRunning = false
    /// Set by `terminate(_:)` until `run()` has returned.
    private var isTerminating = false
    /// The scheduled `updateWindows()` (`setWindowsNeedUpdate(_:)`), until it runs.
    var pendingWindowUpdate: LoopSource?
    /// False when the delegate refused to finish launching: no continuation is delivered.
    var acceptsContinuation = true
    /// Set by the bottom default of `application(_:continue:restorationHandler:)` (no form was
    /// implemented), for the notice of an unhandled continuation; reset around each call.
    var continuationReachedBottomDefault = false
    /// `mainMenu`'s storage (`Application+MainMenu.swift`).
    var storedMainMenu: Menu?

    /// Activities current on the user's other devices, as the continuity layer sees them.
    public var nearbyActivities: [NearbyActivity] { nearbyStore }
    private var nearbyStore: [NearbyActivity] = []
    /// This app's continuations, live and the last 50, step by step (`baton inspect`).
    public let continuationHistory = ContinuationHistory()
    /// Who fetches nearby payloads: the continuity node, when one runs in this app.
    public weak var nearbySource: (any NearbyActivitySource)?
    /// Who confirms associated domains for web-to-app handoff: the continuity node installs
    /// one when it starts.
    public var associatedDomainVerifier: (any AssociatedDomainVerifier)?

    /// Replaces the nearby list (the continuity layer calls this) and posts
    /// `nearbyActivitiesDidChangeNotification` if it changed.
    public func updateNearbyActivities(_ activities: [NearbyActivity]) {
        guard activities != nearbyStore else { return }
        nearbyStore = activities
        NotificationCenter.default.post(name: Application.nearbyActivitiesDidChangeNotification, object: self)
    }

    /// The app's manifest: its id, team and the activity types it continues. By default
    /// loaded once from the shipped file (see `AppManifest.loadDefault()`); set it to
    /// build it in code.
    public var manifest: AppManifest? {
        get {
            if !manifestLoaded {
                manifestLoaded = true
                do { storedManifest = try AppManifest.loadDefault() } catch {
                    Logger(label: "baton").error("cannot load the app manifest: \(error)", error: error)
                }
            }
            return storedManifest
        }
        set {
            manifestLoaded = true
            storedManifest = newValue
        }
    }
    private var storedManifest: AppManifest?
    private var manifestLoaded = false

    /// Creates the application object (`init()`); the first one made becomes `shared`. Make
    /// one yourself only to install a subclass, before anything reads `shared`: another
    /// application made after it is not shared, is logged as an error, and does nothing.
    override public init() {
        super.init()
        if Application.sharedInstance == nil {
            Application.sharedInstance = self
        } else {
            Logger(label: "baton").error("\(type(of: self)) made after Application.shared: it is not the shared application; make it before anything reads Application.shared")
        }
    }

    /// Makes the next read of `shared` make a new application, or installs `application`. For tests.
    static func replaceSharedForTesting(with application: Application?) { sharedInstance = application }

    // MARK: Launch, run, terminate

    /// Runs the app: sets `delegate` (kept alive until `main` returns), finishes launching,
    /// activates, and runs the GLib main loop on the main thread until `terminate(_:)`
    /// (AppKit's `NSApplicationMain`). Returns after termination, so a program can clean up.
    ///
    /// Call it from synchronous code: an `async` main or a top-level `await` gives the main
    /// thread away before the loop could run; that is detected and stops the program with a
    /// message saying what to change.
    public static func main(delegate: (any ApplicationDelegate)? = nil) {
        MainThreadRules.requireSynchronousMain("Application.main()")
        let app = shared
        if let delegate {
            app.retainedDelegate = delegate
            app.delegate = delegate
        }
        app.run()
        app.retainedDelegate = nil
    }

    /// Sends the launch messages — `applicationWillFinishLaunching`,
    /// `application(_:willFinishLaunchingWithOptions:)`, `applicationDidFinishLaunching`,
    /// `application(_:didFinishLaunchingWithOptions:)` — and activates the app. If either
    /// `…WithOptions` method returns false, no continuation callbacks are sent
    /// (handoff-programming-guide, "Continuing an Activity", last note). `run()` calls it; a
    /// host that iterates its own GLib context calls it instead of `run()`. Only the first
    /// call acts. The options also carry what the launcher put in the environment (see
    /// `LaunchEnvironment`: `userActivityType` for an app started to continue an activity).
    open func finishLaunching(options: [LaunchOptionsKey: Any] = [:]) {
        guard !isFinishedLaunching else { return }
        let options = options.merging(LaunchEnvironment.takeLaunchOptions()) { given, _ in given }
        post(Application.willFinishLaunchingNotification) { $0.applicationWillFinishLaunching($1) }
        let willAccept = delegate?.application(self, willFinishLaunchingWithOptions: options) ?? true
        isFinishedLaunching = true
        post(Application.didFinishLaunchingNotification) { $0.applicationDidFinishLaunching($1) }
        let didAccept = delegate?.application(self, didFinishLaunchingWithOptions: options) ?? true
        acceptsContinuation = willAccept && didAccept
        activate()
    }

    /// Keys of the launch options passed to the `…WithOptions` launch methods.
    public struct LaunchOptionsKey: Hashable, Sendable, RawRepresentable {
        /// The key's name.
        public var rawValue: String
        /// A key named `rawValue`.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The type of the activity the app is launched to continue.
        public static let userActivityType = LaunchOptionsKey(rawValue: "UIApplicationLaunchOptionsUserActivityTypeKey")
    }

    /// Finishes launching if needed, then runs the main loop until `terminate(_:)` — at once
    /// if the app terminated while launching.
    open func run() {
        finishLaunching()
        if !isTerminating {
            isRunning = true
            MainLoop.run()
            isRunning = false
        }
        isTerminating = false
    }

    /// Asks the delegate (`applicationShouldTerminate(_:)`), then sends
    /// `applicationWillTerminate` and stops the loop, so `run()` and `main()` return
    /// (`terminate(_:)`; AppKit then exits the process, Baton returns so the program can
    /// clean up).
    ///
    /// `.terminateCancel` keeps the app running. `.terminateLater` defers the answer: the app
    /// keeps running its loop until `reply(toApplicationShouldTerminate:)` says whether to
    /// terminate; further `terminate(_:)` calls meanwhile are ignored.
    open func terminate(_ sender: Any?) {
        guard !awaitsTerminationReply else { return }
        switch delegate?.applicationShouldTerminate(self) ?? .terminateNow {
        case .terminateCancel: return
        case .terminateLater: awaitsTerminationReply = true
        case .terminateNow: completeTermination()
        }
    }

    /// The delegate's deferred answer to `applicationShouldTerminate(_:)` after it returned
    /// `.terminateLater` (`reply(toApplicationShouldTerminate:)`): true terminates as
    /// `terminate(_:)` would have, false cancels. Ignored when no answer is awaited.
    open func reply(toApplicationShouldTerminate shouldTerminate: Bool) {
        guard awaitsTerminationReply else { return }
        awaitsTerminationReply = false
        if shouldTerminate { completeTermination() }
    }

    /// True between `.terminateLater` and `reply(toApplicationShouldTerminate:)`.
    private var awaitsTerminationReply = false

    private func completeTermination() {
        post(Application.willTerminateNotification) { $0.applicationWillTerminate($1) }
        isFinishedLaunching = false
        isTerminating = true
        if isRunning { MainLoop.quit() }
    }

    /// Stops the main loop without terminating (`stop(_:)`): `run()` returns once the event
    /// being handled (the current turn of the GLib loop) is done, and `isRunning` is false at
    /// once. The app stays launched; calling `run()` again resumes it. Does nothing when
    /// `run()` is not running.
    open func stop(_ sender: Any?) {
        guard isRunning else { return }
        isRunning = false
        MainLoop.quit()
    }

    // MARK: Actions

    /// Dispatches an event (`sendEvent(_:)`, AppKit's rule, in `Application+Events.swift`): key
    /// events to the key window, mouse events to the event's window, each through
    /// `Window.sendEvent(_:)`. Toolkits and the terminal example send their input here.
    open func sendEvent(_ event: Event) { route(event) }

    /// Sends `action` to `target`, or, when `target` is nil, to the first object that handles
    /// it along the path written in `ResponderChain` (key window's chain, main window's chain,
    /// the application, its delegate). Returns whether an object handled it. When nothing
    /// handles an action sent with no target, the last responder of the chain (the delegate
    /// when it is a `Responder`, else the application) gets `noResponder(for:)`.
    @discardableResult
    open func sendAction<Handler>(_ action: Action<Handler>, to target: AnyObject?, from sender: Any?) -> Bool {
        guard let handler = self.target(forAction: action, to: target, from: sender) as? Handler else {
            if target == nil { ResponderChain.from(self).reduce(self) { _, next in next }.noResponder(for: action) }
            return false
        }
        action.perform(handler, sender)
        return true
    }

    /// The object `sendAction(_:to:from:)` would send `action` to, or nil
    /// (`target(forAction:to:from:)`). Along the chain, a responder that does not handle the
    /// action is asked for a `supplementalTarget(forAction:sender:)`, as in AppKit.
    open func target<Handler>(forAction action: Action<Handler>, to target: AnyObject? = nil,
                                from sender: Any? = nil) -> AnyObject? {
        if let target { return ResponderChain.handles(target, Handler.self) ? target : nil }
        var starts: [Responder] = []
        if let key = keyWindow { starts.append(key.firstResponder ?? key) }
        if let main = mainWindow, main !== keyWindow { starts.append(main.firstResponder ?? main) }
        for start in starts {
            if let found = ResponderChain.windowHandler(for: action, from: start, sender: sender) { return found }
        }
        if let found = ResponderChain.handler(for: action, from: self, sender: sender) { return found as AnyObject }
        if let delegate, ResponderChain.handles(delegate, Handler.self) { return delegate }
        return nil
    }

    /// "Application", for messages.
    override public var responderDescription: String { "Application" }

    // MARK: Delegate and notifications

    func post(_ name: Notification.Name,
              _ toDelegate: (any ApplicationDelegate, Notification) -> Void) {
        let notification = Notification(name: name, object: self)
        if let delegate { toDelegate(delegate, notification) }
        NotificationCenter.default.post(notification)
    }

    /// Back to a fresh state: windows closed, inactive, not launched, no delegate. For tests.
    func resetForTesting() {
        for window in windows { window.close() }
        isActive = false
        keyCandidate = nil
        mainCandidate = nil
        isFinishedLaunching = false
        delegate = nil
        retainedDelegate = nil
        acceptsContinuation = true
        nearbyStore = []
        nearbySource = nil
        associatedDomainVerifier = nil
        storedMainMenu = nil
        isTerminating = false
        awaitsTerminationReply = false
        isHidden = false
        setWindowsNeedUpdate(false)
        storedManifest = nil
        manifestLoaded = false
        continuationHistory.removeAll()
        ActivityRegistry.shared.reset()
        DocumentController.shared.reset()
    }
}
