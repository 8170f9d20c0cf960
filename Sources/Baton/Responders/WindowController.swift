/// Manages a window (AppKit's `NSWindowController`); in the responder chain it comes after
/// its window and before the application.
@MainActor
open class WindowController: Responder {
    /// The managed window, owned by the controller.
    public var window: Window? {
        didSet {
            guard oldValue !== window else { return }
            if oldValue?.windowController === self { oldValue?.windowController = nil }
            window?.windowController = self
        }
    }

    /// The document whose window this controller manages (set by `Document.addWindowController`).
    public internal(set) weak var document: Document?

    public init(window: Window? = nil) {
        super.init()
        nextResponder = Application.shared
        if let window { manage(window) }
    }

    /// Sets `window` through its observer (a plain set in `init` skips it).
    private func manage(_ window: Window) { self.window = window }

    /// Shows the window in front and makes it key.
    open func showWindow(_ sender: Any?) { window?.makeKeyAndOrderFront() }

    /// Closes the window.
    open func close() {
        if let window, !window.isClosed { window.close() }
    }
}
