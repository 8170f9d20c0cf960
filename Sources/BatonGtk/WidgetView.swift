import Baton
import CGtk

/// A Baton `View` that stands for a `GtkWidget`: its place in the responder chain, and the
/// first responder while GTK's keyboard focus is in the widget (or in a widget inside it).
///
/// GTK lays the widget out and draws it; Baton's view hierarchy says what responds to actions
/// and which user activity is current. Add the view where the widget belongs in the chain
/// (usually as a subview of the window's content view, or as the content view itself). When
/// its `GtkBackedWindow`'s focus widget moves into `widget`, the window calls
/// `makeFirstResponder(_:)` with this view, so its `userActivity`, or the first one up its
/// chain, becomes current in the main window, as when a person clicks into a text view on macOS.
///
/// The view holds a strong reference on the widget (`g_object_ref_sink`) until it is released.
@MainActor
open class WidgetView: View {
    /// The wrapped widget.
    public let widget: UnsafeMutablePointer<GtkWidget>

    /// Wraps `widget` (taking a reference on it), named `identifier` for messages.
    public init(widget: UnsafeMutablePointer<GtkWidget>, identifier: String? = nil) {
        self.widget = widget
        g_object_ref_sink(UnsafeMutableRawPointer(widget))
        super.init(identifier: identifier)
        WidgetView.registry[UnsafeMutableRawPointer(widget)] = WeakWidgetView(self)
    }

    isolated deinit {
        let key = UnsafeMutableRawPointer(widget)
        if WidgetView.registry[key]?.view == nil || WidgetView.registry[key]?.view === self {
            WidgetView.registry[key] = nil
        }
        g_object_unref(key)
    }

    /// True: a widget's coordinates are GTK's, y going down from the top (`GtkViewGeometry`
    /// sets the frames from GTK's layout).
    override open var isFlipped: Bool { true }

    /// Makes the GTK input the widget does not handle itself arrive as Baton events through
    /// `Window.sendEvent(_:)` (rules in `GtkInput`): keys the widget leaves (a `GtkTextView`
    /// keeps what it types) go to the first responder, clicks to the view under the pointer.
    /// The input is not consumed: GTK passes it on as before. `DrawingAreaView` does this for
    /// its own drawing area, and consumes what it gets.
    public func sendsInputThroughResponderChain() {
        GtkInput.attach(to: self, consumesInput: false)
    }

    /// Whether GTK lets the widget take the keyboard focus (`gtk_widget_get_focusable`): a view
    /// whose widget cannot be focused cannot be first responder either.
    override open var acceptsFirstResponder: Bool { gtk_widget_get_focusable(widget) != 0 }

    /// The view wrapping `widget` or its nearest wrapped ancestor in the widget tree, if that
    /// view is in `window`.
    static func enclosing(_ widget: UnsafeMutablePointer<GtkWidget>, in window: Window) -> WidgetView? {
        var current: UnsafeMutablePointer<GtkWidget>? = widget
        while let candidate = current {
            if let view = registry[UnsafeMutableRawPointer(candidate)]?.view, view.window === window { return view }
            current = gtk_widget_get_parent(candidate)
        }
        return nil
    }

    /// The living views by widget address (the last view made for a widget wins).
    private static var registry: [UnsafeMutableRawPointer: WeakWidgetView] = [:]

    /// How many widgets have a living view; for tests of what is released.
    static var registeredCount: Int { registry.values.filter { $0.view != nil }.count }
}

/// A weak reference to a `WidgetView`, for the registry.
@MainActor
private struct WeakWidgetView {
    weak var view: WidgetView?
    init(_ view: WidgetView) { self.view = view }
}
