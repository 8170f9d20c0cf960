/// The state of a menu item or a control: on, off or mixed (AppKit's `NSControl.StateValue`).
/// A menu item shows a check mark when it is `.on` and a dash when it is `.mixed`.
///
/// Deviation: Baton has no `Control` class, so the type is top-level; AppKit's
/// `NSControl.StateValue.on` is `ControlStateValue.on`.
public struct ControlStateValue: RawRepresentable, Hashable, Sendable {
    /// AppKit's raw value: 1 on, 0 off, -1 mixed.
    public var rawValue: Int
    /// The state with AppKit's raw value `rawValue`.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// On (`.on`, raw value 1).
    public static let on = ControlStateValue(rawValue: 1)
    /// Off (`.off`, raw value 0).
    public static let off = ControlStateValue(rawValue: 0)
    /// Mixed (`.mixed`, raw value -1), for an item that stands for several things in
    /// different states.
    public static let mixed = ControlStateValue(rawValue: -1)
}
