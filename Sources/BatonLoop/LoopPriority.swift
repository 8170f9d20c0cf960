import CGLib

/// A GLib source priority; lower runs first (`G_PRIORITY_*`).
public struct LoopPriority: Sendable, Hashable {
    /// The GLib priority value.
    public var rawValue: Int32
    /// A priority of GLib's scale: any value, the named ones below being GLib's.
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// `G_PRIORITY_HIGH` (-100): before everything else.
    public static let high = LoopPriority(G_PRIORITY_HIGH)
    /// `G_PRIORITY_DEFAULT` (0): timeouts, file descriptors, the main actor's queue.
    public static let `default` = LoopPriority(G_PRIORITY_DEFAULT)
    /// `G_PRIORITY_HIGH_IDLE` (100): idle work that should come before redrawing.
    public static let highIdle = LoopPriority(G_PRIORITY_HIGH_IDLE)
    /// `G_PRIORITY_DEFAULT_IDLE` (200): idle work, when nothing of higher priority is ready.
    public static let defaultIdle = LoopPriority(G_PRIORITY_DEFAULT_IDLE)
    /// `G_PRIORITY_LOW` (300): after everything else.
    public static let low = LoopPriority(G_PRIORITY_LOW)
}
