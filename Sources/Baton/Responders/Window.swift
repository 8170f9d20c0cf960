import Foundation

/// A window (AppKit's `NSWindow`). Headless: a window is a screen of the app, with a content
/// view, a first responder, and a place in the application's key/main window model.
///
/// Whether it is key or main is not stored here: the application holds the one key window and
/// one main window, and these properties ask it.
@MainActor
open class Window: Responder {
    /// The window's title, also used in messages.
    open var title: String {
        didSet { backing?.windowTitleDidChange(self) }
    }

    /// What puts the window on screen (a toolkit's window), told of each change it must
    /// follow; nil for a model-only window. The window keeps it.
    public var backing: (any WindowBacking)?

    /// The window's first responder; initially the window itself (AppKit's rule).
    open private(set) weak var firstResponder: Responder?

    /// Whether the window is on screen (`isVisible`): ordered in, and the application not
    /// hidden.
    open var isVisible: Bool { isOrderedIn && !Application.shared.isHidden }
    /// Ordered in by `orderFront(_:)`/`orderBack(_:)` and not out since; the app may hide it.
    private(set) var isOrderedIn = false
    /// True once the window has been ordered in (for `initialFirstResponder`).
    private var hasBeenShown = false

    /// The window's delegate (weak, as in AppKit): it gets the window's notifications as
    /// `WindowDelegate` calls and is asked `windowShouldClose(_:)` by `performClose(_:)`.
    open weak var delegate: (any WindowDelegate)?

    /// The view made first responder the first time the window is shown
    /// (`initialFirstResponder`, weak as in AppKit): `orderFront(_:)`, `orderBack(_:)` and
    /// `makeKeyAndOrderFront(_:)` call `makeFirstResponder(_:)` with it, before the window
    /// becomes key, unless another first responder was set already.
    open weak var initialFirstResponder: View?
    /// True after `close()`; a closed window is out of `Application.windows` for good.
    public private(set) var isClosed = false

    /// The window's number (`windowNumber`): unique among the app's windows for its life,
    /// positive, and never reused; events name their window by it (`Event.windowNumber`).
    public let windowNumber: Int = Window.nextWindowNumber()
    private static var lastWindowNumber = 0
    private static func nextWindowNumber() -> Int {
        lastWindowNumber += 1
        return lastWindowNumber
    }

    /// The window controller managing this window, set by `WindowController.window`.
    public internal(set) weak var windowController: WindowController? {
        didSet { relinkResponderChain() }
    }

    /// Creates a window, not yet visible, registered in `Application.windows`; with a content
    /// view controller its view becomes the content view (AppKit's
    /// `init(contentViewController:)`).
    public init(title: String = "", contentViewController: ViewController? = nil) {
        self.title = title
        super.init()
        firstResponder = self
        relinkResponderChain()
        Application.shared.register(self)
        if let contentViewController { install(contentViewController) }
    }

    /// Sets the content view controller through its observer (a plain set in `init` skips it).
    private func install(_ controller: ViewController) { contentViewController = controller }

    // MARK: Content

    /// The root of the window's view hierarchy; its next responder is the window.
    open var contentView: View? {
        didSet {
            guard oldValue !== contentView else { return }
            if let old = oldValue {
                old.hostingWindow = nil
                old.relinkResponderChain()
                old.move(toWindow: nil)
            }
            if let new = contentView {
                new.removeFromSuperview()
                new.hostingWindow = self
                new.relinkResponderChain()
                new.move(toWindow: self)
            }
            Application.shared.responderStateDidChange()
            backing?.windowContentViewDidChange(self)
        }
    }

    /// The controller of the content view; setting it makes its view the content view.
    open var contentViewController: ViewController? {
        didSet {
            guard oldValue !== contentViewController else { return }
            contentView = contentViewController?.view
        }
    }

    // MARK: First responder

