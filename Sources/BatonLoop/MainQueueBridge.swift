import CGLib
import Glibc

/// Runs the main dispatch queue (and so Swift's main actor) from a GLib main context, the
/// way CoreFoundation's run loop does on Apple's systems.
///
/// libdispatch signals queued main-queue work on an eventfd; a GLib fd source watches it,
/// reads it (before draining, or it would wake forever or lose a wake-up) and drains the
/// queue. One write after installing catches work queued before the bridge existed.
///
/// A drain runs only the jobs queued before it began; jobs they queue signal the eventfd
/// again. Rather than wait a whole GLib iteration for each, the bridge drains again while
/// the (non-blocking) eventfd says there is more, up to `drainRounds` times, then lets the
/// loop's other sources run.
final class MainQueueBridge {
    private let source: LoopSource
    static let drainRounds = 16

    init(on context: LoopContext) {
        let fd = _dispatch_get_main_queue_handle_4CF()
        source = context.whenReadable(fd, priority: .default) {
            precondition(
                MainThreadRules.isInitialThread,
                "Baton: the context that runs the main actor must be iterated on the main thread")
            var counter: UInt64 = 0
            for _ in 0..<MainQueueBridge.drainRounds {
                guard read(fd, &counter, MemoryLayout<UInt64>.size) == MemoryLayout<UInt64>.size else { break }
                _dispatch_main_queue_callback_4CF(nil)
                _dispatch_main_queue_callback_4CF(nil)
            }
            return .again
        }
        var one: UInt64 = 1
        _ = write(fd, &one, MemoryLayout<UInt64>.size)
    }

    func remove() { source.cancel() }
}
