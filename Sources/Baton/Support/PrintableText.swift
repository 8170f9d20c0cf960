/// Text shown to a person: which characters may appear as themselves, and how anything
/// another device sent is made safe to print or log.
///
/// A character is shown as itself unless it can change how the rest of a terminal line or a
/// log line reads: control characters (C0, DEL, C1, among them ESC), format characters (the
/// bidirectional embeddings, overrides, isolates and marks U+202A–U+202E, U+2066–U+2069,
/// U+200E, U+200F, U+061C, and the zero-width ones), line and paragraph separators, private-use
/// and unassigned code points.
public enum PrintableText {
    /// True if `scalar` is shown as itself: not a control, format, line or paragraph separator,
    /// private-use or unassigned code point.
    public static func showsAsItself(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
            false
        default:
            // Bidirectional controls are format characters; these are named so that a Unicode
            // table that classed them otherwise would still not let them through.
            !(0x202A...0x202E).contains(scalar.value) && !(0x2066...0x2069).contains(scalar.value)
                && ![0x200E, 0x200F, 0x061C].contains(scalar.value)
        }
    }

    /// True if every character of `text` shows as itself.
    public static func isPrintable(_ text: String) -> Bool { text.unicodeScalars.allSatisfy(showsAsItself) }

    /// `text` with each character that does not show as itself written as a visible escape,
    /// `\u{1B}` for ESC: what to print or log of anything another device sent (titles, device
    /// names, activity types, error text).
    public static func escaped(_ text: String) -> String {
        guard !isPrintable(text) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if showsAsItself(scalar) {
                result.unicodeScalars.append(scalar)
            } else {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            }
        }
        return result
    }
}
