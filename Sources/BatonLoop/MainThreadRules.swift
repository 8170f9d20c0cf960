import CGLib

/// The rules about where the loop may run, with the messages that explain a broken one.
public enum MainThreadRules {
    /// True on the process's initial thread, the one libdispatch binds the main queue to.
    public static var isInitialThread: Bool { baton_is_initial_thread() != 0 }

    /// Traps, saying what to do, unless called from synchronous code on the initial thread.
    ///
    /// A top-level `await` in `main.swift` or an `async` main makes Swift end `main` with
    /// `dispatch_main()`, which gives the main queue to a worker thread and exits the main
    /// thread: the GLib loop could then never drive the main actor. Detected here as "not the
    /// initial thread" or "inside a task".
    public static func requireSynchronousMain(_ api: String) {
        let inTask = withUnsafeCurrentTask { $0 != nil }
        guard isInitialThread, !inTask else {
            fatalError(synchronousMainMessage(api))
        }
    }

    /// Traps, saying why, unless on the initial thread: `what` is a GLib callback that must come
    /// through `MainLoop.context`, which only the main thread may iterate.
    public static func requireLoopThread(_ what: @autoclosure () -> String) {
        guard isInitialThread else {
            fatalError("Baton: \(what()) ran off the main thread; the context that runs the main actor "
                       + "(MainLoop.context) must be iterated on the main thread only")
        }
    }

    static func synchronousMainMessage(_ api: String) -> String {
        """
        Baton: \(api) must be called from synchronous code on the main thread, but this program \
        has an async entry point (a top-level `await` in main.swift, or an `async` main), so Swift \
        hands the main thread to dispatch_main() and the GLib loop can never run the main actor. \
        Make main synchronous: start async work with `Task { @MainActor in ... }` and then call \
        \(api); the task runs on the GLib loop.
        """
    }
}
