import Foundation

/// A window (AppKit's `NSWindow`). Headless: a window is a screen of the app, with a content
/// view, a first responder, and a place in the application's key/main window model.
///
/// Whether it is key or main is not stored here: the application holds the one key window and
/// one main window, and these properties ask it.
@MainActor
open class Window: Responder {
    public var title: String

    /// The window's first responder; initially the window itself (AppKit's rule).
    public private(set) weak var firstResponder: Responder?

    public private(set) var isVisible = false
    /// True after `close()`; a closed window is out of `Application.windows` for good.
    public private(set) var isClosed = false

    /// The window controller managing this window, set by `WindowController.window`.
    public internal(set) weak var windowController: WindowController? {
        didSet { relinkResponderChain() }
    }

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
    public var contentView: View? {
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
        }
    }

    /// The controller of the content view; setting it makes its view the content view.
    public var contentViewController: ViewController? {
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
    @discardableResult
    public func makeFirstResponder(_ responder: Responder?) -> Bool {
        if let current = firstResponder, current === responder { return true }
        if let view = responder as? View, view.window !== self {
            Refusal.firstResponderNotInWindow(responder: view.responderDescription,
                                              window: responderDescription).log()
            return false
        }
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

    /// Used when the first responder leaves the window without being asked (it was removed).
    func resetFirstResponderToWindow() {
        firstResponder = self
        Application.shared.firstResponderDidChange(in: self)
    }

    override open var acceptsFirstResponder: Bool { true }

    // MARK: Key and main

    /// Whether the window may be the key window (receive keyboard actions). True for windows.
    open var canBecomeKey: Bool { true }
    /// Whether the window may be the main window. True for windows, false for panels.
    open var canBecomeMain: Bool { true }

    public var isKeyWindow: Bool { Application.shared.keyWindow === self }
    public var isMainWindow: Bool { Application.shared.mainWindow === self }

    /// Makes the window key; if it can be main it becomes main too (AppKit does both for a
    /// document window). Refused, logged, for a window that is closed, not visible or cannot
    /// be key. While the app is inactive it becomes key when the app activates.
    public func makeKey() {
        guard admits("makeKey()", canBecome: canBecomeKey) else { return }
        Application.shared.windowWantsKey(self)
    }

    /// Makes the window main (not key). Refused, logged, for a window that is closed, not
    /// visible, or cannot be main (a panel).
    public func makeMain() {
        guard admits("makeMain()", canBecome: canBecomeMain) else { return }
        Application.shared.windowWantsMain(self)
    }

    /// Shows the window in front of the others, without making it key.
    public func orderFront() {
        guard !isClosed else {
            Refusal.windowClosed(window: responderDescription, wanted: "orderFront()").log()
            return
        }
        isVisible = true
        Application.shared.windowDidOrderFront(self)
    }

    /// Shows the window in front and makes it key (and main when it can be).
    public func makeKeyAndOrderFront() {
        orderFront()
        if isVisible { makeKey() }
    }

    /// Hides the window; if it was key or main, the next eligible window takes over.
    public func orderOut() {
        guard isVisible else { return }
        isVisible = false
        Application.shared.windowDidOrderOut(self)
    }

    /// Closes the window: it is ordered out and leaves `Application.windows`. Closing a closed
    /// window is refused (`Refusal.windowAlreadyClosed`, logged) and changes nothing.
    open func close() {
        guard !isClosed else {
            Refusal.windowAlreadyClosed(window: responderDescription).log()
            return
        }
        NotificationCenter.default.post(name: Window.willCloseNotification, object: self)
        orderOut()
        isClosed = true
        Application.shared.windowDidClose(self)
    }

    /// Called when the window has become key (after the application recorded it).
    open func becomeKey() {}
    /// Called when the window is no longer key.
    open func resignKey() {}
    /// Called when the window has become main.
    open func becomeMain() {}
    /// Called when the window is no longer main.
    open func resignMain() {}

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