    /// Makes `responder` the first responder, following AppKit's rules: the current first
    /// responder is asked to resign and may refuse (false is returned and nothing changes);
    /// then `responder` is asked to become first responder, and if it does not accept, the
    /// window becomes its own first responder and the call still returns true. `nil` makes the
    /// window its own first responder. A view that is not in this window is refused
    /// (`Refusal.firstResponderNotInWindow`, false).
    ///
    /// Before anything changes, each responder above `responder` in its chain, up to and
    /// including this window (its superviews, their view controllers, the window), is asked
    /// `validateProposedFirstResponder(_:for:)`, with the mouse-down when a click proposes
    /// `responder` (`sendEvent(_:)`) and a nil event otherwise; if one says no, false is
    /// returned and nothing changes. AppKit asks it only when a mouse-down would make a control
    /// first responder; Baton asks for every change.
    @discardableResult
    open func makeFirstResponder(_ responder: Responder?) -> Bool { makeFirstResponder(responder, for: nil) }

    /// `makeFirstResponder(_:)`, asking the ancestors' `validateProposedFirstResponder(_:for:)`
    /// with `event`: the mouse-down that proposes `responder` (`sendEvent(_:)`), or nil.
    func makeFirstResponder(_ responder: Responder?, for event: Event?) -> Bool {
        defer { backing?.windowDidAskForFirstResponder(self) }
        if let current = firstResponder, current === responder { return true }
        if let view = responder as? View, view.window !== self {
            Refusal.firstResponderNotInWindow(responder: view.responderDescription,
                                              window: responderDescription).log()
            return false
        }
        if let responder, responder !== self, !ancestorsValidate(responder, for: event) { return false }
        if let current = firstResponder, current !== self || responder != nil {
            guard current.resignFirstResponder() else { return false }
        }
        if let responder, responder.acceptsFirstResponder, responder.becomeFirstResponder() {
            firstResponder = responder
        } else {
            firstResponder = self
        }
        Application.shared.firstResponderDidChange(in: self)
        return true
    }

    /// Asks the responders from `responder`'s next responder up to this window whether
    /// `responder` may become first responder.
    private func ancestorsValidate(_ responder: Responder, for event: Event?) -> Bool {
        guard let above = responder.next else { return true }
        for ancestor in ResponderChain.from(above) {
            if !ancestor.validateProposedFirstResponder(responder, for: event) { return false }
            if ancestor === self { break }
        }
        return true
    }

    /// Used when the first responder leaves the window without being asked (it was removed).
    func resetFirstResponderToWindow() {
        firstResponder = self
        Application.shared.firstResponderDidChange(in: self)
    }

    /// True: a window can be its own first responder (AppKit's rule).
    override open var acceptsFirstResponder: Bool { true }

    // MARK: Events (routing in Window+Events.swift)

    /// Delivers an event of this window as AppKit's `NSWindow.sendEvent(_:)` does (the rules
    /// are in `Window+Events.swift`): key events to the first responder, after key equivalents;
    /// mouse events to the view they hit. Override to see every event; call super to deliver it.
    open func sendEvent(_ event: Event) { route(event) }

    /// Offers a key equivalent to the window's view tree (`performKeyEquivalent(with:)`):
    /// the content view's `performKeyEquivalent(with:)`, false when it has none.
    override open func performKeyEquivalent(with event: Event) -> Bool {
        contentView?.performKeyEquivalent(with: event) ?? false
    }

    /// Whether mouse-moved events are delivered to the first responder
    /// (`acceptsMouseMovedEvents`); false by default, as in AppKit.
    open var acceptsMouseMovedEvents = false

    /// The view that got the last mouse-down, which gets the drags and the mouse-up that follow.
    weak var mouseDownView: View?

    // MARK: Key and main

    /// Whether the window may be the key window (receive keyboard actions). True for windows.
    open var canBecomeKey: Bool { true }
    /// Whether the window may be the main window. True for windows, false for panels.
    open var canBecomeMain: Bool { true }

    /// Whether this is the application's key window (`isKeyWindow`).
    open var isKeyWindow: Bool { Application.shared.keyWindow === self }
    /// Whether this is the application's main window (`isMainWindow`).
    open var isMainWindow: Bool { Application.shared.mainWindow === self }

    /// Makes the window key; if it can be main it becomes main too (AppKit does both for a
    /// document window). Refused, logged, for a window that is closed, not visible or cannot
    /// be key. While the app is inactive it becomes key when the app activates.
    open func makeKey() {
        guard admits("makeKey()", canBecome: canBecomeKey) else { return }
        Application.shared.windowWantsKey(self)
    }

