import BatonLoop
import CGLib

/// A watch a `DBusConnection` keeps on its stream for reading or writing: cancelled when the
/// connection pauses, closes or has nothing left to write.
@MainActor
package protocol StreamWatch: AnyObject {
    /// Removes the watch; its body will not run again.
    func cancel()
}

extension PollableWatch: StreamWatch {}
extension FDWatch: StreamWatch {}

extension DBusConnection {
    /// The descriptor of the socket when the connection's stream is that socket's own
    /// connection (the agent's Unix socket) or TLS on it (a link over TCP): the socket's
    /// readiness is then the stream's, but for what TLS already holds (`streamHoldsReadBytes`).
    /// An ICE stream's is not (libnice reads its sockets itself).
    static func watchedDescriptor(of stream: UnsafeMutablePointer<GIOStream>, base: TransportBase) -> Int32? {
        guard case .socket(let socket) = base,
              isInstance(stream, of: g_socket_connection_get_type()) || isInstance(stream, of: g_tls_connection_get_type()) else { return nil }
        return g_socket_get_fd(socket)
    }

    /// Whether `stream` is a TLS connection.
    static func isTLS(_ stream: UnsafeMutablePointer<GIOStream>) -> Bool { isInstance(stream, of: g_tls_connection_get_type()) }

    private static func isInstance(_ stream: UnsafeMutablePointer<GIOStream>, of type: GType) -> Bool {
        g_type_check_instance_is_a(UnsafeMutableRawPointer(stream).assumingMemoryBound(to: GTypeInstance.self), type) != 0
    }

    /// Starts the read watch (`makeReadWatch()`). Over TLS it also reads once at the loop's
    /// next turn: GnuTLS may hold bytes the socket no longer shows (a record decrypted whole by
    /// a read that asked for less: the authentication's, or the last before a pause), which no
    /// readiness of the socket would announce. `readAvailable()` itself never leaves such bytes
    /// behind while it is watched: it reads until a read would block (GnuTLS then holds no
    /// whole record, only the start of one whose rest the socket will show), and when it stops
    /// for the turn it reads again at the next (`readSoon()`).
    func watchForReading() {
        readWatch = makeReadWatch()
        if streamHoldsReadBytes { readSoon() }
    }

    /// A watch that runs `readAvailable()` each time the stream can be read. Over a socket (its
    /// own connection, or TLS on it) it is an `FDWatch` on the descriptor, which costs no
    /// empty turn of the loop per message (GIO's pollable sources are taken out of the poll set
    /// around each dispatch, and each of those writes the loop's wake-up eventfd); an abort
    /// shuts the socket down, which makes it readable, so the watch sees the end. Otherwise
    /// (an ICE stream) the stream's pollable source, which also runs once `aborted` is cancelled.
    func makeReadWatch() -> any StreamWatch {
        if let socketDescriptor { return FDWatch(readable: socketDescriptor) { [weak self] in self?.readAvailable() ?? .stop } }
        return PollableWatch(input: inputStream, cancellable: aborted) { [weak self] in self?.readAvailable() ?? .stop }
    }

    /// A watch that runs `flush()` each time the stream can be written, chosen as
    /// `makeReadWatch()` chooses. (A TLS write that would block keeps nothing GnuTLS could
    /// send by itself: `flush()` gives it the same bytes again once the socket takes more.)
    func makeWriteWatch() -> any StreamWatch {
        if let socketDescriptor { return FDWatch(writable: socketDescriptor) { [weak self] in self?.flush() ?? .stop } }
        return PollableWatch(output: outputStream) { [weak self] in self?.flush() ?? .stop }
    }
}
