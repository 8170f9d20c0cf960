@testable import Baton
import Foundation

/// A key-down (or other key event) in `window`, made with AppKit's factory method.
@MainActor
func keyEvent(_ characters: String, _ flags: Event.ModifierFlags = [], type: Event.EventType = .keyDown,
              in window: Window? = nil, ignoringModifiers: String? = nil) -> Event {
    Event.keyEvent(with: type, location: .zero, modifierFlags: flags, timestamp: 0,
                   windowNumber: window?.windowNumber ?? 0, context: nil, characters: characters,
                   charactersIgnoringModifiers: ignoringModifiers ?? characters, isARepeat: false, keyCode: 0)!
}

/// The key-down of a special key (an arrow, Home…), whose character is AppKit's.
@MainActor
func keyEvent(_ key: Event.SpecialKey, _ flags: Event.ModifierFlags = [], in window: Window? = nil) -> Event {
    keyEvent(String(Character(key.unicodeScalar)), flags, in: window)
}

/// A mouse event at `location` (window base coordinates) in `window`.
@MainActor
func mouseEvent(_ type: Event.EventType, at location: CGPoint, in window: Window, clickCount: Int = 1) -> Event {
    Event.mouseEvent(with: type, location: location, modifierFlags: [], timestamp: 0,
                     windowNumber: window.windowNumber, context: nil, eventNumber: 0, clickCount: clickCount,
                     pressure: 1)!
}

/// A responder that records the event methods called on it, and optionally handles them
/// (by not calling super).
class RecordingView: View {
    var received: [String] = []
    var handles = true
    var accepts = false
    var firstMouse = false
    var equivalents: Set<String> = []
    override var acceptsFirstResponder: Bool { accepts }
    override func acceptsFirstMouse(for event: Event?) -> Bool { firstMouse }

    private func record(_ name: String, _ event: Event, _ pass: () -> Void) {
        received.append(name)
        if !handles { pass() }
    }
    override func keyDown(with event: Event) { record("keyDown", event) { super.keyDown(with: event) } }
    override func keyUp(with event: Event) { record("keyUp", event) { super.keyUp(with: event) } }
    override func flagsChanged(with event: Event) { record("flagsChanged", event) { super.flagsChanged(with: event) } }
    override func mouseDown(with event: Event) { record("mouseDown", event) { super.mouseDown(with: event) } }
    override func mouseUp(with event: Event) { record("mouseUp", event) { super.mouseUp(with: event) } }
    override func mouseDragged(with event: Event) { record("mouseDragged", event) { super.mouseDragged(with: event) } }
    override func mouseMoved(with event: Event) { record("mouseMoved", event) { super.mouseMoved(with: event) } }
    override func rightMouseDown(with event: Event) { record("rightMouseDown", event) { super.rightMouseDown(with: event) } }
    override func rightMouseUp(with event: Event) { record("rightMouseUp", event) { super.rightMouseUp(with: event) } }
    override func scrollWheel(with event: Event) { record("scrollWheel", event) { super.scrollWheel(with: event) } }
    override func performKeyEquivalent(with event: Event) -> Bool {
        if let characters = event.charactersIgnoringModifiers, equivalents.contains(characters) {
            received.append("performKeyEquivalent \(characters)")
            return true
        }
        return super.performKeyEquivalent(with: event)
    }
}
