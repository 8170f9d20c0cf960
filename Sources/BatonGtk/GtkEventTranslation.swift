import Baton
import CGtk
import Foundation

/// GTK's key values and modifier masks as AppKit's: what a key or pointer event of GTK becomes
/// in a Baton `Event`.
///
/// - Modifiers: Control is `.command` (GTK's `<Primary>`, what a Linux user presses for
///   AppKit's Command shortcuts), Alt is `.option`, Shift `.shift`, Caps Lock `.capsLock`,
///   Super is `.control` (the key left where AppKit's Control is rarely needed).
/// - Characters: the key's Unicode character (`gdk_keyval_to_unicode`); arrows, Home, End,
///   Page Up/Down, Delete, Insert and F1–F12 become AppKit's function-key characters
///   (`Event.SpecialKey`, U+F700…), Backspace U+007F, Return U+000D, keypad Enter U+0003,
///   Tab U+0009, Shift-Tab (ISO_Left_Tab) U+0019, Escape U+001B, as AppKit's events carry them.
///   `charactersIgnoringModifiers` is the same character (GTK's key value already includes
///   Shift and ignores Control).
@MainActor
enum GtkEventTranslation {
    private static let specialKeys: [UInt32: Int] = [
        0xff51: Event.SpecialKey.leftArrow.rawValue, 0xff52: Event.SpecialKey.upArrow.rawValue,
        0xff53: Event.SpecialKey.rightArrow.rawValue, 0xff54: Event.SpecialKey.downArrow.rawValue,
        0xff50: Event.SpecialKey.home.rawValue, 0xff57: Event.SpecialKey.end.rawValue,
        0xff55: Event.SpecialKey.pageUp.rawValue, 0xff56: Event.SpecialKey.pageDown.rawValue,
        0xffff: Event.SpecialKey.deleteForward.rawValue, 0xff63: Event.SpecialKey.insert.rawValue,
        0xff08: 0x7F, 0xff0d: 0x0D, 0xff8d: 0x03, 0xff09: 0x09, 0xfe20: 0x19, 0xff1b: 0x1B,
    ]

    /// The characters of `keyval`: AppKit's for a special key, else its Unicode character,
    /// else "" (a modifier key alone).
    static func characters(ofKeyval keyval: UInt32) -> String {
        if let special = specialKeys[keyval] ?? functionKey(keyval), let scalar = Unicode.Scalar(UInt32(special)) {
            return String(Character(scalar))
        }
        let code = gdk_keyval_to_unicode(keyval)
        guard code != 0, let scalar = Unicode.Scalar(code) else { return "" }
        return String(Character(scalar))
    }

    /// F1–F12 (GDK 0xffbe…) as AppKit's U+F704….
    private static func functionKey(_ keyval: UInt32) -> Int? {
        (0xffbe...0xffc9).contains(keyval) ? Event.SpecialKey.f1.rawValue + Int(keyval - 0xffbe) : nil
    }

    /// GTK's modifier state as AppKit's flags.
    static func modifierFlags(_ state: GdkModifierType) -> Event.ModifierFlags {
        let raw = state.rawValue
        var flags: Event.ModifierFlags = []
        if raw & GDK_SHIFT_MASK.rawValue != 0 { flags.insert(.shift) }
        if raw & GDK_CONTROL_MASK.rawValue != 0 { flags.insert(.command) }
        if raw & GDK_ALT_MASK.rawValue != 0 { flags.insert(.option) }
        if raw & GDK_LOCK_MASK.rawValue != 0 { flags.insert(.capsLock) }
        if raw & GDK_SUPER_MASK.rawValue != 0 { flags.insert(.control) }
        return flags
    }

    /// A key event of `type` for GTK's key.
    static func keyEvent(_ type: Event.EventType, keyval: UInt32, keycode: UInt32, state: GdkModifierType,
                         isARepeat: Bool, in window: Window) -> Event? {
        let characters = type == .flagsChanged ? "" : characters(ofKeyval: keyval)
        return Event.keyEvent(with: type, location: .zero, modifierFlags: modifierFlags(state),
                              timestamp: ProcessInfo.processInfo.systemUptime, windowNumber: window.windowNumber,
                              context: nil, characters: characters, charactersIgnoringModifiers: characters,
                              isARepeat: isARepeat, keyCode: UInt16(truncatingIfNeeded: keycode))
    }

    /// A mouse event of GTK's `button` (1 left, 3 right, 2 and up others) at `location` in the
    /// window's base coordinates.
    static func mouseEvent(pressed: Bool?, button: UInt32, location: CGPoint,
                           state: GdkModifierType, clickCount: Int, in window: Window) -> Event? {
        let type: Event.EventType
        switch (button, pressed) {
        case (1, true?): type = .leftMouseDown
        case (1, false?): type = .leftMouseUp
        case (3, true?): type = .rightMouseDown
        case (3, false?): type = .rightMouseUp
        case (1, nil): type = .leftMouseDragged
        case (3, nil): type = .rightMouseDragged
        case (_, true?): type = .otherMouseDown
        case (_, false?): type = .otherMouseUp
        case (_, nil): type = .otherMouseDragged
        }
        let time = ProcessInfo.processInfo.systemUptime
        if type == .otherMouseDown || type == .otherMouseUp || type == .otherMouseDragged {
            // GTK's middle button 2 is AppKit's 2; buttons 4 and up keep GTK's number minus one
            // (GTK's 3 is the right button, AppKit's 1).
            return Event.otherMouseEvent(with: type, location: location, modifierFlags: modifierFlags(state),
                                         timestamp: time, windowNumber: window.windowNumber,
                                         clickCount: clickCount, buttonNumber: Int(button == 2 ? 2 : button - 1))
        }
        return Event.mouseEvent(with: type, location: location, modifierFlags: modifierFlags(state), timestamp: time,
                                windowNumber: window.windowNumber, context: nil, eventNumber: 0,
                                clickCount: clickCount, pressure: pressed == false ? 0 : 1)
    }

    /// The pressed button of a pointer state, GTK's numbering, or nil when none is held.
    static func heldButton(_ state: GdkModifierType) -> UInt32? {
        let raw = state.rawValue
        if raw & GDK_BUTTON1_MASK.rawValue != 0 { return 1 }
        if raw & GDK_BUTTON3_MASK.rawValue != 0 { return 3 }
        if raw & GDK_BUTTON2_MASK.rawValue != 0 { return 2 }
        return nil
    }
}
