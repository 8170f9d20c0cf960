import Baton
import BatonLoop
import CGLib
import Foundation

/// A continuation stream over a local connection to the agent (a `GSocketConnection` on its
/// Unix socket): the app's end of a stream the agent relays to the other device, and the
/// agent's end toward the app. Reads and writes run on the loop through GIO's async calls.
///
/// After the connection's `S` and token, bytes go in frames: a 4-byte big-endian length (at
/// most `piece`) and that many bytes; a frame of length 0 ends the writer's side
/// (`finishWriting()`). A connection that ends without it (the relay's other side broke, the
/// writer died) is an error for the reader, never a stream that ended early but looked whole.
final class LocalStream: ContinuationStreamChannel, @unchecked Sendable {
    /// The `GSocketConnection *` (a reference held until `deinit`).
    let connection: OpaquePointer
    static let piece = 64 * 1024

    /// Takes a reference of its own to `connection`.
    init(_ connection: OpaquePointer) {
        self.connection = connection
        g_object_ref(UnsafeMutableRawPointer(connection))
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(connection)) }

    private var stream: UnsafeMutablePointer<GIOStream> { UnsafeMutableRawPointer(connection).assumingMemoryBound(to: GIOStream.self) }

    /// Bytes left in the frame being read; whether the end frame came. One reader at a time.
    private var frameLeft = 0
    private var ended = false

    func read(maxLength: Int) async throws -> Data {
        if ended { return Data() }
        if frameLeft == 0 {
            var header = Data()
            while header.count < 4 {
                let bytes = try await readSome(4 - header.count)
                guard !bytes.isEmpty else { throw Self.broken }
                header.append(bytes)
            }
            let length = header.reduce(0) { $0 << 8 | Int($1) }
            guard length <= Self.piece else {
                throw CocoaError.handoff(.userActivityHandoffFailed, "a stream frame of \(length) bytes, over \(Self.piece)")
            }
            if length == 0 {
                ended = true
                return Data()
            }
            frameLeft = length
        }
        let bytes = try await readSome(min(max(1, maxLength), frameLeft))
        guard !bytes.isEmpty else { throw Self.broken }
        frameLeft -= bytes.count
        return bytes
    }

    /// What a reader gets when the connection ends before the end frame.
    private static var broken: CocoaError {
        CocoaError.handoff(.userActivityConnectionUnavailable, "the stream through the agent broke before its end")
    }

    /// Up to `count` bytes as they arrive on the connection; empty at its end.
    private func readSome(_ wanted: Int) async throws -> Data {
        let input = SendableHandle(OpaquePointer(g_io_stream_get_input_stream(stream)))
        let count = max(1, min(wanted, Self.piece + 4))
        return try await GIOAsync.call { cancellable, callback, userData in
            g_input_stream_read_bytes_async(UnsafeMutablePointer(input.pointer), gsize(count), G_PRIORITY_DEFAULT, cancellable, callback, userData)
        } finish: { result, error in
            guard let bytes = g_input_stream_read_bytes_finish(UnsafeMutablePointer(input.pointer), result, error) else { return nil }
            defer { g_bytes_unref(bytes) }
            var size: gsize = 0
            guard let data = g_bytes_get_data(bytes, &size), size > 0 else { return Data() }
            return Data(bytes: data, count: Int(size))
        }
    }

    func write(_ data: Data) async throws {
        var offset = data.startIndex
        while offset < data.endIndex {
            let end = min(offset + Self.piece, data.endIndex)
            try await writeRaw(Self.header(end - offset) + data[offset..<end])
            offset = end
        }
    }

    private static func header(_ length: Int) -> Data {
        Data([UInt8(length >> 24 & 0xff), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)])
    }

    /// Writes `data` as it is, unframed (the connection's `S` and token).
    func writeRaw(_ data: Data) async throws {
        let output = SendableHandle(OpaquePointer(g_io_stream_get_output_stream(stream)))
        var offset = data.startIndex
        while offset < data.endIndex {
            let piece = data[offset..<min(offset + Self.piece, data.endIndex)]
            let bytes = SendableHandle(piece.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) })
            defer { g_bytes_unref(bytes.pointer) }
            let written: Int = try await GIOAsync.call { cancellable, callback, userData in
                g_output_stream_write_bytes_async(UnsafeMutablePointer(output.pointer), bytes.pointer, G_PRIORITY_DEFAULT,
                                                  cancellable, callback, userData)
            } finish: { result, error in
                let n = g_output_stream_write_bytes_finish(UnsafeMutablePointer(output.pointer), result, error)
                return n < 0 ? nil : Int(n)
            }
            offset += written
        }
    }

    func finishWriting() async throws {
        try await writeRaw(Self.header(0))
        let socket = g_socket_connection_get_socket(UnsafeMutablePointer(connection))
        var error: UnsafeMutablePointer<GError>?
        guard g_socket_shutdown(socket, 0, 1, &error) != 0 else { throw GLibError(consuming: error!) }
    }

    func close() {
        let socket = g_socket_connection_get_socket(UnsafeMutablePointer(connection))
        g_socket_shutdown(socket, 1, 1, nil)
        g_socket_close(socket, nil)
    }
}
