/// A raw buffer pointer handed to GIO across an `await` (GIO writes into it, or reads from it,
/// until its call finishes). Only the address crosses; the owner of the memory keeps it alive
/// and does not touch it while the call runs, which is what makes the `Sendable` claim hold.
public struct SendableRawPointer: @unchecked Sendable {
    /// The address.
    public let pointer: UnsafeMutableRawPointer
    /// Wraps `pointer`.
    public init(_ pointer: UnsafeMutableRawPointer) { self.pointer = pointer }
}
