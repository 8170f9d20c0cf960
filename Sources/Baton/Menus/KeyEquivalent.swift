/// A key and its modifiers, normalized for comparing a menu item's key equivalent with a key
/// press by AppKit's rule: letters lowercased, an uppercase letter meaning Shift, and only
/// Shift, Control, Option and Command counted.
struct KeyEquivalent: Equatable {
    let key: String
    let modifiers: Event.ModifierFlags

    private static let counted: Event.ModifierFlags = [.shift, .control, .option, .command]

    init(_ characters: String, _ flags: Event.ModifierFlags) {
        let lower = characters.lowercased()
        var modifiers = flags.intersection(.deviceIndependentFlagsMask).intersection(KeyEquivalent.counted)
        if lower != characters { modifiers.insert(.shift) }
        key = lower
        self.modifiers = modifiers
    }

    /// Whether the letter case says anything about Shift for this key.
    private var isLetter: Bool { key.uppercased() != key }

    /// Whether `pressed`, a key press, is this key equivalent. For a key that is not a
    /// letter, the press's Shift is ignored unless this equivalent asks for it.
    func matches(_ pressed: KeyEquivalent) -> Bool {
        guard key == pressed.key else { return false }
        var pressedModifiers = pressed.modifiers
        if !isLetter && !modifiers.contains(.shift) { pressedModifiers.remove(.shift) }
        return modifiers == pressedModifiers
    }
}
