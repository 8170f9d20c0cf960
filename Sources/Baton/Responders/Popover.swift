import Foundation

/// Content shown next to a view, above the window (AppKit's `NSPopover`). Headless: the
/// popover's content lives in a `Panel` of its own, which can be key but never main, so the
/// main window — and the activity it makes current — stays where it was.
///
/// `ViewController.present(_:asPopoverRelativeTo:of:preferredEdge:behavior:)` makes one;
/// closing it dismisses that presentation.
@MainActor
open class Popover: Responder {
    /// When a popover closes by itself (`NSPopover.Behavior`). Baton has no clicks: the
    /// interaction that closes a popover in AppKit is, here, another window becoming key.
    /// The popover closes on the next turn of the loop, as `close()` would close it.
    public enum Behavior: Int, Sendable {
        /// Only the app closes the popover (`applicationDefined`).
        case applicationDefined = 0
        /// It closes when the user interacts outside it (`transient`): when another window
        /// becomes key, or the app resigns active.
        case transient = 1
        /// It closes when the user interacts with the window it came from (`semitransient`):
        /// when the positioning view's window becomes key.
        case semitransient = 2
    }

    /// When the popover closes by itself (`behavior`); `.applicationDefined` by default.
    open var behavior: Behavior = .applicationDefined

    /// The controller whose view the popover shows (`contentViewController`).
    open var contentViewController: ViewController?

    /// Whether the popover is showing (`isShown`).
    public private(set) var isShown = false

    /// The rectangle of `positioningView` the popover points at, as last shown
    /// (`positioningRect`).
    open var positioningRect: NSRect = .zero

    /// The window showing the content while the popover is shown.
    public private(set) var window: Panel?

    /// Creates a popover with no content (`init()`).
    override public init() { super.init() }

    /// Shows the content next to `positioningRect` of `positioningView`
    /// (`show(relativeTo:of:preferredEdge:)`): its view becomes the content of a `Panel`,
    /// ordered front and made key; the view becomes that panel's first responder when it
    /// accepts. Does nothing without a content view controller or while shown.
    open func show(relativeTo positioningRect: NSRect, of positioningView: View, preferredEdge: NSRectEdge) {
        guard !isShown, let contentViewController else { return }
        self.positioningRect = positioningRect
        let panel = Panel(title: contentViewController.title ?? "Popover", contentViewController: contentViewController)
        if contentViewController.view.acceptsFirstResponder { panel.initialFirstResponder = contentViewController.view }
        window = panel
        isShown = true
        panel.makeKeyAndOrderFront(self)
        watchForInteractionElsewhere(positioningWindow: positioningView.window)
    }

    /// Closes the popover (`close()`): its panel closes, and key goes back to the main window.
    /// A popover that presents a view controller is dismissed through its presenter, which
    /// then closes it.
    open func close() {
        guard isShown else { return }
        if let content = contentViewController, content.presentationPopover === self,
           let presenter = content.presentingViewController {
            presenter.dismiss(content)
            return
        }
        closeWindow()
    }

    /// Closes the popover as the user would (`performClose(_:)`); the same as `close()` here.
    open func performClose(_ sender: Any?) { close() }

    /// Closes the panel without going through the presenter.
    func closeWindow() {
        guard isShown else { return }
        isShown = false
        stopWatching()
        if let window, !window.isClosed { window.close() }
        window = nil
    }

    // MARK: Behaviour

    nonisolated(unsafe) private var observers: [NSObjectProtocol] = []
    private var pendingClose: LoopSource?

    /// Closes a transient or semitransient popover when, in Baton's terms, the user interacts
    /// elsewhere: another window becomes key (for semitransient, the positioning view's), or
    /// (transient) the app resigns active.
    private func watchForInteractionElsewhere(positioningWindow: Window?) {
        guard behavior != .applicationDefined else { return }
        let center = NotificationCenter.default
        observers.append(center.addObserver(forName: Window.didBecomeKeyNotification, object: nil, queue: nil) { [weak self, weak positioningWindow] note in
            nonisolated(unsafe) let object = note.object
            MainActor.assumeIsolated {
                guard let self, let key = object as? Window, key !== self.window else { return }
                if self.behavior == .transient || key === positioningWindow { self.closeSoon() }
            }
        })
        if behavior == .transient {
            observers.append(center.addObserver(forName: Application.didResignActiveNotification, object: nil, queue: nil) { [weak self] _ in
                MainActor.assumeIsolated { self?.closeSoon() }
            })
        }
    }

    /// Closes on the next turn of the loop, out of the focus change that caused it.
    private func closeSoon() {
        guard pendingClose == nil else { return }
        pendingClose = MainLoop.idle { [weak self] in
            self?.pendingClose = nil
            self?.close()
        }
    }

    private func stopWatching() {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
        observers = []
        pendingClose?.cancel()
        pendingClose = nil
    }

    deinit {
        for observer in observers { NotificationCenter.default.removeObserver(observer) }
    }
}
