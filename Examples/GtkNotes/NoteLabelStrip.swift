import BatonGtk
import Foundation

/// A note's colour label, as Finder's and Notes' tags: none or one of five colours.
enum NoteLabel: String, CaseIterable {
    case none, red, orange, green, blue, purple

    /// The swatch's colour (red, green, blue, 0…1); grey for none.
    var colour: (Double, Double, Double) {
        switch self {
        case .none: (0.85, 0.85, 0.85)
        case .red: (0.90, 0.25, 0.22)
        case .orange: (0.96, 0.60, 0.15)
        case .green: (0.30, 0.70, 0.32)
        case .blue: (0.22, 0.48, 0.90)
        case .purple: (0.60, 0.35, 0.78)
        }
    }
}

/// The label strip under a note's text: a custom view (`DrawingAreaView`) that draws a swatch
/// per label and takes its input as an AppKit view does, through the responder chain. A click
/// picks the swatch under the pointer; dragging across the strip moves the pick along and the
/// mouse-up settles it ("Handling Mouse Events", the mouseDown/mouseDragged/mouseUp sequence
/// goes to the view the mouse went down in); Left and Right move the pick through
/// `interpretKeyEvents(_:)` and the standard key bindings (`moveLeft(_:)`, `moveRight(_:)`).
/// Each settled change is handed to `onPick` with the label before it, so the editor can
/// register its undo; other keys go on up the chain.
final class NoteLabelStrip: DrawingAreaView, StandardKeyBindingResponding.MoveLeft, StandardKeyBindingResponding.MoveRight {
    static let swatchWidth: Int32 = 32
    private static let labels = NoteLabel.allCases

    /// The label shown.
    private(set) var label: NoteLabel
    /// The label when the mouse went down: a drag settles one change from it.
    private var labelAtMouseDown: NoteLabel?
    /// Called when the person settled on `label` (it was `previous`).
    var onPick: (@MainActor (_ label: NoteLabel, _ previous: NoteLabel) -> Void)?

    init(label: NoteLabel) {
        self.label = label
        super.init(identifier: "label strip", width: Self.swatchWidth * Int32(Self.labels.count), height: 24)
        gtk_widget_set_halign(widget, GTK_ALIGN_START)
        gtk_widget_set_tooltip_text(widget, "The note's label: click or drag, or Left and Right")
    }

    /// Shows `label` (the program setting it: an undo, a note continued here).
    func show(_ label: NoteLabel) {
        self.label = label
        setNeedsDisplay()
    }

    /// The swatch under `event`'s location (clamped to the strip, as a drag may leave it).
    private func swatch(of event: Event) -> NoteLabel {
        let x = convert(event.locationInWindow, from: nil).x
        let index = Int((x / CGFloat(Self.swatchWidth)).rounded(.down))
        return Self.labels[min(max(index, 0), Self.labels.count - 1)]
    }

    override func mouseDown(with event: Event) {
        labelAtMouseDown = label
        show(swatch(of: event))
    }

    override func mouseDragged(with event: Event) {
        guard labelAtMouseDown != nil else { return }
        show(swatch(of: event))
    }

    override func mouseUp(with event: Event) {
        guard let previous = labelAtMouseDown else { return }
        labelAtMouseDown = nil
        show(swatch(of: event))
        if label != previous { onPick?(label, previous) }
    }

    /// Left and Right (plain) through the key bindings; every other key (Tab, Up, letters…)
    /// goes on up the chain, as `NSResponder.keyDown(with:)` passes it on.
    override func keyDown(with event: Event) {
        let command = StandardKeyBindings.command(for: event)
        guard command == AnyAction(.moveLeft) || command == AnyAction(.moveRight) else { return super.keyDown(with: event) }
        interpretKeyEvents([event])
    }

    func moveLeft(_ sender: Any?) { step(-1) }
    func moveRight(_ sender: Any?) { step(1) }

    private func step(_ offset: Int) {
        let previous = label, index = Self.labels.firstIndex(of: label)! + offset
        guard Self.labels.indices.contains(index) else { return }
        show(Self.labels[index])
        onPick?(label, previous)
    }

    /// The swatches, the picked one framed.
    override func draw(_ cairo: OpaquePointer, width: Int32, height: Int32) {
        for (index, each) in Self.labels.enumerated() {
            let x = Double(Int32(index) * Self.swatchWidth)
            let (red, green, blue) = each.colour
            cairo_set_source_rgb(cairo, red, green, blue)
            cairo_rectangle(cairo, x + 4, 4, Double(Self.swatchWidth) - 8, Double(height) - 8)
            cairo_fill(cairo)
            if each == label {
                cairo_set_source_rgb(cairo, 0.1, 0.1, 0.1)
                cairo_set_line_width(cairo, 2)
                cairo_rectangle(cairo, x + 1, 1, Double(Self.swatchWidth) - 2, Double(height) - 2)
                cairo_stroke(cairo)
            }
        }
    }

    /// Where the strip is in its window's X11 surface (a test hook: the test clicks it with
    /// XTest): the X window and the strip's top left corner in it; nil off X11.
    func placeOnX11() -> (window: UInt, x: Int, y: Int)? {
        let x11 = g_type_from_name("GdkX11Display")
        guard let root = gtk_widget_get_root(widget), let display = gdk_display_get_default(), x11 != 0,
              g_type_check_instance_is_a(UnsafeMutableRawPointer(display).assumingMemoryBound(to: GTypeInstance.self), x11) != 0,
              let found = dlsym(dlopen(nil, RTLD_NOW), "gdk_x11_surface_get_xid") else { return nil }
        var origin = graphene_point_t(x: 0, y: 0), point = graphene_point_t()
        let rootWidget = UnsafeMutableRawPointer(root).assumingMemoryBound(to: GtkWidget.self)
        guard gtk_widget_compute_point(widget, rootWidget, &origin, &point) != 0 else { return nil }
        var dx = 0.0, dy = 0.0
        gtk_native_get_surface_transform(root, &dx, &dy)
        let xid = unsafeBitCast(found, to: (@convention(c) (OpaquePointer?) -> UInt).self)(gtk_native_get_surface(root))
        return (xid, Int(Double(point.x) + dx), Int(Double(point.y) + dy))
    }
}
