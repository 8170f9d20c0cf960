/// What runs the main actor's jobs on the GLib loop (`MainLoop.mainActorExecutor`).
public enum MainActorExecutorKind: Sendable, Hashable {
    /// Swift's main executor is Baton's: each main-actor job goes straight into
    /// `MainLoop.context` and runs in one dispatch of a GLib source on the main thread.
    case glibSource
    /// libdispatch's main queue, which the loop drains when its eventfd signals (the bridge
    /// CoreFoundation's run loop is on Apple's systems); the fallback for toolchains without a
    /// custom main executor (before Swift 6.3).
    case dispatchMainQueue
}
