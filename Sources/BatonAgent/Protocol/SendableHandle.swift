/// An opaque GLib pointer that may cross into a `@Sendable` closure.
struct SendableHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
