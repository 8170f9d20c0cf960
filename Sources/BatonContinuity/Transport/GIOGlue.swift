import BatonLoop
import CGLib
import Foundation

/// A GObject pointer that may cross into a `@Sendable` closure (GObject references are
/// thread-safe; the object is used on the loop thread only).
struct SendablePointer<T>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<T>
    init(_ pointer: UnsafeMutablePointer<T>) { self.pointer = pointer }
}

/// A flag set once, read from any thread.
final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.lock(); value = true; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
}

/// A copy of some bytes that stays put while GIO writes from it.
final class SendableBytes: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    let count: Int
    init(_ data: Data) {
        count = data.count
        pointer = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1), alignment: 1)
        data.withUnsafeBytes { if let base = $0.baseAddress { pointer.copyMemory(from: base, byteCount: data.count) } }
    }
    deinit { pointer.deallocate() }
}

/// A GObject pointer as another class in its hierarchy (what `G_IO_STREAM (x)` does in C).
func gCast<T, U>(_ pointer: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<U> {
    UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: U.self)
}

extension GLibError {
    /// Any error as a GLibError (GIO calls throw GLibError or CancellationError).
    init(_ error: Error) {
        if let glib = error as? GLibError { self = glib } else {
            self.init(domain: "baton", code: 0, message: "\(error)")
        }
    }
}
