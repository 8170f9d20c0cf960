import BatonLoop
import CGLib
import Synchronization

/// Counts the fds the context's polls find ready (their results summed), from `init` to
/// `remove()`, by wrapping its poll function.
@MainActor
public final class ReadyFDCounter {
    private let context: LoopContext
    private let start: Int

    public init(on context: LoopContext) {
        self.context = context
        start = readyFDs.load(ordering: .relaxed)
        g_main_context_set_poll_func(context.gContext, countingPoll)
    }

    public var ready: Int { readyFDs.load(ordering: .relaxed) - start }

    /// Puts GLib's own poll function back.
    public func remove() { g_main_context_set_poll_func(context.gContext, nil) }
}

private let readyFDs = Atomic<Int>(0)

/// `g_poll`, counting the fds it finds ready.
private let countingPoll: GPollFunc = { fds, count, timeout in
    let result = g_poll(fds, count, timeout)
    if result > 0 { readyFDs.add(Int(result), ordering: .relaxed) }
    return result
}
