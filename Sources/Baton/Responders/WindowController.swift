/// Manages a window (AppKit's `NSWindowController`); in the responder chain it comes after
/// its window and before the application.
@MainActor
open class WindowController: Responder {
    /// The managed window, owned by the controller (`window`). Setting it makes this the
    /// window's `windowController`, the next responder after the window.
    open var window: Window? {
        didSet {
            guard oldValue !== window else { return }
            if oldValue?.windowController === self { oldValue?.windowController = nil }
            window?.windowController = self
        }
    }

    /// The document whose window this controller manages (`document`, weak);
    /// `Document.addWindowController(_:)` sets it, as in AppKit, and you may set it yourself.
    ///
    /// Deviation: AppKit types it `AnyObject?`; Baton's is `Document?`, since every document
    /// is a `Document`: ported code that casts it (`document as? MyDocument`) still compiles,
    /// and code that reads `fileURL` needs no cast.
    open weak var document: Document?

    /// The window's content view controller (`contentViewController`): reading it reads the
    /// window's, setting it sets the window's (its view becomes the content view). Nil while
    /// the controller has no window; setting it then does nothing.
    open var contentViewController: ViewController? {
        get { window?.contentViewController }
        set { window?.contentViewController = newValue }
    }

    /// Creates a controller managing `window` (`init(window:)`); its next responder is the
    /// application until it has a window.
    public init(window: Window? = nil) {
        super.init()
        nextResponder = Application.shared
        if let window { manage(window) }
    }

    /// Sets `window` through its observer (a plain set in `init` skips it).
    private func manage(_ window: Window) { self.window = window }

    /// Shows the window in front and makes it key (`showWindow(_:)`), through the window's
    /// `makeKeyAndOrderFront(_:)` with `sender`.
    open func showWindow(_ sender: Any?) { window?.makeKeyAndOrderFront(sender) }

    /// Closes the window if it is open (`close()`), with `Window.close()`: the window's
    /// delegate is not asked `windowShouldClose(_:)`, as in AppKit.
    open func close() {
        if let window, !window.isClosed { window.close() }
    }
}
