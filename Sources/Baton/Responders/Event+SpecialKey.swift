extension Event {
    /// A key that types no text: arrows, Home, Backspace… (`NSEvent.SpecialKey`), with AppKit's
    /// character values, which a key event carries in `characters` as AppKit's do
    /// (`NSLeftArrowFunctionKey` is U+F702…). A toolkit that makes events (BatonGtk, the terminal
    /// example) puts these characters in them, so code that compares `characters` with AppKit's
    /// constants ports unchanged.
    public struct SpecialKey: RawRepresentable, Hashable, Sendable {
        /// The key's character value.
        public let rawValue: Int
        /// The special key of character value `rawValue`.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The key's character, as in a key event's `characters` (`unicodeScalar`).
        public var unicodeScalar: Unicode.Scalar { Unicode.Scalar(UInt32(rawValue)) ?? "\u{FFFD}" }

        /// The Up Arrow key (U+F700).
        public static let upArrow = SpecialKey(rawValue: 0xF700)
        /// The Down Arrow key (U+F701).
        public static let downArrow = SpecialKey(rawValue: 0xF701)
        /// The Left Arrow key (U+F702).
        public static let leftArrow = SpecialKey(rawValue: 0xF702)
        /// The Right Arrow key (U+F703).
        public static let rightArrow = SpecialKey(rawValue: 0xF703)
        /// F1 (U+F704); F2… follow.
        public static let f1 = SpecialKey(rawValue: 0xF704)
        /// The Insert key (U+F727).
        public static let insert = SpecialKey(rawValue: 0xF727)
        /// The forward-delete key (`deleteForward`, U+F728).
        public static let deleteForward = SpecialKey(rawValue: 0xF728)
        /// The Home key (U+F729).
        public static let home = SpecialKey(rawValue: 0xF729)
        /// The End key (U+F72B).
        public static let end = SpecialKey(rawValue: 0xF72B)
        /// The Page Up key (U+F72C).
        public static let pageUp = SpecialKey(rawValue: 0xF72C)
        /// The Page Down key (U+F72D).
        public static let pageDown = SpecialKey(rawValue: 0xF72D)
        /// The Enter key of the keypad (U+0003).
        public static let enter = SpecialKey(rawValue: 0x03)
        /// Backspace: AppKit calls it `delete` (U+007F).
        public static let delete = SpecialKey(rawValue: 0x7F)
        /// Shift-Tab (U+0019).
        public static let backTab = SpecialKey(rawValue: 0x19)
        /// Tab (U+0009).
        public static let tab = SpecialKey(rawValue: 0x09)
        /// Return (U+000D).
        public static let carriageReturn = SpecialKey(rawValue: 0x0D)
        /// A newline (U+000A).
        public static let newline = SpecialKey(rawValue: 0x0A)

        /// The special keys with characters outside AppKit's function-key range.
        static let controlCharacters: Set<Int> = [0x03, 0x7F, 0x19, 0x09, 0x0D, 0x0A]
    }

    /// The special key of a key event (`specialKey`): its first character when that is one of
    /// `SpecialKey`'s or in AppKit's function-key range (U+F700–U+F8FF); nil otherwise and for
    /// events that are not key events.
    public var specialKey: SpecialKey? {
        guard let scalar = charactersIgnoringModifiers?.unicodeScalars.first else { return nil }
        let value = Int(scalar.value)
        if (0xF700...0xF8FF).contains(value) || SpecialKey.controlCharacters.contains(value) {
            return SpecialKey(rawValue: value)
        }
        return nil
    }
}
