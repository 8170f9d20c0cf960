@testable import BatonContinuity
import BatonLoop
import BatonTestSupport
import CGLib
import Foundation
import Logging
import XCTest

/// Hostile bytes through a real `DBusConnection` (a socket pair, the loop's watch), as the
/// `DBusMessage` fuzz target feeds them, with `StreamData` subscribed so the direct data-signal
/// reader (`DBusDataSignal`, large messages read into a buffer of their own) is in the path:
/// the fuzz corpus, and `StreamData` cut short and changed byte by byte. Each connection ends
/// when its input does, and what reaches the subscription is exactly what GLib's own decoding
/// of the same message gives: the `(uay)` values of a `StreamData` it takes, nothing otherwise.
final class DBusCorpusReplayTests: XCTestCase {
    private static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fuzz/Corpus/DBusMessage").standardized

    /// Feeds `input` to a served connection, closes the other end, waits for the connection to
    /// end, and returns the `StreamData` arguments its subscription received.
    @MainActor
    private static func feed(_ input: [UInt8]) throws -> [[Variant]] {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds), 0)
        var size = Int32(1 << 20)
        setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let socket = try XCTUnwrap(g_socket_new_from_fd(fds[0], nil))
        let connection = g_socket_connection_factory_create_connection(socket)!
        let bus = DBusConnection(stream: UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GIOStream.self), socket: socket,
                                 log: Logger(label: "replay"), kind: "connection", fallbackErrorName: DeviceInterface.ErrorName.failed)
        g_object_unref(connection)
        g_object_unref(socket)
        bus.export(path: DeviceInterface.path, info: DeviceInterface.info) { call in call.reply([]) }
        let received = Received()
        bus.subscribe(DeviceSignal.path, DeviceSignal.interface, DeviceSignal.Member.streamData.rawValue) { received.items.append($0) }
        bus.startMessageProcessing()
        var written = 0
        input.withUnsafeBytes { bytes in
            while written < bytes.count {
                let n = send(fds[1], bytes.baseAddress! + written, bytes.count - written, Int32(MSG_NOSIGNAL))
                if n <= 0 { break }
                written += n
            }
        }
        shutdown(fds[1], Int32(SHUT_WR))
        spin(until: { bus.isClosed })
        close(fds[1])
        return received.items
    }

    /// What a subscription received.
    @MainActor
    private final class Received {
        var items: [[Variant]] = []
    }

    /// The `StreamData` arguments GLib's decoding gives for `message` (one whole message): none
    /// if it refuses it or it is not a `StreamData` of `(uay)`.
    private static func glibReads(_ message: [UInt8]) -> [[Variant]] {
        var copy = message
        let decoded = copy.withUnsafeMutableBufferPointer {
            g_dbus_message_new_from_blob($0.baseAddress, gsize($0.count), G_DBUS_CAPABILITY_FLAGS_NONE, nil)
        }
        guard let decoded else { return [] }
        defer { g_object_unref(UnsafeMutableRawPointer(decoded)) }
        let string = { (pointer: UnsafePointer<CChar>?) in pointer.map { String(cString: $0) } }
        guard g_dbus_message_get_message_type(decoded) == G_DBUS_MESSAGE_TYPE_SIGNAL, g_dbus_message_get_serial(decoded) != 0,
              string(g_dbus_message_get_path(decoded)) == DeviceSignal.path,
              string(g_dbus_message_get_interface(decoded)) == DeviceSignal.interface,
              string(g_dbus_message_get_member(decoded)) == DeviceSignal.Member.streamData.rawValue else { return [] }
        // As the connection hands a signal on: no body is no arguments; a body it cannot read, nothing.
        guard let body = g_dbus_message_get_body(decoded) else { return [[]] }
        guard case .tuple(let items)? = try? Variant(reading: body) else { return [] }
        return [items]
    }

    /// `StreamData(1, count zero bytes)` as a link writes it.
    private static func streamData(count: Int) -> [UInt8] {
        let (path, interface, member) = (DeviceSignal.path, DeviceSignal.interface, DeviceSignal.Member.streamData.rawValue)
        var message = [UInt8](repeating: 0, count: DBusDataSignal.size(path: path, interface: interface, member: member, bytes: count))
        message.withUnsafeMutableBytes { buffer in
            [UInt8](repeating: 9, count: count).withUnsafeBytes {
                DBusDataSignal.write(into: buffer, serial: 5, path: path, interface: interface, member: member, number: 1, bytes: $0)
            }
        }
        return message
    }

    func testTheCorpusEndsEveryConnection() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).sorted()
        XCTAssertTrue(files.contains("signal-stream-data-large"), "the corpus has StreamData as a link writes it")
        try MainActor.assumeIsolated {
            for file in files {
                let input = [UInt8](try Data(contentsOf: Self.corpus.appendingPathComponent(file)))
                let received = try Self.feed(input)
                if file.hasPrefix("signal-stream-data") { XCTAssertEqual(received, Self.glibReads(input), file) }
            }
        }
    }

    /// `StreamData`, small and large (read into a buffer of its own), with each header byte but
    /// the body's length changed to 0xFF and to 0, and cut short every 8 bytes: each connection ends, and what
    /// reached the subscription is what GLib reads from the same bytes.
    func testChangedStreamDataDeliversWhatGLibReadsOrNothing() throws {
        try MainActor.assumeIsolated {
            for count in [3, 20 * 1024] {
                let original = Self.streamData(count: count)
                let header = original.count - count
                var inputs: [(String, [UInt8])] = [("whole", original)]
                // Not the body's length (bytes 4–7): the framing reads the message by it (DBusFraming),
                // where GLib, given a blob, reads to the blob's end.
                for index in 0..<header where !(4..<8).contains(index) {
                    for value: UInt8 in [0xFF, 0] where original[index] != value {
                        var changed = original
                        changed[index] = value
                        inputs.append(("byte \(index) set to \(value)", changed))
                    }
                }
                for cut in stride(from: 8, to: header, by: 8) { inputs.append(("cut at \(cut)", Array(original.prefix(cut)))) }
                for (what, input) in inputs {
                    XCTAssertEqual(try Self.feed(input), Self.glibReads(input), "\(count) bytes, \(what)")
                }
            }
        }
    }

    /// Messages back to back in one input, large between small, each read (the large ones in
    /// their own buffers) and delivered in order.
    func testBackToBackStreamDataIsDeliveredInOrder() throws {
        let sizes = [3, 20 * 1024, 5, 40 * 1024, 64 * 1024 - 128, 1]
        let input = sizes.flatMap { Self.streamData(count: $0) }
        try MainActor.assumeIsolated {
            let received = try Self.feed(input)
            XCTAssertEqual(received.map { items -> Int in
                guard case .bytes(let bytes) = items.last else { return -1 }
                return bytes.count
            }, sizes)
        }
    }
}