    /// Makes the window main (not key). Refused, logged, for a window that is closed, not
    /// visible, or cannot be main (a panel).
    open func makeMain() {
        guard admits("makeMain()", canBecome: canBecomeMain) else { return }
        Application.shared.windowWantsMain(self)
    }

    /// Moves the window to the front of the app's windows and shows it, without changing the
    /// key or main window (`orderFront(_:)`). The first time a window is shown its
    /// `initialFirstResponder` becomes first responder. A window that becomes visible
    /// makes its view controllers appear (`ViewController.viewWillAppear()`, then
    /// `viewDidAppear()` once it is in the window list). Refused, logged, for a closed window.
    open func orderFront(_ sender: Any?) {
        guard !isClosed else {
            Refusal.windowClosed(window: responderDescription, wanted: "orderFront(_:)").log()
            return
        }
        ViewControllerAppearance.transition(of: isVisible || Application.shared.isHidden ? nil : contentView, appearing: true) {
            isOrderedIn = true
            Application.shared.windowDidOrderFront(self)
        }
        showInitialFirstResponderOnce()
        if isVisible { backing?.windowDidOrderIn(self) }
    }

    /// Moves the window to the front even if the application is not active, without changing
    /// the key or main window (`orderFrontRegardless()`). Baton has no other application's
    /// windows to go in front of, so this orders the window as `orderFront(_:)` does.
    open func orderFrontRegardless() { orderFront(nil) }

    /// Moves the window behind all the app's other windows and shows it, without changing the
    /// key or main window (`orderBack(_:)`). Refused, logged, for a closed window.
    open func orderBack(_ sender: Any?) {
        guard !isClosed else {
            Refusal.windowClosed(window: responderDescription, wanted: "orderBack(_:)").log()
            return
        }
        ViewControllerAppearance.transition(of: isVisible || Application.shared.isHidden ? nil : contentView, appearing: true) {
            isOrderedIn = true
            Application.shared.windowDidOrderBack(self)
        }
        showInitialFirstResponderOnce()
        if isVisible { backing?.windowDidOrderIn(self) }
    }

    /// Shows the window in front and makes it key, and main when it can be
    /// (`makeKeyAndOrderFront(_:)`).
    open func makeKeyAndOrderFront(_ sender: Any?) {
        orderFront(sender)
        if isVisible { makeKey() }
    }

    /// Takes the window off the screen (`orderOut(_:)`); if it was key or main, the next
    /// eligible window takes over (rules in `Application+WindowFocus.swift`). A visible
    /// window's view controllers get `viewWillDisappear()` before and `viewDidDisappear()` after.
    open func orderOut(_ sender: Any?) {
        defer { if !isClosed { backing?.windowDidOrderOut(self) } }
        guard isOrderedIn else { return }
        ViewControllerAppearance.transition(of: isVisible ? contentView : nil, appearing: false) {
            isOrderedIn = false
            Application.shared.windowDidOrderOut(self)
        }
    }

    /// Shows the window in front of the others, without making it key.
    @available(*, deprecated, renamed: "orderFront(_:)", message: "AppKit's form takes the sender")
    public func orderFront() { orderFront(nil) }

    /// Shows the window in front and makes it key (and main when it can be).
    @available(*, deprecated, renamed: "makeKeyAndOrderFront(_:)", message: "AppKit's form takes the sender")
    public func makeKeyAndOrderFront() { makeKeyAndOrderFront(nil) }

    /// Hides the window; if it was key or main, the next eligible window takes over.
    @available(*, deprecated, renamed: "orderOut(_:)", message: "AppKit's form takes the sender")
    public func orderOut() { orderOut(nil) }

    /// Closes the window as the user's close button would (`performClose(_:)`): asks the
    /// delegate's `windowShouldClose(_:)`, and closes the window only if it says yes (or has no
    /// delegate). When it says no the window stays open (AppKit also beeps; Baton has no
    /// sound). A closed window is refused as `close()` refuses it.
    open func performClose(_ sender: Any?) {
        if !isClosed, let delegate, !delegate.windowShouldClose(self) { return }
        close()
    }

