import Baton
import BatonLoop
import CGtk

/// A custom view that draws itself and takes key and pointer input, as an AppKit `NSView`
/// subclass does: a `WidgetView` of a new `GtkDrawingArea`. Override `draw(_:width:height:)` to
/// draw with cairo, and AppKit's event methods (`keyDown(with:)`, `mouseDown(with:)`,
/// `scrollWheel(with:)`, …) to handle input: GTK's input arrives as Baton events through
/// `Window.sendEvent(_:)` (rules in `GtkInput`), and this view consumes the input it gets
/// (GTK does not pass it on), except a Control key no view takes as a key equivalent and one
/// of GTK's shortcuts or accelerators matches (the menu bar's Control+Z): GTK handles that. A
/// Control key nothing takes reaches `keyDown(with:)`, as in AppKit.
///
/// The view can be first responder and takes GTK's keyboard focus then; a click in it makes it
/// first responder (AppKit's rule in `Window.sendEvent(_:)`).
@MainActor
open class DrawingAreaView: WidgetView {
    /// A focusable drawing area of at least `width` × `height` pixels.
    public init(identifier: String? = nil, width: Int32 = 100, height: Int32 = 100) {
        let area = gtk_drawing_area_new()!
        gtk_widget_set_focusable(area, 1)
        gtk_widget_set_size_request(area, width, height)
        super.init(widget: area, identifier: identifier)
        GtkInput.attach(to: self, consumesInput: true)
        let box = DrawBox { [weak self] cairo, width, height in self?.draw(cairo, width: width, height: height) }
        gtk_drawing_area_set_draw_func(UnsafeMutablePointer<GtkDrawingArea>(OpaquePointer(area)), drawTrampoline, box.retainedOpaque(), CallbackBox.destroyNotify)
    }

    /// Draws the view's content with cairo (`cairo_t *`) in a `width` × `height` area, GTK's
    /// coordinates (origin top left); the default draws nothing (`NSView.draw(_:)`).
    open func draw(_ cairo: OpaquePointer, width: Int32, height: Int32) {}

    /// Asks GTK to draw the view again (`needsDisplay = true`).
    public func setNeedsDisplay() { gtk_widget_queue_draw(widget) }
}

/// The box of a drawing area's draw function, released when GTK drops the function.
private final class DrawBox: CallbackBox, @unchecked Sendable {
    let body: @MainActor (OpaquePointer, Int32, Int32) -> Void
    init(_ body: @escaping @MainActor (OpaquePointer, Int32, Int32) -> Void) { self.body = body }
}

/// `void draw(GtkDrawingArea *, cairo_t *, int width, int height, gpointer)`.
private let drawTrampoline: GtkDrawingAreaDrawFunc = { _, cairo, width, height, userData in
    guard let userData, let cairo else { return }
    MainThreadRules.requireLoopThread("a GTK draw function")
    let box = DrawBox.borrow(userData)
    nonisolated(unsafe) let context = cairo
    MainActor.assumeIsolated { box.body(context, width, height) }
}
