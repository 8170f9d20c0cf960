import CGtk
import Foundation

/// A picture of a GTK window as GTK itself draws it: the window's paintable
/// (`gtk_widget_paintable_new`, which follows what the window draws) snapshotted into a render
/// node, rendered to a texture by the window's own renderer, saved as PNG
/// (`gdk_texture_save_to_png`). No display-server capture: what is saved is what GTK drew for
/// the window's contents (without a window manager's frame).
@MainActor
final class WindowPicture {
    /// Why no picture was saved.
    enum Failure: Error, CustomStringConvertible {
        case notDrawn
        case notSaved(String)
        var description: String {
            switch self {
            case .notDrawn: "the window has not been drawn (no size, renderer or image)"
            case .notSaved(let path): "GTK could not save a PNG at \(path)"
            }
        }
    }

    private let window: Widget
    private let paintable: OpaquePointer

    /// Starts following what `window` draws; take the picture once it has drawn (`save(to:)`).
    init(of window: Widget) {
        self.window = window
        paintable = gtk_widget_paintable_new(window)
    }

    isolated deinit { g_object_unref(UnsafeMutableRawPointer(paintable)) }

    /// Saves what the window drew last as a PNG at `file`; returns its size in pixels.
    func save(to file: URL) throws -> (width: Int32, height: Int32) {
        let width = gtk_widget_get_width(window), height = gtk_widget_get_height(window)
        guard width > 0, height > 0, let renderer = gtk_native_get_renderer(window.opaque) else { throw Failure.notDrawn }
        let snapshot = gtk_snapshot_new()!
        gdk_paintable_snapshot(paintable, snapshot, Double(width), Double(height))
        guard let node = gtk_snapshot_free_to_node(snapshot) else { throw Failure.notDrawn }
        defer { gsk_render_node_unref(node) }
        var bounds = graphene_rect_t()
        graphene_rect_init(&bounds, 0, 0, Float(width), Float(height))
        guard let texture = gsk_renderer_render_texture(renderer, node, &bounds) else { throw Failure.notDrawn }
        defer { g_object_unref(UnsafeMutableRawPointer(texture)) }
        guard gdk_texture_save_to_png(texture, file.path) != 0 else { throw Failure.notSaved(file.path) }
        return (width, height)
    }
}
