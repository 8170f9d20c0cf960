import BatonLoop
import Foundation

/// Runs the real GLib main loop — so what the test runs on it goes on — while `wait` (a
/// blocking wait of its own, bounded: a child process's event, its exit) runs on a thread of
/// its own. Returns `wait`'s answer once it has returned; false if `timeout` passed first.
///
/// The loop is woken by `wait` returning (a block on the main queue, which the loop drains),
/// never by a tick: no polling stands in for the event.
@MainActor
public func runLoop(whileWaiting wait: @escaping @Sendable () -> Bool, timeout: Duration) -> Bool {
    let done = LockedFlag(), answer = LockedFlag()
    Thread {
        answer.set(wait())
        done.set(true)
        DispatchQueue.main.async {}
    }.start()
    _ = MainLoop.run(until: { done.value }, timeout: timeout)
    return done.value && answer.value
}
