@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import Logging
import XCTest

/// How a `DBusConnection` over a plain socket (the agent's Unix socket) watches it: through an
/// `FDWatch` on the descriptor, which stays in the loop's poll set while it runs, so a message
/// costs the loop one ready fd (the socket's) and no wake-up of its own. A GIO pollable source,
/// which GLib takes out of the poll set around each dispatch (writing the context's wake-up
/// eventfd each time), made the eventfd ready too: two ready fds a message.
final class DBusConnectionWatchTests: XCTestCase {
    func testAMessageOverAPlainSocketMakesOneFDReady() throws {
        try MainActor.assumeIsolated {
            let signals = 200
            var fds: [Int32] = [-1, -1]
            XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
            let socket = try XCTUnwrap(g_socket_new_from_fd(fds[0], nil))
            let connection = g_socket_connection_factory_create_connection(socket)!
            let bus = DBusConnection(stream: UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GIOStream.self), socket: socket,
                                     log: Logger(label: "watch"), kind: "connection", fallbackErrorName: DeviceInterface.ErrorName.failed)
            g_object_unref(connection)
            g_object_unref(socket)
            let peer = fds[1]
            defer {
                bus.close()
                close(peer)
            }
            XCTAssertNotNil(bus.socketDescriptor, "a plain socket's connection watches its descriptor")

            var received = 0
            let handled = DispatchSemaphore(value: 0)
            _ = bus.subscribe("/org/baton/Test", "org.baton.Test", "Tick") { _ in
                received += 1
                handled.signal()
            }
            bus.startMessageProcessing()
            let signal = try GLibMessageBlob.bytes(of: g_dbus_message_new_signal("/org/baton/Test", "org.baton.Test", "Tick")!,
                                                   arguments: [.uint32(1)])
            let polls = ReadyFDCounter(on: MainLoop.context)
            defer { polls.remove() }
            // One signal at a time, each after the last was handled: each finds the loop waiting.
            Thread {
                for _ in 0..<signals {
                    _ = signal.withUnsafeBytes { send(peer, $0.baseAddress, $0.count, 0) }
                    handled.wait()
                }
            }.start()
            XCTAssertTrue(MainLoop.run(until: { received == signals }, timeout: .seconds(60)))
            let ready = polls.ready
            XCTAssertLessThan(Double(ready), 1.5 * Double(signals), "\(ready) fds ready in polls for \(signals) messages")
        }
    }
}
