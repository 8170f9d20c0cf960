import Foundation
import Synchronization

/// How many main-actor jobs ran, counted on the main thread, read after.
final class MainActorJobCount: Sendable {
    let value = Atomic<Int>(0)
}

/// Starts a thread that sends `jobs` main-actor jobs one at a time, each after the last has
/// run (so each finds the main actor's queue empty and the main thread waiting in its poll),
/// counting each in `ran`; then runs `after` on that thread.
func sendMainActorJobsOneAtATime(_ jobs: Int, counting ran: MainActorJobCount, then after: @escaping @Sendable () -> Void = {}) {
    Thread {
        for _ in 0..<jobs {
            let done = DispatchSemaphore(value: 0)
            Task { @MainActor in
                ran.value.add(1, ordering: .relaxed)
                done.signal()
            }
            done.wait()
        }
        after()
    }.start()
}