    /// Closes the window: the delegate gets `windowWillClose(_:)` and
    /// `willCloseNotification` is posted, then it is ordered out and leaves
    /// `Application.windows` (`close()`); its views, their controllers and the window let go
    /// of their user activities, so an activity nobody else holds is invalidated. It does not ask `windowShouldClose(_:)`
    /// (AppKit's rule; `performClose(_:)` does). Closing the window of a presented view
    /// controller dismisses that presentation. Closing a closed window is refused
    /// (`Refusal.windowAlreadyClosed`, logged) and changes nothing.
    open func close() {
        guard !isClosed else {
            Refusal.windowAlreadyClosed(window: responderDescription).log()
            return
        }
        post(Window.willCloseNotification) { $0.windowWillClose($1) }
        orderOut(nil)
        isClosed = true
        Application.shared.windowDidClose(self)
        contentViewController?.presentationWindowDidClose(self)
        releaseActivities()
        backing?.windowDidClose(self)
    }

    /// After the window closed for good: its views, their view controllers and the window let
    /// go of their user activities (their `userActivity` becomes nil), so an activity that no
    /// other responder or document holds is invalidated (about-handoff, "Managing a User
    /// Activity with Responders": a managed activity with no more associated responders or
    /// documents is invalidated). AppKit gets there by releasing the closed window and its
    /// views; a closed Baton window is never shown again, so its responders are done with
    /// their activities even while something still references them.
    private func releaseActivities() {
        var views: [View] = contentView.map { [$0] } ?? []
        while let view = views.popLast() {
            view.owningViewController?.userActivity = nil
            view.userActivity = nil
            views += view.subviews
        }
        contentViewController?.userActivity = nil
        userActivity = nil
    }

    /// Posts `name` for this window, telling the delegate first (AppKit registers the delegate
    /// for its window's notifications).
    func post(_ name: Notification.Name, _ toDelegate: (any WindowDelegate, Notification) -> Void) {
        let notification = Notification(name: name, object: self)
        if let delegate { toDelegate(delegate, notification) }
        NotificationCenter.default.post(notification)
    }

    private func showInitialFirstResponderOnce() {
        guard !hasBeenShown else { return }
        hasBeenShown = true
        if let initialFirstResponder, firstResponder === self { makeFirstResponder(initialFirstResponder) }
    }

    // MARK: Undo

    /// The window's undo manager (`NSWindow.undoManager`): the delegate's
    /// `windowWillReturnUndoManager(_:)` when it gives one, else one the window makes on first
    /// use and keeps (AppKit's rule). Responders in the window find it through
    /// `Responder.undoManager`.
    override open var undoManager: UndoManager? {
        if let ownUndoManager { return ownUndoManager }
        if let given = delegate?.windowWillReturnUndoManager(self) { return given }
        let made = UndoManager()
        ownUndoManager = made
        return made
    }
    private var ownUndoManager: UndoManager?

    /// Updates the window (`update()`): `Application.updateWindows()` sends it to each window
    /// on screen once the responder chain changed. The default posts `didUpdateNotification`
    /// (the delegate's `windowDidUpdate(_:)` first); an override does its own work and calls
    /// super last, as AppKit asks.
    open func update() {
        post(Window.didUpdateNotification) { $0.windowDidUpdate($1) }
    }

    /// Called when the window has become key (after the application recorded it).
    open func becomeKey() {}
    /// Called when the window is no longer key.
    open func resignKey() {}
    /// Called when the window has become main.
    open func becomeMain() {}
    /// Called when the window is no longer main.
    open func resignMain() {}

    /// The type and the title, for messages.
    override open var responderDescription: String { "\(type(of: self)) '\(title)'" }

    /// The window's link in `ResponderChain`: its controller, else the application.
    func relinkResponderChain() {
        nextResponder = windowController ?? Application.shared
    }

    private func admits(_ wanted: String, canBecome: Bool) -> Bool {
        let refusal: Refusal? =
            if isClosed { .windowClosed(window: responderDescription, wanted: wanted) }
            else if !isVisible { .windowNotVisible(window: responderDescription, wanted: wanted) }
            else if !canBecome { .windowCannotBecome(window: responderDescription, wanted: wanted) }
            else { nil }
        refusal?.log()
        return refusal == nil
    }
}
