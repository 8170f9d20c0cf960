/// An opaque GLib pointer that may cross into a `@Sendable` closure.
struct SendableOpaque: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
