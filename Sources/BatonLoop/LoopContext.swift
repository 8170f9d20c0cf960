import CGLib

/// A GLib `GMainContext` and the Swift closures scheduled on it.
///
/// Closures run on whichever thread iterates the context, so they are `@Sendable`. For the
/// main thread's loop with `@MainActor` closures, use `MainLoop`.
public final class LoopContext: @unchecked Sendable {
    /// The `GMainContext *`, owned (one reference) by this object.
    public let gContext: OpaquePointer

    /// Wraps `context`, taking a reference of its own.
    public init(_ context: OpaquePointer) {
        gContext = g_main_context_ref(context)
    }

    /// A new context of its own (`g_main_context_new`).
    public convenience init() {
        let fresh = g_main_context_new()!
        self.init(fresh)
        g_main_context_unref(fresh)
    }

    deinit { g_main_context_unref(gContext) }

    /// GLib's global default context, which `Application.main()` runs on the main thread.
    public static let `default` = LoopContext(g_main_context_default())

    /// Runs `body` once, the next time the context is idle.
    @discardableResult
    public func idle(priority: LoopPriority = .defaultIdle, _ body: @escaping @Sendable () -> Void) -> LoopSource {
        attach(g_idle_source_new(), priority: priority) { body(); return .stop }
    }

    /// Runs `body` once after `delay`.
    @discardableResult
    public func after(_ delay: Duration, priority: LoopPriority = .default,
                      _ body: @escaping @Sendable () -> Void) -> LoopSource {
        attach(g_timeout_source_new(delay.glibMilliseconds), priority: priority) { body(); return .stop }
    }

    /// Runs `body` every `interval` until it returns `.stop` or the source is cancelled.
    @discardableResult
    public func every(_ interval: Duration, priority: LoopPriority = .default,
                      _ body: @escaping @Sendable () -> Repetition) -> LoopSource {
        attach(g_timeout_source_new(interval.glibMilliseconds), priority: priority, body)
    }

    /// Runs `body` each time `fd` is readable (or hung up, or in error) until it returns `.stop`.
    @discardableResult
    public func whenReadable(_ fd: Int32, priority: LoopPriority = .default,
                             _ body: @escaping @Sendable () -> Repetition) -> LoopSource {
        attachFD(fd, G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue, priority: priority, body)
    }

    /// Runs `body` each time `fd` is writable (or in error) until it returns `.stop`.
    @discardableResult
    public func whenWritable(_ fd: Int32, priority: LoopPriority = .default,
                             _ body: @escaping @Sendable () -> Repetition) -> LoopSource {
        attachFD(fd, G_IO_OUT.rawValue | G_IO_ERR.rawValue, priority: priority, body)
    }

    /// One iteration of the context (`g_main_context_iteration`); true if a source ran.
    @discardableResult
    public func iterate(mayBlock: Bool) -> Bool {
        g_main_context_iteration(gContext, mayBlock ? 1 : 0) != 0
    }

    /// Wakes the thread blocked iterating this context.
    public func wakeUp() { g_main_context_wakeup(gContext) }

    func attach(_ source: UnsafeMutablePointer<GSource>, priority: LoopPriority,
                _ body: @escaping () -> Repetition) -> LoopSource {
        g_source_set_priority(source, priority.rawValue)
        g_source_set_callback(source, sourceTrampoline, SourceBox(body).retainedOpaque(), CallbackBox.destroyNotify)
        g_source_attach(source, gContext)
        return LoopSource(adopting: source)
    }

    func attachFD(_ fd: Int32, _ condition: UInt32, priority: LoopPriority,
                  _ body: @escaping () -> Repetition) -> LoopSource {
        let source = g_unix_fd_source_new(fd, GIOCondition(rawValue: condition))!
        g_source_set_priority(source, priority.rawValue)
        // GLib documents casting a GUnixFDSourceFunc to GSourceFunc for g_source_set_callback.
        let callback = unsafeBitCast(unixFDTrampoline, to: GSourceFunc.self)
        g_source_set_callback(source, callback, SourceBox(body).retainedOpaque(), CallbackBox.destroyNotify)
        g_source_attach(source, gContext)
        return LoopSource(adopting: source)
    }
}

extension Duration {
    /// Whole milliseconds for `g_timeout_source_new`, rounded up so a delay is never shortened.
    var glibMilliseconds: UInt32 {
        let (seconds, attoseconds) = components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return UInt32(clamping: max(0, millis))
    }
}
