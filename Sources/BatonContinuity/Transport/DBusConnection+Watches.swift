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
    /// connection (the agent's Unix socket): its readiness is the stream's. A TLS stream's is
    /// not (GnuTLS may hold decrypted bytes the socket does not show), nor an ICE stream's.
    static func plainSocketDescriptor(of stream: UnsafeMutablePointer<GIOStream>, base: TransportBase) -> Int32? {
        guard case .socket(let socket) = base,
              g_type_check_instance_is_a(UnsafeMutableRawPointer(stream).assumingMemoryBound(to: GTypeInstance.self),
                                         g_socket_connection_get_type()) != 0 else { return nil }
        return g_socket_get_fd(socket)
    }

    /// A watch that runs `readAvailable()` each time the stream can be read. Over a plain
    /// socket it is an `FDWatch` on the descriptor, which costs no empty turn of the loop per
    /// message (GLib's pollable source is taken out of the poll set around each dispatch, and
    /// each of those writes the loop's wake-up eventfd); an abort shuts the socket down, which
    /// makes it readable, so the watch sees the end. Otherwise the stream's pollable source,
    /// which also runs once `aborted` is cancelled.
    func makeReadWatch() -> any StreamWatch {
        if let socketDescriptor { return FDWatch(readable: socketDescriptor) { [weak self] in self?.readAvailable() ?? .stop } }
        return PollableWatch(input: inputStream, cancellable: aborted) { [weak self] in self?.readAvailable() ?? .stop }
    }

    /// A watch that runs `flush()` each time the stream can be written, chosen as
    /// `makeReadWatch()` chooses.
    func makeWriteWatch() -> any StreamWatch {
        if let socketDescriptor { return FDWatch(writable: socketDescriptor) { [weak self] in self?.flush() ?? .stop } }
        return PollableWatch(output: outputStream) { [weak self] in self?.flush() ?? .stop }
    }
}
