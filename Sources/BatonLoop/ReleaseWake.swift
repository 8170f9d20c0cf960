import CGLib

extension MainLoop {
    /// Wakes `MainLoop.context` when `object` (a `GObject *`) is finalized on another thread.
    ///
    /// GIO often drops the last reference to an object on one of its own threads: GDBus closes
    /// and finalizes a connection's stream on its worker thread, a GTask worker finalizes the
    /// TLS connection it closed. The object's descriptor is closed there, after the last event
    /// GIO sends the app's loop, so a loop blocked waiting for that release (a modal wait, a
    /// test counting descriptors) would sleep until some unrelated event. With this, the
    /// finalization itself wakes the loop, once the object's own finalizer has run (its
    /// descriptor closed): the notify is object data, which GObject frees last. Finalized on
    /// the loop's thread, it needs no wake-up: the loop checks again after the dispatch.
    nonisolated public static func wakeOnRelease(of object: UnsafeMutableRawPointer) {
        g_object_set_data_full(object.assumingMemoryBound(to: GObject.self), releaseWakeKey, object, wakeLoopOnRelease)
    }
}

private let releaseWakeKey = "baton-wake-on-release"

/// The `GDestroyNotify` of the object data: runs as GObject frees the object's data, after
/// the object's class finalizers.
private let wakeLoopOnRelease: GDestroyNotify = { _ in
    if baton_is_initial_thread() == 0 { MainLoop.context.wakeUp() }
}
