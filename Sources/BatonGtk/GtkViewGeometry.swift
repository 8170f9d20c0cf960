import Baton
import CGtk
import Foundation

/// Baton's view geometry from GTK's layout, in a GTK-backed window: GTK lays the widgets out,
/// and before a pointer event is routed Baton's frames are set from it, so that `hitTest(_:)`
/// and `convert(_:from:)` agree with what is on screen.
///
/// - The window's base coordinates are the `GtkWindow`'s, y going up from its bottom edge
///   (AppKit's), so a GTK point (x, y) of the window is (x, height − y).
/// - A `WidgetView` is flipped (GTK's y goes down) and its frame is its widget's bounds in its
///   superview's coordinates: those of the nearest wrapped ancestor widget (or the window),
///   mirrored when the superview is not flipped.
/// - A view with no widget (a plain `View` grouping others) covers its superview: its frame is
///   the superview's bounds, and the frames an app set on it are replaced.
@MainActor
enum GtkViewGeometry {
    /// The `GtkWindow` (as a widget) that `widget` is in.
    static func root(of widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<GtkWidget>? {
        gtk_widget_get_root(widget).map { baton_gtk_widget(UnsafeMutableRawPointer($0)) }
    }

    /// `point`, in `widget`'s coordinates, in the window's base coordinates.
    static func baseLocation(of point: CGPoint, in widget: UnsafeMutablePointer<GtkWidget>,
                             root: UnsafeMutablePointer<GtkWidget>) -> CGPoint? {
        var from = graphene_point_t(x: Float(point.x), y: Float(point.y)), to = graphene_point_t()
        guard gtk_widget_compute_point(widget, root, &from, &to) != 0 else { return nil }
        return CGPoint(x: CGFloat(to.x), y: CGFloat(gtk_widget_get_height(root)) - CGFloat(to.y))
    }

    /// Sets the frames of `window`'s views from GTK's layout of `root`.
    static func layOut(_ window: Window, root: UnsafeMutablePointer<GtkWidget>) {
        guard let content = window.contentView else { return }
        let size = CGSize(width: CGFloat(gtk_widget_get_width(root)), height: CGFloat(gtk_widget_get_height(root)))
        layOut(content, reference: root, size: size, flipped: false)
    }

    /// Lays `view` out in a superview of `size`, whose coordinates are `reference`'s widget's,
    /// flipped or not.
    private static func layOut(_ view: View, reference: UnsafeMutablePointer<GtkWidget>, size: CGSize, flipped: Bool) {
        guard let wrapped = view as? WidgetView else {
            view.frame = CGRect(origin: .zero, size: size)
            for subview in view.subviews { layOut(subview, reference: reference, size: size, flipped: view.isFlipped) }
            return
        }
        var bounds = graphene_rect_t()
        if gtk_widget_compute_bounds(wrapped.widget, reference, &bounds) != 0 {
            let (x, y) = (CGFloat(bounds.origin.x), CGFloat(bounds.origin.y))
            let (width, height) = (CGFloat(bounds.size.width), CGFloat(bounds.size.height))
            view.frame = CGRect(x: x, y: flipped ? y : size.height - y - height, width: width, height: height)
        } else {
            view.frame = .zero  // not laid out (not shown): nothing hits it
        }
        for subview in view.subviews {
            layOut(subview, reference: wrapped.widget, size: view.frame.size, flipped: view.isFlipped)
        }
    }
}
