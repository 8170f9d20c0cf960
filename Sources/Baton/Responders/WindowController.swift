/// Manages a window (AppKit's `NSWindowController`); in the responder chain it comes after
/// its window and before the application.
@MainActor
open class WindowController: Responder {
    /// The managed window, owned by the controller (`window`). Setting it makes this the
    /// window's `windowController`, the next responder after the window.
    ///
    /// Reading it while no window is loaded loads one, as AppKit's getter does: it calls
    /// `windowWillLoad()` (and the document's `windowControllerWillLoadNib(_:)`), then
    /// `loadWindow()`, and, if that set a window, `windowDidLoad()` (and the document's
    /// `windowControllerDidLoadNib(_:)`). Baton has no nibs, so the default `loadWindow()`
    /// sets none: override it to make the window. Reading `window` from inside that sequence
    /// returns the window set so far, without loading again.
    open var window: Window? {
        get {
            if storedWindow == nil, !isWindowLoaded, !isLoadingWindow { loadWindowIfNeeded() }
            return storedWindow
        }
        set {
            let oldValue = storedWindow
            storedWindow = newValue
            guard oldValue !== newValue else { return }
            if oldValue?.windowController === self { oldValue?.windowController = nil }
            newValue?.windowController = self
        }
    }
    private var storedWindow: Window?
    private var isLoadingWindow = false

    /// Whether the controller has its window (`isWindowLoaded`): true once a window was given
    /// to `init(window:)`, set, or made by `loadWindow()`.
    open var isWindowLoaded: Bool { storedWindow != nil }

    /// The name of the nib the window would come from (`windowNibName`): the name given to
    /// `init(windowNibName:)`, else nil. Baton loads no nib: override `loadWindow()` to make
    /// the window; the name is yours to use there.
    open var windowNibName: Nib.Name? { givenNibName }
    private var givenNibName: Nib.Name?

    /// Called before the window is loaded by `window`'s getter (`windowWillLoad()`); the
    /// default does nothing.
    open func windowWillLoad() {}

    /// Loads the window (`loadWindow()`), called by `window`'s getter between
    /// `windowWillLoad()` and `windowDidLoad()`; do not call it yourself (AppKit's rule).
    /// AppKit's default loads `windowNibName`; Baton has no nibs, so the default does nothing:
    /// override it and set `window`.
    open func loadWindow() {}

    /// Called after `loadWindow()` set the window (`windowDidLoad()`); the default does
    /// nothing.
    open func windowDidLoad() {}

    private func loadWindowIfNeeded() {
        isLoadingWindow = true
        defer { isLoadingWindow = false }
        windowWillLoad()
        document?.windowControllerWillLoadNib(self)
        loadWindow()
        guard storedWindow != nil else { return }
        windowDidLoad()
        document?.windowControllerDidLoadNib(self)
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

    /// Creates a controller whose window `loadWindow()` will make, named `windowNibName`
    /// (`init(windowNibName:)`); Baton loads no nib from the name.
    public convenience init(windowNibName: Nib.Name) {
        self.init(window: nil)
        givenNibName = windowNibName
    }

    /// Sets `window` through its setter.
    private func manage(_ window: Window) { self.window = window }

    /// Shows the window in front and makes it key (`showWindow(_:)`), through the window's
    /// `makeKeyAndOrderFront(_:)` with `sender`.
    open func showWindow(_ sender: Any?) { window?.makeKeyAndOrderFront(sender) }

    /// Closes the window if it is loaded and open (`close()`), with `Window.close()`: the
    /// window's delegate is not asked `windowShouldClose(_:)`, as in AppKit. A window not yet
    /// loaded is not loaded to be closed.
    open func close() {
        if let storedWindow, !storedWindow.isClosed { storedWindow.close() }
    }
}
