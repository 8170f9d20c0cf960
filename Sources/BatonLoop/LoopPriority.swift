import CGLib

/// A GLib source priority; lower runs first (`G_PRIORITY_*`).
public struct LoopPriority: Sendable, Hashable {
    public var rawValue: Int32
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    public static let high = LoopPriority(G_PRIORITY_HIGH)
    public static let `default` = LoopPriority(G_PRIORITY_DEFAULT)
    public static let highIdle = LoopPriority(G_PRIORITY_HIGH_IDLE)
    public static let defaultIdle = LoopPriority(G_PRIORITY_DEFAULT_IDLE)
    public static let low = LoopPriority(G_PRIORITY_LOW)
}
