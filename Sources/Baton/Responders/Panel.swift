/// An auxiliary window (AppKit's `NSPanel`): it can be key but never main, so showing a
/// panel leaves the main window — and the activity it makes current — where it was.
@MainActor
open class Panel: Window {
    /// False: a panel is never the main window (AppKit's rule).
    override open var canBecomeMain: Bool { false }
}
