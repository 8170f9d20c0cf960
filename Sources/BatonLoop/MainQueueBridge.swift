import CGLib
import Glibc
import Synchronization

/// Runs the main dispatch queue (and so Swift's main actor) from a GLib main context, the
/// way CoreFoundation's run loop does on Apple's systems.
///
/// libdispatch signals queued main-queue work on an eventfd (it writes when the queue goes from
/// empty to not empty); a GLib fd source watches it and drains the queue. One write after
/// installing catches work queued before the bridge existed.
///
/// A drain runs only the blocks queued before it began; blocks they queue (a chain of
/// `DispatchQueue.main.async`) are run by the next, so one wake-up drains up to `drainRounds`
/// times, reading nothing in between (an empty drain costs a few loads, a `read` a system
/// call). Then the eventfd is read (it must be, or the loop would wake forever), and the queue
/// drained once more: a block queued before that read, whose signal the read took, is run
/// there; one queued after it signals again. Then the loop's other sources run.
///
/// What a block costs here that it does not under `dispatchMain()`: libdispatch writes the
/// eventfd when a block is queued onto the queue a drain has emptied, and again at the end of a
/// drain that leaves blocks queued, so a chain of blocks each queuing the next makes two system
/// calls per block (`strace -c`: 6,352,946 writes for 3,000,000 blocks), whatever the loop does.
final class MainQueueBridge {
    private let source: LoopSource
    static let drainRounds = 64

    init(on context: LoopContext) {
        let fd = _dispatch_get_main_queue_handle_4CF()
        source = context.whenReadable(fd, priority: .default) {
            precondition(
                MainThreadRules.isInitialThread,
                "Baton: the context that runs the main actor must be iterated on the main thread")
            MainQueueBridge.drain(fd)
            return .again
        }
        MainQueueBridge.signal(fd)
    }

    /// libdispatch's main-queue eventfd.
    static var fd: Int32 { _dispatch_get_main_queue_handle_4CF() }

    /// How many times `drain(_:)` ran: the wake-ups that drained the main queue, for the tests.
    static let drains = Atomic<Int>(0)

    /// Drains the main queue after `fd` signalled, as described above; loop thread only.
    static func drain(_ fd: Int32) {
        drains.add(1, ordering: .relaxed)
        for _ in 0..<drainRounds { _dispatch_main_queue_callback_4CF(nil) }
        var counter: UInt64 = 0
        _ = read(fd, &counter, MemoryLayout<UInt64>.size)
        _dispatch_main_queue_callback_4CF(nil)
    }

    /// Signals `fd` once, for the work queued before anything watched it.
    static func signal(_ fd: Int32) {
        var one: UInt64 = 1
        _ = write(fd, &one, MemoryLayout<UInt64>.size)
    }

    func remove() { source.cancel() }
}
