/// AppKit's standard key bindings for the common editing commands, as written in
/// `StandardKeyBinding.dict` ("Text System Defaults and Key Bindings", Cocoa Event Handling
/// Guide): what `Responder.interpretKeyEvents(_:)` turns a key-down into.
///
/// | key | command | with Shift |
/// |---|---|---|
/// | ← → ↑ ↓ | `moveLeft` `moveRight` `moveUp` `moveDown` | `…AndModifySelection` |
/// | Option-← → | `moveWordLeft` `moveWordRight` | `…AndModifySelection` |
/// | Command-← → | `moveToLeftEndOfLine` `moveToRightEndOfLine` | `…AndModifySelection` |
/// | Command-↑ ↓ | `moveToBeginningOfDocument` `moveToEndOfDocument` | `…AndModifySelection` |
/// | Home, End | `scrollToBeginningOfDocument` `scrollToEndOfDocument` | `moveToBeginningOfDocumentAndModifySelection`… |
/// | Page Up, Page Down | `scrollPageUp` `scrollPageDown` (Option: `pageUp` `pageDown`) | `pageUpAndModifySelection`… |
/// | Backspace, Delete | `deleteBackward` `deleteForward` (Option: `…Word…`) | Backspace: `deleteBackward` |
/// | Return, Enter | `insertNewline` | |
/// | Tab | `insertTab` | `insertBacktab` |
/// | Escape | `cancelOperation` | |
///
/// A key not bound here types its characters (`insertText(_:)`) unless Command or Control is
/// held or it types a control or function-key character: those do nothing, where AppKit's
/// `noop:` beeps.
@MainActor
public enum StandardKeyBindings {
    /// A bound key: its character and the modifiers that matter (Shift, Control, Option, Command).
    struct Key: Hashable {
        let character: UInt32
        let modifiers: UInt
        init(_ character: Int, _ modifiers: Event.ModifierFlags = []) {
            self.character = UInt32(character)
            self.modifiers = modifiers.rawValue
        }
    }

    static let relevantModifiers: Event.ModifierFlags = [.shift, .control, .option, .command]

    /// The command bound to `event` (a key-down), or nil when the key is not bound.
    public static func command(for event: Event) -> AnyAction? {
        guard event.type == .keyDown, let scalar = event.charactersIgnoringModifiers?.unicodeScalars.first else {
            return nil
        }
        let modifiers = event.modifierFlags.intersection(relevantModifiers)
        return table[Key(Int(scalar.value), modifiers)]
    }

    /// What `Responder.interpretKeyEvents(_:)` does with one event: a bound key-down becomes
    /// `doCommand(by:)`, a key-down that types text becomes `insertText(_:)`, on `responder`.
    static func interpret(_ event: Event, for responder: Responder) {
        guard event.type == .keyDown else { return }
        if let command = command(for: event) { return responder.doCommand(by: command) }
        guard event.modifierFlags.isDisjoint(with: [.command, .control]),
              let text = event.characters, !text.isEmpty,
              !text.unicodeScalars.contains(where: isNotText) else { return }
        responder.insertText(text)
    }

    private static func isNotText(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || (0xF700...0xF8FF).contains(scalar.value)
    }

    private typealias K = Event.SpecialKey

    static let table: [Key: AnyAction] = {
        let shift: Event.ModifierFlags = .shift, option: Event.ModifierFlags = .option
        let command: Event.ModifierFlags = .command
        return [
            Key(K.leftArrow.rawValue): AnyAction(.moveLeft),
            Key(K.rightArrow.rawValue): AnyAction(.moveRight),
            Key(K.upArrow.rawValue): AnyAction(.moveUp),
            Key(K.downArrow.rawValue): AnyAction(.moveDown),
            Key(K.leftArrow.rawValue, shift): AnyAction(.moveLeftAndModifySelection),
            Key(K.rightArrow.rawValue, shift): AnyAction(.moveRightAndModifySelection),
            Key(K.upArrow.rawValue, shift): AnyAction(.moveUpAndModifySelection),
            Key(K.downArrow.rawValue, shift): AnyAction(.moveDownAndModifySelection),
            Key(K.leftArrow.rawValue, option): AnyAction(.moveWordLeft),
            Key(K.rightArrow.rawValue, option): AnyAction(.moveWordRight),
            Key(K.leftArrow.rawValue, [option, shift]): AnyAction(.moveWordLeftAndModifySelection),
            Key(K.rightArrow.rawValue, [option, shift]): AnyAction(.moveWordRightAndModifySelection),
            Key(K.leftArrow.rawValue, command): AnyAction(.moveToLeftEndOfLine),
            Key(K.rightArrow.rawValue, command): AnyAction(.moveToRightEndOfLine),
            Key(K.leftArrow.rawValue, [command, shift]): AnyAction(.moveToLeftEndOfLineAndModifySelection),
            Key(K.rightArrow.rawValue, [command, shift]): AnyAction(.moveToRightEndOfLineAndModifySelection),
            Key(K.upArrow.rawValue, command): AnyAction(.moveToBeginningOfDocument),
            Key(K.downArrow.rawValue, command): AnyAction(.moveToEndOfDocument),
            Key(K.upArrow.rawValue, [command, shift]): AnyAction(.moveToBeginningOfDocumentAndModifySelection),
            Key(K.downArrow.rawValue, [command, shift]): AnyAction(.moveToEndOfDocumentAndModifySelection),
            Key(K.home.rawValue): AnyAction(.scrollToBeginningOfDocument),
            Key(K.end.rawValue): AnyAction(.scrollToEndOfDocument),
            Key(K.home.rawValue, shift): AnyAction(.moveToBeginningOfDocumentAndModifySelection),
            Key(K.end.rawValue, shift): AnyAction(.moveToEndOfDocumentAndModifySelection),
            Key(K.pageUp.rawValue): AnyAction(.scrollPageUp),
            Key(K.pageDown.rawValue): AnyAction(.scrollPageDown),
            Key(K.pageUp.rawValue, option): AnyAction(.pageUp),
            Key(K.pageDown.rawValue, option): AnyAction(.pageDown),
            Key(K.pageUp.rawValue, shift): AnyAction(.pageUpAndModifySelection),
            Key(K.pageDown.rawValue, shift): AnyAction(.pageDownAndModifySelection),
            Key(K.delete.rawValue): AnyAction(.deleteBackward),
            Key(K.delete.rawValue, shift): AnyAction(.deleteBackward),
            Key(K.delete.rawValue, option): AnyAction(.deleteWordBackward),
            Key(K.deleteForward.rawValue): AnyAction(.deleteForward),
            Key(K.deleteForward.rawValue, option): AnyAction(.deleteWordForward),
            Key(K.carriageReturn.rawValue): AnyAction(.insertNewline),
            Key(K.newline.rawValue): AnyAction(.insertNewline),
            Key(K.enter.rawValue): AnyAction(.insertNewline),
            Key(K.tab.rawValue): AnyAction(.insertTab),
            Key(K.tab.rawValue, shift): AnyAction(.insertBacktab),
            Key(K.backTab.rawValue): AnyAction(.insertBacktab),
            Key(K.backTab.rawValue, shift): AnyAction(.insertBacktab),
            Key(0x1B): AnyAction(.cancelOperation),
        ]
    }()
}
