import BatonGtk
import Foundation

/// A custom view as AppKit's are written: it handles clicks in `mouseDown(with:)`,
/// `mouseDragged(with:)` and `mouseUp(with:)`, the wheel in `scrollWheel(with:)` and keys in
/// `keyDown(with:)` through `interpretKeyEvents(_:)`, and records what it got (a run of
/// mouse-dragged events as one entry: how many GTK delivers depends on motion compression).
@MainActor
final class CanvasView: DrawingAreaView, StandardKeyBindingResponding.MoveLeft {
    var log: [String] = []
    override func mouseDown(with event: Event) { log.append("mouseDown at \(place(event)) clicks=\(event.clickCount)") }
    override func mouseUp(with event: Event) { log.append("mouseUp at \(place(event))") }
    override func mouseDragged(with event: Event) {
        if log.last != "mouseDragged" { log.append("mouseDragged") }
    }
    override func scrollWheel(with event: Event) {
        log.append("scrollWheel \(event.deltaY > 0 ? "up" : event.deltaY < 0 ? "down" : "sideways")")
    }
    private func place(_ event: Event) -> String {
        let point = convert(event.locationInWindow, from: nil)
        return "\(Int(point.x.rounded())),\(Int(point.y.rounded()))"
    }
    override func keyDown(with event: Event) {
        if event.modifierFlags.contains(.command) { return log.append("keyDown command-\(event.charactersIgnoringModifiers ?? "")") }
        interpretKeyEvents([event])
    }
    override func insertText(_ insertString: Any) { log.append("insertText \(insertString)") }
    func moveLeft(_ sender: Any?) { log.append("moveLeft") }
}

/// Real clicks and key presses (XTest) reach a custom view's event methods through the
/// responder chain, while a text view keeps the keys it types.
@MainActor func eventsScenario() {
    let canvas = CanvasView(identifier: "canvas", width: 200, height: 100)
    let note = NoteView("note", activity: nil)
    let window = makeWindow({ GtkBackedWindow(gtkWindow: $0) }, title: "E", notes: [note, canvas])
    window.makeKeyAndOrderFront(nil)
    wait("E active") { window.gtkWindow.map { gtk_window_is_active($0) != 0 } ?? false }
    RealInput.click(canvas.widget, in: window.gtkWindow!)
    wait("canvas clicked") { canvas.log.count >= 2 }
    print("CHECK clicked canvas: first=\((window.firstResponder as? View)?.identifier ?? "window")")
    wait("GTK focus in canvas") { gtk_window_get_focus(window.gtkWindow!) == canvas.widget }
    RealInput.press(0x61)  // a
    wait("a typed") { canvas.log.count >= 3 }
    RealInput.press(0xff51)  // Left
    wait("left pressed") { canvas.log.count >= 4 }
    // Control+K: no view takes it as a key equivalent, no GTK shortcut matches it: a key-down.
    RealInput.pressWithControl(0x6b)
    wait("control-k pressed") { canvas.log.count >= 5 }
    // Control+J: a GTK shortcut of the window (bubble phase, after the canvas) matches it, so
    // the canvas leaves it to GTK and gets no key-down.
    let shortcuts = baton_gtk_shortcut_controller_new(GTK_PHASE_BUBBLE)
    gtk_shortcut_controller_add_shortcut(shortcuts, gtk_shortcut_new(gtk_shortcut_trigger_parse_string("<Control>j"),
                                                                     gtk_signal_action_new("activate-default")))
    gtk_widget_add_controller(baton_gtk_widget(UnsafeMutableRawPointer(window.gtkWindow!)), shortcuts)
    final class Count { var value = 0 }
    let activations = Count()
    GtkSignal.connect(UnsafeMutableRawPointer(window.gtkWindow!), "activate-default") { activations.value += 1 }
    RealInput.pressWithControl(0x6a)
    wait("window shortcut") { activations.value == 1 }
    print("CHECK window shortcut activations=\(activations.value)")
    // A drag past GTK's click distance: down, dragged, up, all to the canvas.
    RealInput.drag(canvas.widget, from: (20, 20), to: (150, 60), in: window.gtkWindow!)
    wait("drag ended") { canvas.log.last?.hasPrefix("mouseUp at 150") ?? false }
    RealInput.scrollUp(canvas.widget, in: window.gtkWindow!)
    wait("wheel turned") { canvas.log.last?.hasPrefix("scrollWheel") ?? false }
    RealInput.click(note.widget, in: window.gtkWindow!)
    wait("note first") { window.firstResponder === note }
    RealInput.press(0x62)  // b
    let buffer = gtk_text_view_get_buffer(UnsafeMutablePointer<GtkTextView>(OpaquePointer(note.widget)))
    wait("b in the text view") { gtk_text_buffer_get_char_count(buffer) == 1 }
    drainIdle()
    for line in canvas.log { print("EVENT \(line)") }
    print("CHECK text view chars=\(gtk_text_buffer_get_char_count(buffer))")
    window.close()
}
