import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import XCTest

/// Signalled each time the host context below is about to block in `poll`.
private let aboutToBlock = DispatchSemaphore(value: 0)

/// A `GPollFunc` for the host context: says the loop is about to block, then polls as GLib does.
private let pollSayingItBlocks: GPollFunc = { fds, count, timeout in
    if timeout != 0 { aboutToBlock.signal() }
    return g_poll(fds, count, timeout)
}

/// GIO frees sockets on its own threads (GDBus's worker closes and finalizes a link's stream
/// there): the loop the app runs must hear of it, or a wait for the descriptor to go sleeps
/// until an unrelated event. (The fault suite's wait for a link's descriptors did exactly that
/// whenever the release lost the race with the loop going back to sleep: 20 s a case.)
final class ReleaseWakeTests: XCTestCase {
    /// A socket whose last reference is dropped on another thread while the loop is blocked in
    /// `poll`: the loop wakes as it is freed and sees its descriptor closed, long before the
    /// wait's deadline (which would be the only other event).
    func testASocketFreedOnAnotherThreadWakesTheLoop() throws {
        try MainActor.assumeIsolated {
            let host = HostLoop()
            MainLoop.embed(in: host.context)
            defer { MainLoop.embed(in: .default) }
            g_main_context_set_poll_func(host.context.gContext, pollSayingItBlocks)
            defer { g_main_context_set_poll_func(host.context.gContext, nil) }
            while aboutToBlock.wait(timeout: .now()) == .success {}

            let socket = try XCTUnwrap(g_socket_new(G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP, nil))
            let fd = g_socket_get_fd(socket)
            MainLoop.wakeOnRelease(of: UnsafeMutableRawPointer(socket))
            let owned = SocketReference(socket)
            Thread.detachNewThread {
                // Once the loop is blocked in poll, drop the last reference here.
                aboutToBlock.wait()
                owned.release()
            }
            var expired = false
            let deadline = MainLoop.after(.seconds(30)) { expired = true }
            defer { deadline.cancel() }
            while fcntl(fd, F_GETFD) != -1 && !expired { host.context.iterate(mayBlock: true) }
            XCTAssertEqual(fcntl(fd, F_GETFD), -1, "the socket was never freed")
            XCTAssertFalse(expired, "the socket was freed on another thread and nothing woke the loop until its deadline")
        }
    }
}

/// One reference to a `GSocket`, handed to another thread to drop.
private final class SocketReference: @unchecked Sendable {
    private let socket: UnsafeMutablePointer<GSocket>
    init(_ socket: UnsafeMutablePointer<GSocket>) { self.socket = socket }
    func release() { g_object_unref(socket) }
}
