import BatonLoop
import CGLib

/// A pollable stream's readiness on the loop (`g_pollable_input_stream_create_source`,
/// `g_pollable_output_stream_create_source`): `body` runs on the loop thread each time the
/// stream can be read (data, its end, or an error) or written without blocking, until it
/// returns `.stop` or the watch is cancelled. For a TLS connection the readiness is the TLS
/// stream's, not the socket's. The closure is released when the source is removed.
///
/// A watch kept for a connection's life costs nothing per wait: GLib writes the loop's wake-up
/// eventfd each time a source adds or removes a polled fd, so a one-off wait (a GIO async call,
/// `Readiness`) costs two of those writes and a turn of the loop.
@MainActor
package final class PollableWatch {
    private let source: UnsafeMutablePointer<GSource>

    /// Watches `input`, a `GPollableInputStream *`; with `cancellable`, `body` also runs once
    /// it is cancelled (then a read fails or ends: the stream was closed under it).
    package convenience init(input: OpaquePointer, cancellable: UnsafeMutablePointer<GCancellable>? = nil,
                     _ body: @escaping @MainActor () -> Repetition) {
        self.init(g_pollable_input_stream_create_source(input, cancellable)!, body)
    }

    /// Watches `output`, a `GPollableOutputStream *`.
    package convenience init(output: OpaquePointer, _ body: @escaping @MainActor () -> Repetition) {
        self.init(g_pollable_output_stream_create_source(output, nil)!, body)
    }

    private init(_ source: UnsafeMutablePointer<GSource>, _ body: @escaping @MainActor () -> Repetition) {
        self.source = source
        g_source_set_callback(source, unsafeBitCast(pollableTrampoline, to: GSourceFunc.self),
                              PollableBox(body).retainedOpaque(), CallbackBox.destroyNotify)
        g_source_attach(source, MainLoop.context.gContext)
    }

    isolated deinit {
        g_source_destroy(source)
        g_source_unref(source)
    }

    /// Removes the source; `body` will not run again. More than once is harmless.
    package func cancel() { g_source_destroy(source) }
}

/// The closure behind a `PollableWatch`.
private final class PollableBox: CallbackBox, @unchecked Sendable {
    let body: @MainActor () -> Repetition
    init(_ body: @escaping @MainActor () -> Repetition) { self.body = body }
}

/// `gboolean (*GPollableSourceFunc)(GObject *, gpointer)`.
private let pollableTrampoline: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, userData in
    guard let userData else { return 0 }
    MainThreadRules.requireLoopThread("a pollable stream's source")
    let box = PollableBox.borrow(userData)
    return MainActor.assumeIsolated { box.body() } == .again ? 1 : 0
}
