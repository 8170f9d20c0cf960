@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import Logging
import XCTest

/// A call and its bytes reply through a real `DBusConnection` (a socket pair, the loop's watch)
/// with a raw peer at the other end (issue 26): the call goes out as one message GLib reads as
/// the call made, a bytes reply (`DBusBytesReply`) ends it with its bytes, a bytes reply to a
/// call waiting for another type fails that call with the type (GLib's path), and a bytes reply
/// to no call waiting is dropped with the connection kept.
final class DBusBytesReplyConnectionTests: XCTestCase {
    func testABytesReplyEndsItsCallWithItsBytes() throws {
        try MainActor.assumeIsolated { try Harness().aBytesReplyEndsItsCallWithItsBytes() }
    }

    func testABytesReplyToACallWaitingForAnotherTypeFailsItWithTheType() throws {
        try MainActor.assumeIsolated { try Harness().aBytesReplyToACallWaitingForAnotherTypeFailsItWithTheType() }
    }

    func testABytesReplyToNoCallIsDroppedAndTheConnectionKept() throws {
        try MainActor.assumeIsolated { try Harness().aBytesReplyToNoCallIsDroppedAndTheConnectionKept() }
    }
}

/// The connection and the raw peer of one test.
@MainActor
private final class Harness {
    private var fds: [Int32] = [-1, -1]
    private var bus: DBusConnection!

    /// The connection on one end of a new socket pair; the other end is `fds[1]`.
    private func open() throws {
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
        let socket = try XCTUnwrap(g_socket_new_from_fd(fds[0], nil))
        let connection = g_socket_connection_factory_create_connection(socket)!
        bus = DBusConnection(stream: UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GIOStream.self), socket: socket,
                             log: Logger(label: "bytes-reply"), kind: "connection", fallbackErrorName: DeviceInterface.ErrorName.failed)
        g_object_unref(connection)
        g_object_unref(socket)
        bus.startMessageProcessing()
    }

    private func end() {
        bus.close()
        close(fds[1])
    }

    /// Reads one whole message from the raw end (written before `start` returned).
    private func readMessage() throws -> [UInt8] {
        var message: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let frame = message.withUnsafeBytes { DBusFraming(maximumBody: 1 << 20, maximumHeaderFields: 1 << 16).frame($0) }
            if case .message(let size) = frame, message.count >= size { return message }
            let n = recv(fds[1], &buffer, buffer.count, 0)
            guard n > 0 else { throw CocoaError(.fileReadUnknown) }
            message += buffer.prefix(n)
        }
    }

    private func sendReply(to serial: UInt32, _ bytes: Data) {
        var reply = [UInt8](repeating: 0, count: DBusBytesReply.size(bytes: bytes.count))
        reply.withUnsafeMutableBytes { buffer in
            bytes.withUnsafeBytes { DBusBytesReply.write(into: buffer, serial: 900 + serial, replySerial: serial, bytes: $0) }
        }
        XCTAssertEqual(send(fds[1], reply, reply.count, Int32(MSG_NOSIGNAL)), reply.count)
    }

    /// The call's serial, after checking GLib reads the message as `FetchPayload(sequence)`.
    private func callSerial(_ message: [UInt8], sequence: UInt64) throws -> UInt32 {
        var copy = message
        let decoded = try XCTUnwrap(copy.withUnsafeMutableBufferPointer {
            g_dbus_message_new_from_blob($0.baseAddress, gsize($0.count), G_DBUS_CAPABILITY_FLAGS_NONE, nil)
        })
        defer { g_object_unref(UnsafeMutableRawPointer(decoded)) }
        XCTAssertEqual(g_dbus_message_get_message_type(decoded), G_DBUS_MESSAGE_TYPE_METHOD_CALL)
        XCTAssertEqual(String(cString: g_dbus_message_get_member(decoded)), "FetchPayload")
        let body = try XCTUnwrap(g_dbus_message_get_body(decoded))
        XCTAssertEqual(try Variant(reading: body), .tuple([.uint64(sequence)]))
        return g_dbus_message_get_serial(decoded)
    }

    func aBytesReplyEndsItsCallWithItsBytes() throws {
        try open()
        defer { end() }
        var result: Result<[Variant], GLibError>?
        try bus.start(DeviceMethod.path, DeviceMethod.interface, "FetchPayload", [.uint64(7)], replyType: "(ay)",
                      timeout: .seconds(30)) { result = $0 }
        let serial = try callSerial(try readMessage(), sequence: 7)
        let payload = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0) })
        sendReply(to: serial, payload)
        spin(until: { result != nil })
        XCTAssertEqual(try result?.get(), [.bytes(payload)])
        XCTAssertFalse(bus.isClosed)
    }

    func aBytesReplyToACallWaitingForAnotherTypeFailsItWithTheType() throws {
        try open()
        defer { end() }
        var result: Result<[Variant], GLibError>?
        try bus.start(DeviceMethod.path, DeviceMethod.interface, "FetchPayload", [.uint64(8)], replyType: "(s)",
                      timeout: .seconds(30)) { result = $0 }
        sendReply(to: try callSerial(try readMessage(), sequence: 8), Data("not a string".utf8))
        spin(until: { result != nil })
        guard case .failure(let error)? = result else { return XCTFail("the call succeeded: \(String(describing: result))") }
        XCTAssertEqual(error.code, gint(G_IO_ERROR_INVALID_ARGUMENT.rawValue))
    }

    func aBytesReplyToNoCallIsDroppedAndTheConnectionKept() throws {
        try open()
        defer { end() }
        sendReply(to: 4242, Data("late".utf8))
        // A call after it still gets its own reply: the late one was read and dropped, not taken for it.
        var result: Result<[Variant], GLibError>?
        try bus.start(DeviceMethod.path, DeviceMethod.interface, "FetchPayload", [.uint64(9)], replyType: "(ay)",
                      timeout: .seconds(30)) { result = $0 }
        sendReply(to: try callSerial(try readMessage(), sequence: 9), Data("mine".utf8))
        spin(until: { result != nil })
        XCTAssertEqual(try result?.get(), [.bytes(Data("mine".utf8))])
        XCTAssertFalse(bus.isClosed)
    }
}
