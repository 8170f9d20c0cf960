import BatonGtk
import Foundation

/// Real input through the X server's test extension (XTest): the key presses and clicks
/// arrive as X events, read by GDK from the display connection like a person's.
/// libXtst and the GDK X11 calls are looked up at run time (no X development headers needed).
@MainActor
enum RealInput {
    private typealias FakeKey = @convention(c) (OpaquePointer?, UInt32, Int32, UInt) -> Int32
    private typealias FakeButton = @convention(c) (OpaquePointer?, UInt32, Int32, UInt) -> Int32
    private typealias Warp = @convention(c) (OpaquePointer?, UInt, UInt, Int32, Int32, UInt32, UInt32, Int32, Int32) -> Int32
    private typealias Flush = @convention(c) (OpaquePointer?) -> Int32
    private typealias XDisplayOf = @convention(c) (OpaquePointer?) -> OpaquePointer?
    private typealias XidOf = @convention(c) (OpaquePointer?) -> UInt

    private static func symbol<T>(_ library: String?, _ name: String, as type: T.Type) -> T {
        let handle = library.map { dlopen($0, RTLD_NOW) } ?? dlopen(nil, RTLD_NOW)
        guard let handle, let found = dlsym(handle, name) else { fatalError("GtkProbe: no \(name) (\(library ?? "process"))") }
        return unsafeBitCast(found, to: type)
    }

    private static var display: OpaquePointer? {
        symbol(nil, "gdk_x11_display_get_xdisplay", as: XDisplayOf.self)(gdk_display_get_default())
    }

    private static func keycode(_ keyval: UInt32) -> UInt32 {
        var keys: UnsafeMutablePointer<GdkKeymapKey>?
        var count: Int32 = 0
        guard gdk_display_map_keyval(gdk_display_get_default(), keyval, &keys, &count) != 0, let keys, count > 0 else {
            fatalError("GtkProbe: no keycode for keyval \(keyval)")
        }
        defer { g_free(keys) }
        return keys[0].keycode
    }

    /// Presses and releases `keyval` with Control held (`<Control>s`: keyval 0x73).
    static func pressWithControl(_ keyval: UInt32) {
        let fake = symbol("libXtst.so.6", "XTestFakeKeyEvent", as: FakeKey.self)
        let control = keycode(0xffe3), key = keycode(keyval)  // GDK_KEY_Control_L
        _ = fake(display, control, 1, 0)
        _ = fake(display, key, 1, 0)
        _ = fake(display, key, 0, 0)
        _ = fake(display, control, 0, 0)
        _ = symbol("libX11.so.6", "XFlush", as: Flush.self)(display)
    }

    /// Presses and releases `keyval` alone (`a`: 0x61, Left: 0xff51).
    static func press(_ keyval: UInt32) {
        let fake = symbol("libXtst.so.6", "XTestFakeKeyEvent", as: FakeKey.self)
        let key = keycode(keyval)
        _ = fake(display, key, 1, 0)
        _ = fake(display, key, 0, 0)
        _ = symbol("libX11.so.6", "XFlush", as: Flush.self)(display)
    }

    /// Moves the pointer into `widget` (10 pixels in from its top left corner) and clicks the
    /// first button there.
    static func click(_ widget: UnsafeMutablePointer<GtkWidget>, in window: UnsafeMutablePointer<GtkWindow>) {
        movePointer(into: widget, at: 10, 10, in: window)
        button(1, down: true)
        button(1, down: false)
    }

    /// Presses the first button `from` pixels in from `widget`'s top left corner, moves the
    /// pointer with it held to `to` in two steps, and releases it there.
    static func drag(_ widget: UnsafeMutablePointer<GtkWidget>, from: (Double, Double), to: (Double, Double),
                     in window: UnsafeMutablePointer<GtkWindow>) {
        movePointer(into: widget, at: from.0, from.1, in: window)
        button(1, down: true)
        movePointer(into: widget, at: (from.0 + to.0) / 2, (from.1 + to.1) / 2, in: window)
        movePointer(into: widget, at: to.0, to.1, in: window)
        button(1, down: false)
    }

    /// Turns the wheel one notch up (X's button 4) with the pointer 10 pixels into `widget`.
    static func scrollUp(_ widget: UnsafeMutablePointer<GtkWidget>, in window: UnsafeMutablePointer<GtkWindow>) {
        movePointer(into: widget, at: 10, 10, in: window)
        button(4, down: true)
        button(4, down: false)
    }

    private static func button(_ number: UInt32, down: Bool) {
        _ = symbol("libXtst.so.6", "XTestFakeButtonEvent", as: FakeButton.self)(display, number, down ? 1 : 0, 0)
        _ = symbol("libX11.so.6", "XFlush", as: Flush.self)(display)
    }

    /// Warps the pointer to `x`, `y` in `widget`'s coordinates.
    private static func movePointer(into widget: UnsafeMutablePointer<GtkWidget>, at x: Double, _ y: Double,
                                    in window: UnsafeMutablePointer<GtkWindow>) {
        let root = baton_gtk_widget(UnsafeMutableRawPointer(window))
        // Until GTK's frame clock has laid the window out, the widget has no place to click.
        if !MainLoop.run(until: { gtk_widget_get_width(widget) > 0 }, timeout: .seconds(10)) { print("TIMEOUT layout") }
        var origin = graphene_point_t(x: Float(x), y: Float(y)), point = graphene_point_t()
        guard gtk_widget_compute_point(widget, root, &origin, &point) != 0 else { fatalError("GtkProbe: widget not in window") }
        var dx = 0.0, dy = 0.0
        gtk_native_get_surface_transform(OpaquePointer(window), &dx, &dy)
        let surface = gtk_native_get_surface(OpaquePointer(window))
        let xid = symbol(nil, "gdk_x11_surface_get_xid", as: XidOf.self)(surface)
        _ = symbol("libX11.so.6", "XWarpPointer", as: Warp.self)(display, 0, xid, 0, 0, 0, 0,
                                                                   Int32(Double(point.x) + dx), Int32(Double(point.y) + dy))
        _ = symbol("libX11.so.6", "XFlush", as: Flush.self)(display)
    }
}
