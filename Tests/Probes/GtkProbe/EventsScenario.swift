import BatonGtk
import Foundation

/// A custom view as AppKit's are written: it handles clicks in `mouseDown(with:)` and keys in
/// `keyDown(with:)` through `interpretKeyEvents(_:)`, and records what it got.
@MainActor
final class CanvasView: DrawingAreaView, StandardKeyBindingResponding.MoveLeft {
    var log: [String] = []
    override func mouseDown(with event: Event) {
        let point = convert(event.locationInWindow, from: nil)
        log.append("mouseDown at \(Int(point.x.rounded())),\(Int(point.y.rounded())) clicks=\(event.clickCount)")
    }
    override func keyDown(with event: Event) { interpretKeyEvents([event]) }
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
    wait("canvas clicked") { !canvas.log.isEmpty }
    print("CHECK clicked canvas: first=\((window.firstResponder as? View)?.identifier ?? "window")")
    wait("GTK focus in canvas") { gtk_window_get_focus(window.gtkWindow!) == canvas.widget }
    RealInput.press(0x61)  // a
    wait("a typed") { canvas.log.count >= 2 }
    RealInput.press(0xff51)  // Left
    wait("left pressed") { canvas.log.count >= 3 }
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
