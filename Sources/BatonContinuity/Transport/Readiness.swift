import BatonLoop
import CGLib
import Foundation

/// Waiting, on the app's loop and without a thread, until a peer has sent something.
///
/// GIO runs a TLS handshake in a worker thread of GLib's shared pool, blocked in reads. A peer
/// that connects and says nothing would hold such a thread for its whole deadline, and enough
/// of them would make every other connection queue for the pool. So the listener hands a
/// connection to GIO only once the whole first TLS record (the ClientHello) is there. The D-Bus
/// engine (`DBusConnection`) waits here, on the loop, for each read of its authentication.
@MainActor
package enum Readiness {
    /// The largest TLS record: 2^14 bytes of data plus 256 of expansion, and its header.
    static let maximumRecord = 5 + 16_384 + 256

    /// Waits until `fd` holds a whole TLS handshake record and returns it (peeked: it stays
    /// for the handshake to read); nil if the peer hung up, the socket was shut down, or the
    /// bytes are not a TLS handshake record.
    static func clientHello(on fd: Int32) async -> [UInt8]? {
        await socket(fd, holds: 5)
        var header = [UInt8](repeating: 0, count: 5)
        guard recv(fd, &header, 5, Int32(MSG_PEEK | MSG_DONTWAIT)) == 5, header[0] == 0x16 else { return nil }
        let record = 5 + (Int(header[3]) << 8 | Int(header[4]))
        guard record <= maximumRecord else { return nil }
        await socket(fd, holds: record)
        var bytes = [UInt8](repeating: 0, count: record)
        return recv(fd, &bytes, record, Int32(MSG_PEEK | MSG_DONTWAIT)) == record ? bytes : nil
    }

    /// Waits until `fd` has `count` bytes queued, or has hung up or failed (`SO_RCVLOWAT`
    /// makes the kernel report it readable only then).
    static func socket(_ fd: Int32, holds count: Int) async {
        var lowWater = Int32(count)
        setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &lowWater, socklen_t(MemoryLayout<Int32>.size))
        await readable(fd)
        lowWater = 1
        setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &lowWater, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Waits until `fd` is readable (a byte or more queued), hung up or failed.
    package static func readable(_ fd: Int32) async {
        await withLoopContinuation { (continuation: CheckedContinuation<Void, Never>) in
            MainLoop.whenReadable(fd) {
                continuation.resume()
                return .stop
            }
        }
    }

    /// Waits until `input` (a pollable stream, such as a TLS connection's) can be read without
    /// blocking: data, its end, or an error; or until `cancellable` is cancelled (the stream
    /// was closed under the reader: an ICE stream says nothing then). With `askingFirst`, a
    /// stream readable now returns at once; without (an ICE stream, see
    /// `TransportBase.isSocket`), the wait starts at once and ends at the loop's next turn.
    static func stream(_ input: UnsafeMutablePointer<GInputStream>, cancellable: UnsafeMutablePointer<GCancellable>? = nil,
                       askingFirst: Bool = true) async {
        let pollable = OpaquePointer(input)
        guard g_pollable_input_stream_can_poll(pollable) != 0, !askingFirst || g_pollable_input_stream_is_readable(pollable) == 0,
              g_cancellable_is_cancelled(cancellable) == 0 else { return }
        await withLoopContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let box = ReadyBox { continuation.resume() }
            let source = g_pollable_input_stream_create_source(pollable, cancellable)!
            g_source_set_callback(source, unsafeBitCast(pollableReady, to: GSourceFunc.self), box.retainedOpaque(), CallbackBox.destroyNotify)
            g_source_attach(source, MainLoop.context.gContext)
            g_source_unref(source)
        }
    }
}

/// What a pollable source calls once.
private final class ReadyBox: CallbackBox, @unchecked Sendable {
    let ready: () -> Void
    init(_ ready: @escaping () -> Void) { self.ready = ready }
}

/// `gboolean (*GPollableSourceFunc)(GObject *, gpointer)`: once, then the source is removed.
private let pollableReady: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> gboolean = { _, userData in
    if let userData { ReadyBox.borrow(userData).ready() }
    return 0
}
